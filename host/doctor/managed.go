package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcphost/mcphost/host/config"
)

// KindManaged is the administrator's managed configuration: where it is
// read from, its rules in short, what it blocks, and whether it can be
// tampered with by the user who runs mcphost.
const KindManaged = "managed"

// ManagedReport is the managed section of the report (its JSON form is
// stable): what an administrator checks on a user's machine.
type ManagedReport struct {
	// Dir is the directory searched; Files the managed files read, in
	// merge order (empty: there is no managed configuration).
	Dir   string   `json:"dir"`
	Files []string `json:"files"`
	// The rules, as config.Managed holds them (absent when Files is
	// empty).
	AllowedServers       []config.ServerRule `json:"allowed_servers,omitempty"`
	DeniedServers        []config.ServerRule `json:"denied_servers,omitempty"`
	AllowUserServers     *bool               `json:"allow_user_servers,omitempty"`
	AllowProjectServers  *bool               `json:"allow_project_servers,omitempty"`
	Plugins              string              `json:"plugins,omitempty"`
	RequireSignedPlugins bool                `json:"require_signed_plugins,omitempty"`
	LockSettings         []string            `json:"lock_settings,omitempty"`
	// Servers are the ids the managed configuration defines.
	Servers []string `json:"servers,omitempty"`
	// Blocked are the servers and plugins of the other layers that its
	// rules block, with the words naming the rule and its file.
	BlockedServers []Blocked `json:"blocked_servers,omitempty"`
	BlockedPlugins []Blocked `json:"blocked_plugins,omitempty"`
	// Writable are the managed paths (the directory, managed.d, the files,
	// the managed plugins' files) that the user running mcphost, or any
	// user but root, can change: the configuration is not tamper-proof.
	Writable []string `json:"writable,omitempty"`
}

// Blocked is one server or plugin the managed configuration blocks.
type Blocked struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// checkManaged reports the managed configuration of cfg, read from dir.
func (r *Report) checkManaged(cfg *config.Config, dir string) {
	m := cfg.Managed
	rep := &ManagedReport{Dir: dir, Files: []string{}}
	r.Managed = rep
	if m == nil {
		r.add(Check{Kind: KindManaged, Subject: dir, Status: OK,
			Message: "none: no managed.yaml, managed.json, managed.toml or managed.d/ here (the user's own configuration applies)"})
		return
	}
	rep.Dir, rep.Files = m.Dir, append(rep.Files, m.Files...)
	user, project := m.AllowUserServers, m.AllowProjectServers
	rep.AllowedServers, rep.DeniedServers = m.AllowedServers, m.DeniedServers
	rep.AllowUserServers, rep.AllowProjectServers = &user, &project
	rep.Plugins, rep.RequireSignedPlugins = m.Plugins, m.RequireSignedPlugins
	rep.LockSettings, rep.Servers = m.LockSettings, m.Servers
	r.add(Check{Kind: KindManaged, Subject: m.Dir, Status: OK, Message: "read: " + strings.Join(m.Files, ", ")})
	r.add(Check{Kind: KindManaged, Subject: "rules", Status: OK, Message: managedRules(m)})
	if m.RequireSignedPlugins {
		r.add(Check{Kind: KindManaged, Subject: "require_signed_plugins", Status: Warn,
			Message: "set, but mcphost cannot verify plugin signatures yet: it is reported, not enforced",
			Fix:     "to hold plugins meanwhile, set plugins: pinned (only plugins pinned by sha256) or managed_only in the managed file"})
	}
	for _, s := range cfg.Servers {
		if s.Blocked != "" {
			rep.BlockedServers = append(rep.BlockedServers, Blocked{Name: s.ID, Reason: s.Blocked})
		}
	}
	for _, p := range cfg.Plugins {
		if p.Blocked != "" {
			rep.BlockedPlugins = append(rep.BlockedPlugins, Blocked{Name: p.Name, Reason: p.Blocked})
		}
	}
	if n := len(rep.BlockedServers) + len(rep.BlockedPlugins); n > 0 {
		c := Check{Kind: KindManaged, Subject: "blocked", Status: Warn,
			Message: blockedSummary(rep),
			Fix:     "remove them from your configuration (mcphost mcp remove ID, mcphost plugin remove NAME), or ask your administrator"}
		for _, b := range rep.BlockedServers {
			c.Details = append(c.Details, "server "+b.Name+": "+b.Reason)
		}
		for _, b := range rep.BlockedPlugins {
			c.Details = append(c.Details, "plugin "+b.Name+": "+b.Reason)
		}
		r.add(c)
	}
	r.checkTamper(cfg, rep)
}

// managedRules says the rules in one line.
func managedRules(m *config.Managed) string {
	allowed := "any server allowed"
	if m.AllowedServers != nil {
		allowed = plural(len(m.AllowedServers), "allowed_servers rule")
	}
	parts := []string{allowed, plural(len(m.DeniedServers), "denied_servers rule")}
	yesNo := map[bool]string{true: "allowed", false: "not allowed"}
	parts = append(parts, "user servers "+yesNo[m.AllowUserServers], "project servers "+yesNo[m.AllowProjectServers],
		"plugins: "+m.Plugins)
	if len(m.LockSettings) > 0 {
		parts = append(parts, "locked: "+strings.Join(m.LockSettings, ", "))
	}
	if len(m.Servers) > 0 {
		parts = append(parts, "its servers: "+strings.Join(m.Servers, ", "))
	}
	if m.RequireSignedPlugins {
		parts = append(parts, "require_signed_plugins (not enforced yet)")
	}
	return strings.Join(parts, "; ")
}

func blockedSummary(rep *ManagedReport) string {
	names := func(list []Blocked) string {
		out := make([]string, len(list))
		for i, b := range list {
			out[i] = b.Name
		}
		return strings.Join(out, ", ")
	}
	var parts []string
	if len(rep.BlockedServers) > 0 {
		parts = append(parts, plural(len(rep.BlockedServers), "server")+" ("+names(rep.BlockedServers)+")")
	}
	if len(rep.BlockedPlugins) > 0 {
		parts = append(parts, plural(len(rep.BlockedPlugins), "plugin")+" ("+names(rep.BlockedPlugins)+")")
	}
	return "the managed configuration blocks " + strings.Join(parts, " and ") + " of your configuration: they do not run"
}

// checkTamper warns about every managed path that can be changed by
// someone other than root: the directory and managed.d (a file could be
// put in or taken out), the files, the pins it ships, and the files of the
// managed plugins (the policy itself). The configuration is used all the same: refusing to
// run would not stop whoever can edit it.
func (r *Report) checkTamper(cfg *config.Config, rep *ManagedReport) {
	m := cfg.Managed
	paths := []string{m.Dir}
	if fi, err := os.Stat(filepath.Join(m.Dir, "managed.d")); err == nil && fi.IsDir() {
		paths = append(paths, filepath.Join(m.Dir, "managed.d"))
	}
	paths = append(paths, m.Files...)
	paths = append(paths, cfg.Pinning.ManagedFiles...) // the approved tools
	for _, p := range cfg.Plugins {
		if p.Path != "" && contains(m.Files, p.Source) {
			paths = append(paths, p.Path)
		}
	}
	for _, p := range paths {
		who, err := writableBy(p)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && who == "") {
			continue // a missing plugin file is the plugin check's to report
		}
		mode := "chmod 644"
		if fi, serr := os.Stat(p); serr == nil && fi.IsDir() {
			mode = "chmod 755"
		}
		c := Check{Kind: KindManaged, Subject: p, Status: Warn,
			Fix: fmt.Sprintf("make it owned by root and not writable by others (%s, chown root)", mode)}
		if err != nil {
			c.Message = fmt.Sprintf("cannot tell who may change it (%v): the managed configuration may not be tamper-proof", err)
		} else {
			c.Message = fmt.Sprintf("writable by %s: the managed configuration is not tamper-proof", who)
			rep.Writable = append(rep.Writable, p)
		}
		r.add(c)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

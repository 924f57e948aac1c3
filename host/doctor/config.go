package doctor

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcphost/mcphost/host/config"
)

// checkConfig loads the configuration: one check per file read and per
// warning, or one failed check per problem when it does not load (nil).
func (r *Report) checkConfig(opts Options) *config.Config {
	cfg, err := config.Load(opts.Load)
	if err != nil {
		for _, e := range splitErrors(err) {
			r.add(Check{Kind: KindConfig, Subject: "load", Status: Fail, Message: e.Error(),
				Fix: "fix the file the message names (it gives the line, the server or the field); \"mcphost mcp list\" loads the configuration without starting anything"})
		}
		return nil
	}
	if len(cfg.Files) == 0 {
		r.add(Check{Kind: KindConfig, Subject: "files", Status: Warn,
			Message: "no configuration file was found (global config.yaml, the project's .mcphost.* or .mcp.json)",
			Fix:     "add a server: mcphost mcp add NAME -- COMMAND ARGS..., or mcphost mcp add NAME URL"})
	}
	for _, f := range cfg.Files {
		r.add(Check{Kind: KindConfig, Subject: f, Status: OK, Message: "read: " + contents(cfg, f)})
	}
	for _, w := range cfg.Warnings {
		r.add(Check{Kind: KindConfig, Subject: "warning", Status: Warn, Message: w, Fix: warningFix(w)})
	}
	return cfg
}

// splitErrors undoes errors.Join, so that each file's problem is a check
// of its own.
func splitErrors(err error) []error {
	if multi, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range multi.Unwrap() {
			out = append(out, splitErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// contents says what a file contributes: "2 servers, 1 plugin".
func contents(cfg *config.Config, file string) string {
	servers, plugins := 0, 0
	for _, s := range cfg.Servers {
		if s.Source == file {
			servers++
		}
	}
	for _, p := range cfg.Plugins {
		if p.Source == file {
			plugins++
		}
	}
	return plural(servers, "server") + ", " + plural(plugins, "plugin")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// warningFix is the fix for a configuration warning, for the kinds that
// have one; the warning itself says what was ignored.
func warningFix(w string) string {
	switch {
	case strings.Contains(w, "the project is not trusted"):
		return "fix the file if the project is yours; until it is trusted, mcphost ignores it"
	case strings.Contains(w, "defined in your own configuration"):
		return "give the project's server another id, or change your own entry"
	case strings.Contains(w, "the administrator locked it"), strings.Contains(w, "the administrator defines this server"),
		strings.Contains(w, "the administrator's managed configuration"):
		return "remove the setting from the file the warning names: the administrator's managed configuration decides it"
	}
	return ""
}

// projectFiles are the files of cfg.Files that belong to the project
// directory (.mcphost.* and .mcp.json), not given with --config.
func projectFiles(cfg *config.Config, explicit string) []string {
	if explicit != "" {
		if abs, err := filepath.Abs(explicit); err == nil {
			explicit = filepath.Clean(abs)
		}
	}
	var out []string
	for _, f := range cfg.Files {
		base := filepath.Base(f)
		if filepath.Dir(f) != cfg.ProjectDir || f == explicit {
			continue
		}
		if strings.HasPrefix(base, ".mcphost.") || base == config.MCPJSONFile {
			out = append(out, f)
		}
	}
	return out
}

// checkTrust says whether the project's files are in use: untrusted servers
// and plugins are not started until "mcphost trust".
func (r *Report) checkTrust(cfg *config.Config, opts Options) {
	files := projectFiles(cfg, opts.Load.ConfigFile)
	if len(files) == 0 {
		r.add(Check{Kind: KindTrust, Subject: cfg.ProjectDir, Status: OK, Message: "no project files (.mcphost.*, .mcp.json) here"})
		return
	}
	var servers, plugins []string
	for _, s := range cfg.Servers {
		if s.Untrusted {
			servers = append(servers, s.ID)
		}
	}
	for _, p := range cfg.Plugins {
		if p.Untrusted {
			plugins = append(plugins, p.Name)
		}
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.Base(f)
	}
	if len(servers)+len(plugins) == 0 {
		msg := strings.Join(names, ", ") + ": trusted"
		if ok, err := config.IsTrusted(opts.Load, ""); err == nil && !ok {
			msg = strings.Join(names, ", ") + ": not trusted, but nothing in them needs trust (they only switch servers off)"
		}
		r.add(Check{Kind: KindTrust, Subject: cfg.ProjectDir, Status: OK, Message: msg})
		return
	}
	var parts []string
	if len(servers) > 0 {
		parts = append(parts, plural(len(servers), "server")+" ("+strings.Join(servers, ", ")+")")
	}
	if len(plugins) > 0 {
		parts = append(parts, plural(len(plugins), "plugin")+" ("+strings.Join(plugins, ", ")+")")
	}
	state, fix := "not trusted; not started until it is", "review the files, then run: mcphost trust "+shellArg(cfg.ProjectDir)
	if cfg.TrustChanged {
		state, fix = "changed since you trusted them; not started until you trust them again", "review the changes, then run: mcphost trust "+shellArg(cfg.ProjectDir)
	}
	r.add(Check{Kind: KindTrust, Subject: cfg.ProjectDir, Status: Warn,
		Message: fmt.Sprintf("%s: %s: %s", strings.Join(names, ", "), state, strings.Join(parts, " and ")),
		Fix:     fix})
}

// shellArg quotes s for a POSIX shell when it needs quoting, so that a fix
// can be pasted as it is.
func shellArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

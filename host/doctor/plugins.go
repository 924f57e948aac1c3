package doctor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/safefile"
	"github.com/mcphost/mcphost/plugins"
)

// checkPlugins reports each configured plugin after loading: it loads, it
// describes itself, its file matches the pin, and the hooks it serves.
// statuses are plugins.Set.Status(), in the order of cfg.Plugins.
func (r *Report) checkPlugins(cfg *config.Config, statuses []plugins.Status) {
	for i, spec := range cfg.Plugins {
		var st plugins.Status
		if i < len(statuses) {
			st = statuses[i]
		}
		r.add(pluginCheck(spec, st))
	}
}

func pluginCheck(spec *config.Plugin, st plugins.Status) Check {
	c := Check{Kind: KindPlugin, Subject: spec.Name, LatencyMS: st.LoadDuration.Milliseconds()}
	if c.Subject == "" {
		c.Subject = spec.Path
	}
	if spec.Blocked != "" {
		c.Status, c.Message = Skip, "not loaded: "+spec.Blocked
		return c
	}
	if spec.Untrusted {
		c.Status = Skip
		c.Message = "not loaded: it comes from a project file that is not trusted (see trust)"
		return c
	}
	if spec.Err != nil {
		c.Status = Fail
		c.Message = "invalid entry: " + spec.Err.Error()
		c.Fix = fmt.Sprintf("fix the entry in %s; until then its stage fails every call (on_error decides: deny by default)", spec.Source)
		return c
	}
	if st.Err != nil {
		c.Status = Fail
		c.Message = "does not load: " + st.Err.Error()
		switch {
		case spec.SHA256 != "" && st.SHA256 != "" && !strings.EqualFold(spec.SHA256, st.SHA256):
			c.Message = fmt.Sprintf("the file does not match its pin: %s pins sha256 %s, the file's is %s", spec.Source, strings.ToLower(spec.SHA256), st.SHA256)
			c.Fix = fmt.Sprintf("if %s was changed on purpose, pin the new file: set sha256: %s in %s (or run: mcphost plugin add %s --name %s --replace); otherwise put the pinned file back",
				spec.Path, st.SHA256, spec.Source, shellArg(spec.Path), spec.Name)
		case st.SHA256 == "":
			c.Fix = fmt.Sprintf("fix path in %s, or put the file there", spec.Source)
		default:
			c.Fix = fmt.Sprintf("\"mcphost plugin inspect %s\" shows why; its stage fails every call until it loads (on_error decides: deny by default)", shellArg(spec.Path))
		}
		return c
	}
	c.Status = OK
	var parts []string
	if d := st.Description; d != nil {
		who := d.Name
		if d.Version != "" {
			who += " " + d.Version
		}
		parts = append(parts, fmt.Sprintf("%s (ABI v%d)", who, d.ABI))
	}
	parts = append(parts, "hooks "+plugins.HookList(st.Hooks))
	if spec.SHA256 != "" {
		parts = append(parts, "sha256 matches the pin")
	} else {
		parts = append(parts, "not pinned (sha256 "+st.SHA256+")")
	}
	if spec.Mode == config.ModeShadow {
		parts = append(parts, "shadow mode: decisions are logged, not applied")
	}
	c.Message = strings.Join(parts, "; ")
	return c
}

// Pin states of a configured plugin's file (see PinOf).
const (
	PinOK         = "ok"         // the file's sha256 is the pinned one
	PinMismatch   = "mismatch"   // it is not: the plugin does not load
	PinNone       = "none"       // the entry pins nothing
	PinMissing    = "missing"    // there is no file at the path
	PinUnreadable = "unreadable" // not a regular file, too large, no permission
)

// Pin is what PinOf found.
type Pin struct {
	State string
	// SHA256 is the file's hash ("" when it could not be read).
	SHA256 string
	// Err says why the file could not be read.
	Err error
}

// PinOf hashes the file of a configured plugin and compares it with the
// entry's pin, without loading anything: "mcphost plugin list" shows it.
// The read is bounded (config.MaxPluginBytes, regular files only).
func PinOf(p *config.Plugin) Pin {
	if p.Path == "" {
		return Pin{State: PinMissing, Err: errors.New("no path")}
	}
	data, err := safefile.ReadFile(p.Path, config.MaxPluginBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Pin{State: PinMissing, Err: err}
	case err != nil:
		return Pin{State: PinUnreadable, Err: err}
	}
	sum := sha256.Sum256(data)
	pin := Pin{SHA256: hex.EncodeToString(sum[:]), State: PinNone}
	switch {
	case p.SHA256 == "":
	case strings.EqualFold(p.SHA256, pin.SHA256):
		pin.State = PinOK
	default:
		pin.State = PinMismatch
	}
	return pin
}

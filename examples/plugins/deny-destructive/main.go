// Command deny-destructive is an mcphost policy plugin: it denies calls to
// tools that may destroy data unless the operator allows them by glob, asks
// for confirmation before tools that reach the outside world, and allows
// the rest. Build it with:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o deny-destructive.wasm .
package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/glob"
	"github.com/mcphost/mcphost/pdk/policy"
)

const version = "1.0.0"

func init() {
	pdk.Describe("deny-destructive", version)
	policy.Handle(decide)
}

// main never runs: the plugin is a WASI reactor, driven by its exports.
func main() {}

// decide applies three rules in order; the reason names the one that fired.
// Annotations are hints from the server, read with MCP's defaults: a tool
// that says nothing is destructive and open-world, so an unannotated tool
// is denied unless allowed.
func decide(req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	// The whole config is checked on every call, so that a mistake in it
	// shows on the first call whatever the tool.
	cfg := loadSettings()
	if cfg.err != nil {
		return nil, cfg.err
	}
	globs, confirm := cfg.globs, cfg.confirm

	full := req.Server + ":" + req.Tool
	// Plain concatenation, not fmt: in a guest under a timeout every
	// instruction counts, and fmt's reflection is many of them.
	who := req.Name + " (" + full + ")"

	// Rule 1: destructive tools are denied unless a glob allows them.
	allowedAs := ""
	if req.Annotations.Destructive() {
		matched := firstMatch(globs, req.Name, full)
		if matched == "" {
			return &abi.PolicyDecision{
				Decision: abi.Deny,
				Reason:   "destructive: " + who + " may modify or delete data and matches no glob of the allow config",
			}, nil
		}
		allowedAs = "destructive but allowed by " + strconv.Quote(matched)
	}

	// Rule 2: open-world tools ask first. The allow list does not exempt
	// them: it answers "may this tool destroy data", not "may it reach out".
	if req.Annotations.OpenWorld() {
		if confirm {
			reason := "open-world: " + who + " may reach systems outside this host; confirm the call"
			if allowedAs != "" {
				reason += " (it is " + allowedAs + ")"
			}
			return &abi.PolicyDecision{Decision: abi.Confirm, Reason: reason}, nil
		}
	}

	// Rule 3: the rest is allowed.
	if allowedAs != "" {
		return &abi.PolicyDecision{Decision: abi.Allow, Reason: "allow: " + who + " is " + allowedAs}, nil
	}
	return &abi.PolicyDecision{Decision: abi.Allow, Reason: "default: " + who + " is not destructive and needs no confirmation"}, nil
}

// settings is the plugin's config, parsed.
type settings struct {
	globs   []*glob.Pattern // allow, compiled once
	confirm bool            // confirm_open_world
	err     error
}

// parsed caches the settings with the raw values they came from: a plugin's
// config does not change during an instance's life (ABI.md), so this parses
// once per instance, while a native test that changes the Mock's config
// still gets fresh settings.
var parsed struct {
	allow, confirm string
	valid          bool
	s              settings
}

func loadSettings() settings {
	allow, _ := pdk.Config("allow")
	confirm := pdk.ConfigOr("confirm_open_world", "true")
	if !parsed.valid || parsed.allow != allow || parsed.confirm != confirm {
		parsed.allow, parsed.confirm, parsed.valid = allow, confirm, true
		parsed.s = parseSettings(allow, confirm)
	}
	return parsed.s
}

func parseSettings(allow, confirm string) settings {
	var s settings
	for _, text := range strings.Split(allow, ",") {
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		// The host's matcher, so a glob means here what it means in the
		// host's own policy ('*' crosses '/', '.', ':'). A broken glob is a
		// configuration error: failing the call (the host's on_error, deny
		// by default) is safer than ignoring it.
		g, err := glob.Compile(text)
		if err != nil {
			s.err = fmt.Errorf("config allow: bad glob %q: %v", text, err)
			return s
		}
		s.globs = append(s.globs, g)
	}
	switch confirm {
	case "true":
		s.confirm = true
	case "false":
	default:
		s.err = fmt.Errorf("config confirm_open_world: %q is neither true nor false", confirm)
	}
	return s
}

// firstMatch returns the first glob matching the public name or
// server:tool, or "".
func firstMatch(globs []*glob.Pattern, name, full string) string {
	for _, g := range globs {
		if g.Match(name) || g.Match(full) {
			return g.String()
		}
	}
	return ""
}

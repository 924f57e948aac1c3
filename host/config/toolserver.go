package config

import (
	"slices"
	"strings"

	"github.com/mcphost/mcphost/pdk/abi"
)

// ServerOfTool returns the server a tool name names, when the name alone
// says so: "server" of "server:tool", and of "mcp__server__tool" under the
// prefixed naming scheme (server ids cannot contain "__"). "" when it does
// not. The part is returned as written: it need not be a configured id.
func (c *Config) ServerOfTool(name string) string {
	if s, _, ok := strings.Cut(name, ":"); ok {
		return s
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok && c.Names.Scheme == SchemePrefixed {
		s, _, _ := strings.Cut(rest, "__")
		return s
	}
	return ""
}

// SurelyNamesServer reports whether the tool name surely names server srv
// (what ServerOfTool returned), so that a srv that is not configured means
// an unknown server without listing any tools: "srv:tool" always does;
// "mcp__srv__tool" does unless it could be the start of a long id (a name
// shortened to the length limit) or a plugin may give tools names of its
// own (map_names).
func (c *Config) SurelyNamesServer(name, srv string) bool {
	if strings.Contains(name, ":") {
		return true
	}
	for _, s := range c.Servers {
		if strings.HasPrefix(s.ID, srv) {
			return false
		}
	}
	for _, p := range c.Plugins {
		if !p.Untrusted && (len(p.Hooks) == 0 || slices.Contains(p.Hooks, abi.HookMapNames)) {
			return false
		}
	}
	return true
}

package config

import (
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

func TestServerOfTool(t *testing.T) {
	prefixed := &Config{Names: Names{Scheme: SchemePrefixed}}
	bare := &Config{Names: Names{Scheme: SchemeBare}}
	for _, c := range []struct {
		cfg  *Config
		name string
		want string
	}{
		{prefixed, "github:search", "github"},
		{bare, "github:search", "github"},
		{prefixed, "mcp__github__search", "github"},
		{prefixed, "mcp__github", "github"},
		{bare, "mcp__github__search", ""},
		{prefixed, "search", ""},
		{prefixed, ":search", ""},
		{prefixed, "mcp____x", ""},
	} {
		if got := c.cfg.ServerOfTool(c.name); got != c.want {
			t.Errorf("scheme %s, %q: %q, want %q", c.cfg.Names.Scheme, c.name, got, c.want)
		}
	}
}

func TestSurelyNamesServer(t *testing.T) {
	servers := []*Server{{ID: "github-enterprise-long-id"}, {ID: "fs"}}
	mapper := &Plugin{Name: "names", Hooks: []abi.Hook{abi.HookMapNames}}
	policy := &Plugin{Name: "policy", Hooks: []abi.Hook{abi.HookPolicy}}
	everyHook := &Plugin{Name: "all"}
	untrusted := &Plugin{Name: "names", Untrusted: true}
	for _, c := range []struct {
		what    string
		plugins []*Plugin
		name    string
		srv     string
		want    bool
	}{
		{"server:tool always", []*Plugin{mapper}, "nope:tool", "nope", true},
		{"an unknown prefix", nil, "mcp__nope__tool", "nope", true},
		{"the start of a long id", nil, "mcp__github-ent", "github-ent", false},
		{"a plugin may map names", []*Plugin{mapper}, "mcp__nope__tool", "nope", false},
		{"a plugin of every hook may map names", []*Plugin{everyHook}, "mcp__nope__tool", "nope", false},
		{"a policy plugin does not", []*Plugin{policy}, "mcp__nope__tool", "nope", true},
		{"an untrusted plugin does not run", []*Plugin{untrusted}, "mcp__nope__tool", "nope", true},
	} {
		cfg := &Config{Names: Names{Scheme: SchemePrefixed}, Servers: servers, Plugins: c.plugins}
		if got := cfg.SurelyNamesServer(c.name, c.srv); got != c.want {
			t.Errorf("%s: %q names %q surely: %v, want %v", c.what, c.name, c.srv, got, c.want)
		}
	}
}

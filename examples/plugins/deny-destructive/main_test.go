package main

import (
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
)

func ptr(b bool) *bool { return &b }

var (
	readOnly    = &abi.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	destructive = &abi.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}
	openWorld   = &abi.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)}
	safeLocal   = &abi.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
)

func TestDescribe(t *testing.T) {
	d, err := pdk.Description()
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "deny-destructive" || d.Version != version || len(d.Hooks) != 1 || d.Hooks[0] != abi.HookPolicy {
		t.Fatalf("Description() = %+v", d)
	}
}

func TestDecide(t *testing.T) {
	cases := []struct {
		name   string
		config map[string]string
		req    abi.PolicyRequest
		want   abi.Decision
		reason string // a fragment of the reason
	}{
		{"read-only", nil,
			abi.PolicyRequest{Server: "fs", Tool: "read", Name: "fs_read", Annotations: readOnly},
			abi.Allow, "default: fs_read (fs:read)"},
		{"not destructive, closed world", nil,
			abi.PolicyRequest{Server: "calc", Tool: "add", Name: "calc_add", Annotations: safeLocal},
			abi.Allow, "default:"},
		{"destructive", nil,
			abi.PolicyRequest{Server: "fs", Tool: "delete", Name: "fs_delete", Annotations: destructive},
			abi.Deny, "destructive: fs_delete (fs:delete)"},
		{"unannotated is destructive", nil,
			abi.PolicyRequest{Server: "fs", Tool: "write", Name: "fs_write"},
			abi.Deny, "destructive:"},
		{"destructive allowed by public name", map[string]string{"allow": "gh_*, fs_del*"},
			abi.PolicyRequest{Server: "fs", Tool: "delete", Name: "fs_delete", Annotations: destructive},
			abi.Allow, `allowed by "fs_del*"`},
		{"destructive allowed by server:tool", map[string]string{"allow": "fs:*"},
			abi.PolicyRequest{Server: "fs", Tool: "delete", Name: "renamed", Annotations: destructive},
			abi.Allow, `allowed by "fs:*"`},
		{"a glob's star crosses '/' as in the host", map[string]string{"allow": "fs:*"},
			abi.PolicyRequest{Server: "fs", Tool: "dir/delete", Name: "fs_dir_delete", Annotations: destructive},
			abi.Allow, `allowed by "fs:*"`},
		{"allow list for other tools", map[string]string{"allow": "gh:*,fs:read"},
			abi.PolicyRequest{Server: "fs", Tool: "delete", Name: "fs_delete", Annotations: destructive},
			abi.Deny, "matches no glob"},
		{"open-world", nil,
			abi.PolicyRequest{Server: "web", Tool: "fetch", Name: "web_fetch", Annotations: openWorld},
			abi.Confirm, "open-world: web_fetch (web:fetch)"},
		{"unannotated but allowed still confirms", map[string]string{"allow": "web_*"},
			abi.PolicyRequest{Server: "web", Tool: "post", Name: "web_post"},
			abi.Confirm, `destructive but allowed by "web_*"`},
		{"open-world without confirmation", map[string]string{"confirm_open_world": "false"},
			abi.PolicyRequest{Server: "web", Tool: "fetch", Name: "web_fetch", Annotations: openWorld},
			abi.Allow, "default:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Cleanup(pdk.UseMock(&pdk.Mock{Config: c.config}))
			var d abi.PolicyDecision
			if err := pdk.CallJSON(abi.HookPolicy, c.req, &d); err != nil {
				t.Fatal(err)
			}
			if d.Decision != c.want || !strings.Contains(d.Reason, c.reason) {
				t.Fatalf("decision %s %q, want %s with %q", d.Decision, d.Reason, c.want, c.reason)
			}
			if d.Arguments != nil {
				t.Fatalf("arguments rewritten: %v", d.Arguments)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	for _, config := range []map[string]string{
		{"allow": "fs_[", "confirm_open_world": "true"},
		{"confirm_open_world": "yes"},
	} {
		t.Cleanup(pdk.UseMock(&pdk.Mock{Config: config}))
		req := abi.PolicyRequest{Server: "fs", Tool: "x", Name: "fs_x"} // destructive, open-world
		var d abi.PolicyDecision
		if err := pdk.CallJSON(abi.HookPolicy, req, &d); err == nil || !strings.Contains(err.Error(), "config ") {
			t.Errorf("config %v: got %+v, %v; want a config error", config, d, err)
		}
	}
}

package chain

import (
	"reflect"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// A plugin goes into the chain with the hooks, servers, mode and on_error
// of its spec.
func TestStage(t *testing.T) {
	p := open(t, "all-hooks", func(s *plugins.Spec) {
		s.Hooks = []abi.Hook{abi.HookPolicy, abi.HookFilterTools}
		s.Servers = []string{"git*"}
		s.Mode = plugins.ModeShadow
		s.OnError = plugins.OnErrorAllow
	})
	sc := Stage(p)
	want := host.StageConfig{Stage: p, Hooks: []abi.Hook{abi.HookFilterTools, abi.HookPolicy}, Servers: []string{"git*"}, Mode: host.ModeShadow, OnError: host.OnErrorAllow}
	if !reflect.DeepEqual(sc, want) {
		t.Fatalf("got %+v\nwant %+v", sc, want)
	}
	// Only the configured hooks are callable.
	_, err := p.Auth(ctx(t), &abi.AuthRequest{})
	wantError(t, err, plugins.KindLoad, "not loaded for this hook")
}

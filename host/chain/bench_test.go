package chain_test

// What plugins add to a tool call: the same Go stdio test server called
// through Host.CallTool with no stages, with a policy plugin, with two Rust
// transform plugins, and with all three.
//
//	scripts/build-plugins.sh /tmp/p   # the Rust examples
//	MCPHOST_BUILT_PLUGINS=/tmp/p go test -run='^$' -bench=Pipeline -benchtime=2000x -count=5 ./host/chain/
//
// The policy plugin is the allow-all .wat fixture (a minimal guest: the
// cost measured is the runtime's); the transforms are the redact-secrets
// and truncate examples, which need MCPHOST_BUILT_PLUGINS, as does
// read-only+redact-secrets (a real policy and a real transform).

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/chain"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

func BenchmarkPipeline(b *testing.B) {
	built := os.Getenv("MCPHOST_BUILT_PLUGINS")
	policy := &config.Plugin{Name: "allow-all", Path: filepath.Join("..", "..", "testdata", "plugins", "allow-all.wasm"), Hooks: []abi.Hook{abi.HookPolicy}, Limits: config.DefaultPluginLimits()}
	transforms := func(b *testing.B) []*config.Plugin {
		if built == "" {
			b.Skip("set MCPHOST_BUILT_PLUGINS to a directory built by scripts/build-plugins.sh")
		}
		var out []*config.Plugin
		for _, n := range []string{"redact-secrets", "truncate"} {
			out = append(out, &config.Plugin{Name: n, Path: filepath.Join(built, n+".wasm"), Hooks: []abi.Hook{abi.HookTransformResult}, Limits: config.DefaultPluginLimits()})
		}
		return out
	}
	// The examples a deployment would run: the Rust read-only policy
	// (allowing the test server's tools by glob) and redact-secrets.
	examples := func(b *testing.B) []*config.Plugin {
		if built == "" {
			b.Skip("set MCPHOST_BUILT_PLUGINS to a directory built by scripts/build-plugins.sh")
		}
		return []*config.Plugin{
			{Name: "read-only", Path: filepath.Join(built, "read-only.wasm"), Hooks: []abi.Hook{abi.HookPolicy}, Limits: config.DefaultPluginLimits(), Config: map[string]string{"allow": "bench:*"}},
			{Name: "redact-secrets", Path: filepath.Join(built, "redact-secrets.wasm"), Hooks: []abi.Hook{abi.HookTransformResult}, Limits: config.DefaultPluginLimits()},
		}
	}
	for _, bc := range []struct {
		name    string
		plugins func(*testing.B) []*config.Plugin
	}{
		{"none", func(*testing.B) []*config.Plugin { return nil }},
		{"policy", func(*testing.B) []*config.Plugin { return []*config.Plugin{policy} }},
		{"read-only+redact-secrets", examples},
		{"rust-transforms", transforms},
		{"policy+rust-transforms", func(b *testing.B) []*config.Plugin { return append([]*config.Plugin{policy}, transforms(b)...) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := &config.Config{
				Servers: []*config.Server{{ID: "bench", Transport: config.TransportStdio, Command: hosttest.BuildTestServer(b), Enabled: true}},
				Plugins: bc.plugins(b),
			}
			ctx := context.Background()
			pl, err := chain.New(ctx, cfg, chain.Options{Plugins: plugins.Options{CacheDir: b.TempDir()}})
			if err != nil {
				b.Fatal(err)
			}
			defer pl.Close(ctx)
			if err := pl.Set.Err(); err != nil {
				b.Fatal(err)
			}
			h, err := host.New(cfg, pl.HostOptions()...)
			if err != nil {
				b.Fatal(err)
			}
			defer h.Close(ctx)
			if err := h.Start(ctx); err != nil {
				b.Fatal(err)
			}
			args := map[string]any{"text": "hello, here is a normal tool result"}
			call := func() {
				res, err := h.CallTool(ctx, "bench:echo", args)
				if err != nil || res.IsError {
					b.Fatalf("call: %v %+v", err, res)
				}
			}
			for range 20 {
				call() // warm the pools
			}
			b.ResetTimer()
			for range b.N {
				call()
			}
		})
	}
}

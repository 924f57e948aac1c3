package host_test

// What the host's own pipeline costs per call, apart from any transport's
// wake-ups: the in-process echo server (hosttest.NewEchoServer) called
// through Host.CallTool with no stages, with the built-in glob policy, and
// with the policy and the built-in truncation (a result under its limit,
// as most are).
//
//	go test -run='^$' -bench=CallToolPipeline -benchtime=20000x -count=5 ./host/

import (
	"context"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
)

func BenchmarkCallToolPipeline(b *testing.B) {
	policy := host.StageConfig{Stage: builtin.GlobPolicy{Allow: []string{"*"}, Deny: []string{"*delete*"}}}
	truncate := host.StageConfig{Stage: builtin.Truncate{MaxBytes: 100 << 10, Store: builtin.NewResultStore(0)}}
	for _, bc := range []struct {
		name   string
		stages []host.StageConfig
	}{
		{"none", nil},
		{"policy", []host.StageConfig{policy}},
		{"policy+truncate", []host.StageConfig{policy, truncate}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := &config.Config{Servers: []*config.Server{{ID: "bench", Transport: config.TransportInProcess, Enabled: true}}}
			h, err := host.New(cfg, host.WithInProcessServer("bench", hosttest.NewEchoServer()), host.WithStages(bc.stages...))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			defer h.Close(ctx)
			if err := h.Start(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				res, err := h.CallTool(ctx, "bench:echo", map[string]any{"text": "hello"})
				if err := checkEcho(res, err); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

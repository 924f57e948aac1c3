package host

// What tool pinning costs a listing: one server of 1,000 tools (each with
// a small object schema, as real servers send) re-listed as after
// list_changed (tools/list over an in-process session, the checks, the
// filters, the registry), without pinning and with a pin store that pins
// every tool. Calls are not measured: pinning adds nothing to them but a
// field read (the pin state is worked out per listing).
//
//	go test -run='^$' -bench=Listing1000 -count=3 ./host/

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/config"
)

func BenchmarkListing1000Tools(b *testing.B) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	for i := range 1000 {
		schema := json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"path":{"type":"string","description":"The file %d reads."},"limit":{"type":"integer"}},"required":["path"]}`, i))
		srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool_%04d", i), Description: fmt.Sprintf("Reads file number %d and returns its first lines.", i), InputSchema: schema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	start := func(b *testing.B, opts ...Option) (*Host, *server) {
		h, err := New(&config.Config{}, append([]Option{WithInProcessServer("s", srv)}, opts...)...)
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := h.Start(ctx); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close(context.Background()) })
		if n := len(h.Tools()); n != 1000 {
			b.Fatalf("%d tools offered", n)
		}
		return h, h.byID["s"]
	}
	relist := func(b *testing.B, opts ...Option) {
		h, s := start(b, opts...)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			s.refreshList("tools")
		}
		b.StopTimer()
		if n := len(h.Tools()); n != 1000 {
			b.Fatalf("%d tools offered after the re-listings", n)
		}
	}
	b.Run("unpinned", func(b *testing.B) { relist(b) })
	b.Run("pinned", func(b *testing.B) { relist(b, WithPinStore(filepath.Join(b.TempDir(), "pins.json"))) })
	// Pinning's own part of a listing, alone: the fingerprints and the
	// verdict, against a store that pins every tool.
	b.Run("pinning-only", func(b *testing.B) {
		_, s := start(b, WithPinStore(filepath.Join(b.TempDir(), "pins.json")))
		s.mu.Lock()
		tools := s.tools
		s.mu.Unlock()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			v := s.evaluatePins(fingerprintTools(tools))
			if len(v.hidden) != 0 || len(v.states) != 1000 {
				b.Fatalf("verdict: %d states, %d hidden", len(v.states), len(v.hidden))
			}
		}
	})
}

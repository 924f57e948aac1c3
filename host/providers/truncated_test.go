package providers_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/providers"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// A result truncated to results.max_bytes stays within it in every
// provider's shape. Gemini's is built from structuredContent when there is
// one: it was handed the whole file.
func TestTruncatedResultStaysBoundedInEveryFormat(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	const maxBytes = 300
	file := strings.Repeat("<p>a line of the page</p>\n", 48<<10/26)
	h, err := host.New(&config.Config{}, host.WithInProcessServer("fs", hosttest.NewFileServer(file)),
		host.WithStages(host.StageConfig{Stage: builtin.Truncate{MaxBytes: maxBytes, Store: builtin.NewResultStore(0)}}))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, ccancel := context.WithTimeout(context.Background(), bound)
		defer ccancel()
		h.Close(cctx)
	})
	res, err := h.CallTool(ctx, "fs:read", nil)
	if err != nil {
		t.Fatal(err)
	}
	// What a provider wraps around the result: ids, names, field names.
	const wrapping = 256
	for _, f := range providers.Formats() {
		ts, err := providers.Convert(f, h.Tools(), nil)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := ts.ProviderName("mcp__fs__read")
		out, err := json.Marshal(ts.Result(&providers.Call{ID: "c1", Name: name, Tool: "mcp__fs__read"}, res, nil))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > maxBytes+builtin.TruncateEnvelopeBytes+wrapping {
			t.Errorf("%s: %d bytes for results.max_bytes %d: %.300s", f, len(out), maxBytes, out)
		}
		if !strings.Contains(string(out), "truncated by mcphost") {
			t.Errorf("%s: the truncation marker is lost: %.300s", f, out)
		}
	}
}

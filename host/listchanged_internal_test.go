package host

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/config"
)

// A flood of list_changed notifications while a refresh is under way costs
// one worker goroutine, not one each, and ends in one more refresh.
func TestListChangedFloodIsCoalesced(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	h, err := New(&config.Config{}, WithInProcessServer("s", srv))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	s := h.byID["s"]

	// Hold the refresh lock: the worker blocks in its first refresh.
	s.refreshMu.Lock()
	before := runtime.NumGoroutine()
	for i := 0; i < 1000; i++ {
		s.onListChanged("tools")
	}
	grew := runtime.NumGoroutine() - before
	s.refreshMu.Unlock()
	if grew > 5 {
		t.Fatalf("1000 notifications started %d goroutines; want one worker", grew)
	}
	// The worker drains what is pending and ends.
	deadline := time.Now().Add(time.Minute)
	for {
		s.changes.mu.Lock()
		done := !s.changes.running && len(s.changes.pending) == 0
		s.changes.mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the list_changed worker never finished")
		}
		runtime.Gosched()
	}
}

package host

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/testenv"
)

// A flood of list_changed notifications while a refresh is under way costs
// one worker goroutine, not one each, and ends in one more refresh.
func TestListChangedFloodIsCoalesced(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	s := startInProcess(t, srv)

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

// A re-fetch that the server's closing cuts off is not a failure to warn
// about: the list is fetched again when the server is back.
func TestListRefetchCutByCloseIsQuiet(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	entered := make(chan struct{})
	var block atomic.Bool
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "prompts/list" && block.Load() {
				close(entered)
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return next(ctx, method, req)
		}
	})
	var logs testenv.Buffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &logs, Level: hclog.Warn})
	s := startInProcess(t, srv, WithLogger(logger))
	block.Store(true)
	done := make(chan struct{})
	go func() { s.refreshList("prompts"); close(done) }()
	<-entered
	s.stopLife() // as Close does first
	<-done
	if strings.Contains(logs.String(), "re-fetching list") {
		t.Fatalf("a re-fetch cut off by the close was warned about:\n%s", logs.String())
	}
}

// startInProcess starts a host of the one in-process server srv (id "s"),
// closed when the test ends, and returns that server.
func startInProcess(t *testing.T, srv *mcp.Server, opts ...Option) *server {
	t.Helper()
	h, err := New(&config.Config{}, append([]Option{WithInProcessServer("s", srv)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h.byID["s"]
}

package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var elicitCaps = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}

// With calls of two callers waiting on one backend, a backend's request
// could be either's: it is declined rather than shown to the wrong one.
func TestRelayDeclinesAmbiguousRequests(t *testing.T) {
	r := NewRelay()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	block := func(ctx context.Context) (*mcp.CallToolResult, error) { <-ctx.Done(); return nil, ctx.Err() }
	a := r.start(ctx, "b", "alice\x00s1", elicitCaps, block)
	defer r.finish(a)
	if r.latest("b") != a {
		t.Fatal("one caller's call: the request goes to it")
	}
	bob := r.start(ctx, "b", "bob\x00s2", elicitCaps, block)
	defer r.finish(bob)
	res, err := r.elicit(ctx, "b", &mcp.ElicitParams{Message: "alice's secret question"})
	if err != nil || res.Action != "decline" {
		t.Fatalf("ambiguous elicitation: %+v %v; want a decline", res, err)
	}
}

// A call whose client never answers its input requests is forgotten when
// its time is up: nothing stays pending, shutdown does not wait for it.
func TestRelayForgetsAbandonedCalls(t *testing.T) {
	r := NewRelay()
	r.wait = 50 * time.Millisecond
	ctx := context.Background()
	p := r.start(ctx, "b", "alice\x00s1", elicitCaps, func(ctx context.Context) (*mcp.CallToolResult, error) {
		_, err := r.elicit(ctx, "b", &mcp.ElicitParams{Message: "still there?"})
		return nil, err
	})
	res, err := r.next(ctx, p)
	if err != nil || len(res.InputRequests) != 1 {
		t.Fatalf("first round: %+v %v", res, err)
	}
	// The client goes away without answering.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if !r.waitIdle(wctx) {
		t.Fatal("the abandoned call is still pending")
	}
	if r.latest("b") != nil {
		t.Fatal("an ended call still takes backends' requests")
	}
}

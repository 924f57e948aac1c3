package gateway_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/gateway"
)

var testTokens = map[string]string{"alice": "alice-token-0123456789", "bob": "bob-token-0123456789xx", "carol": "carol-token-0123456789"}

// serveHTTP serves f's gateway over loopback HTTP with static tokens for
// alice, bob and carol; it returns the base URL.
func serveHTTP(t *testing.T, f *fixture, o gateway.HTTPOptions) string {
	t.Helper()
	o.Verifier = gateway.StaticTokens(testTokens)
	handler, err := f.g.HTTPHandler(o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		closeSessions(t, f)
	})
	return "http://" + ln.Addr().String()
}

func clientOf(who string) *http.Client {
	return &http.Client{Transport: bearerRT(testTokens[who])}
}

func openAs(t *testing.T, who, base string) *rawSession {
	t.Helper()
	s, err := openRawSession(clientOf(who), base+"/mcp")
	if err != nil {
		t.Fatalf("%s: open a session: %v", who, err)
	}
	return s
}

// Past the bound of sessions per caller, a new session closes the caller's
// least recently used idle one (its client gets 404); other callers'
// sessions are untouched, and the caller's count stays at the bound.
func TestSessionsBoundedPerCaller(t *testing.T) {
	f := start(t, nil, nil)
	base := serveHTTP(t, f, gateway.HTTPOptions{MaxSessionsPerCaller: 3})
	bob := openAs(t, "bob", base)
	var alice []*rawSession
	for range 4 {
		alice = append(alice, openAs(t, "alice", base))
	}
	if err := alice[0].call("mcp__b__echo", "x"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("alice's oldest session after a fourth: %v; want 404", err)
	}
	for i, s := range append(alice[1:], bob) {
		if err := s.call("mcp__b__echo", "x"); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	// The fixture's own client, bob's and alice's three.
	waitFor(t, "5 sessions", func() bool { return countSessions(f) == 5 })
	// The evicted client initialises again; alice's least recently used
	// (alice[1]) makes room.
	again := openAs(t, "alice", base)
	if err := again.call("mcp__b__echo", "x"); err != nil {
		t.Fatal(err)
	}
	if err := alice[1].call("mcp__b__echo", "x"); err == nil {
		t.Fatal("alice's least recently used session survived")
	}
	if err := bob.call("mcp__b__echo", "x"); err != nil {
		t.Fatalf("bob: %v", err)
	}
}

func countSessions(f *fixture) int {
	n := 0
	for range f.g.Server().Sessions() {
		n++
	}
	return n
}

// Past the total bound, the least recently used idle session of anyone
// goes.
func TestSessionsBoundedInTotal(t *testing.T) {
	f := start(t, nil, nil)
	base := serveHTTP(t, f, gateway.HTTPOptions{MaxSessions: 3})
	a1, a2, b1 := openAs(t, "alice", base), openAs(t, "alice", base), openAs(t, "bob", base)
	c1 := openAs(t, "carol", base)
	if err := a1.call("mcp__b__echo", "x"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("the oldest session: %v; want 404", err)
	}
	for _, s := range []*rawSession{a2, b1, c1} {
		if err := s.call("mcp__b__echo", "x"); err != nil {
			t.Fatal(err)
		}
	}
}

// A session with a call in flight is not idle: when all of a caller's are
// busy, a new one is refused (429), not made by closing a busy one.
func TestBusySessionsAreNotEvicted(t *testing.T) {
	f := start(t, nil, nil)
	started, release := make(chan struct{}), make(chan struct{})
	mcp.AddTool(f.backend, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		close(started)
		<-release
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil, nil
	})
	waitFor(t, "the new tool", func() bool { _, ok := f.h.Resolve("mcp__b__hold"); return ok })
	f.g.Sync(ctxFor(t))
	base := serveHTTP(t, f, gateway.HTTPOptions{MaxSessionsPerCaller: 1})
	busy := openAs(t, "alice", base)
	done := make(chan error, 1)
	go func() { done <- busy.call("mcp__b__hold", "held") }()
	select {
	case <-started:
	case err := <-done:
		t.Fatalf("the held call ended: %v", err)
	}
	if _, err := openRawSession(clientOf("alice"), base+"/mcp"); err == nil || !strings.Contains(err.Error(), "429") {
		t.Fatalf("a new session while the only one is busy: %v; want 429", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("the busy session's call: %v", err)
	}
}

// A session no request used for the idle timeout is closed.
func TestIdleSessionIsClosed(t *testing.T) {
	f := start(t, nil, nil)
	base := serveHTTP(t, f, gateway.HTTPOptions{SessionIdleTimeout: 10 * time.Millisecond})
	// The initialize alone: a second request (notifications/initialized)
	// could come after the short idle timeout, on a slow machine.
	s := &rawSession{hc: clientOf("alice"), url: base + "/mcp"}
	init, err := s.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + benchProtocol +
		`","capabilities":{},"clientInfo":{"name":"idle","version":"1"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if s.id = init.Header.Get("Mcp-Session-Id"); s.id == "" {
		t.Fatal("initialize: no session id")
	}
	waitFor(t, "the idle session's end", func() bool {
		for ss := range f.g.Server().Sessions() {
			if ss.ID() == s.id {
				return false
			}
		}
		return true
	})
	if err := s.call("mcp__b__echo", "x"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("a call in the idle session closed: %v; want 404", err)
	}
}

// /sse sessions count in the same bounds: an idle one is the least
// recently used, and goes; its stream ends and its endpoint answers 404.
func TestSSESessionsAreBounded(t *testing.T) {
	f := start(t, nil, nil)
	base := serveHTTP(t, f, gateway.HTTPOptions{MaxSessionsPerCaller: 2})
	stream, endpoint := openSSE(t, base, "alice")
	openAs(t, "alice", base)
	openAs(t, "alice", base)
	if _, err := stream.ReadString('\x00'); !errors.Is(err, io.EOF) {
		t.Fatalf("the evicted /sse stream: %v; want its end", err)
	}
	if code := postSSE(t, base+endpoint, "alice", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); code != http.StatusNotFound {
		t.Fatalf("a post to the evicted /sse session: %d", code)
	}
}

// openSSE opens a /sse stream as who and returns it with its endpoint.
func openSSE(t *testing.T, base, who string) (*bufio.Reader, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctxFor(t), http.MethodGet, base+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := clientOf(who).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /sse: %s", resp.Status)
	}
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("no endpoint event: %v", err)
		}
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			return r, data
		}
	}
}

func postSSE(t *testing.T, url, who, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := clientOf(who).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

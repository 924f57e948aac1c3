package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/gateway"
)

// closeSessions closes the gateway's sessions as its shutdown does, and
// fails the test, naming the sessions left open, when that does not end
// within the test's bound, instead of hanging the test run.
func closeSessions(t *testing.T, f *fixture) {
	t.Helper()
	closed := make(chan struct{})
	go func() { f.g.CloseSessions(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(bound):
		var open []string
		for ss := range f.g.Server().Sessions() {
			open = append(open, describeSession(ss))
		}
		t.Errorf("closing the gateway's sessions did not end within %s; open: %s (a request in flight never ended)", bound, strings.Join(open, ", "))
	}
}

func describeSession(ss *mcp.ServerSession) string {
	name := "?"
	if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
		name = ip.ClientInfo.Name
	}
	id := ss.ID()
	if id == "" {
		id = "no ID (in memory)"
	}
	return fmt.Sprintf("%s (client %q)", id, name)
}

// A 2026-07-28 client opens subscriptions/listen as it connects, and the
// server parks it until the client cancels it. go-sdk's ServerSession.Close
// cancels the listens it has started, and then waits for every request in
// flight; a listen it had accepted but not yet started was missed, and the
// close waited for ever on a client that was still there (a test's cleanup
// hung in this way for 13 minutes).
func TestClosingASessionEndsAListenNotYetStarted(t *testing.T) {
	f := start(t, nil, nil)
	// Only the session under test is closed: the fixture's goes first.
	f.client.Close()
	waitFor(t, "the fixture's session to end", func() bool { return countSessions(f) == 0 })
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(release) })
	f.g.Server().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/roots/list_changed" {
				close(held)
				<-release
			}
			return next(ctx, method, req)
		}
	})
	ct, st := mcp.NewInMemoryTransports()
	behind := &listenBehind{Transport: st, accepted: make(chan struct{})}
	if _, err := f.g.Server().Connect(ctxFor(t), behind, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "listening-client"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {},
	}).Connect(ctxFor(t), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	<-held
	<-behind.accepted
	closed := make(chan struct{})
	go func() { f.g.CloseSessions(); close(closed) }()
	// Nothing the client can see tells that the close has begun (the
	// server answers nothing while it closes): the closing goroutine's
	// stack does.
	waitFor(t, "the session's close to begin", func() bool {
		buf := make([]byte, 1<<20)
		return bytes.Contains(buf[:runtime.Stack(buf, true)], []byte("jsonrpc2.(*Connection).Close("))
	})
	once.Do(func() { close(release) })
	select {
	case <-closed:
	case <-time.After(bound):
		t.Fatalf("closing the sessions did not end within %s: the listen accepted before the close holds it", bound)
	}
}

// listenBehind is the server's end of an in-memory connection that gives
// the server a notification before the client's subscriptions/listen: with
// the notification held (notifications are handled in order), the listen
// is accepted but not started.
type listenBehind struct {
	mcp.Transport
	accepted chan struct{} // closed once the listen was read
}

func (l *listenBehind) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := l.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &listenBehindConn{Connection: c, accepted: l.accepted}, nil
}

type listenBehindConn struct {
	mcp.Connection
	held     jsonrpc.Message // the listen, given on the next Read
	gave     bool
	accepted chan struct{}
}

// Read is called by one goroutine of the session, which takes each message
// in before it reads the next.
func (c *listenBehindConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if c.held != nil {
		msg := c.held
		c.held, c.gave = nil, true
		return msg, nil
	}
	if c.gave {
		c.gave = false
		close(c.accepted)
	}
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "subscriptions/listen" {
		c.held = msg
		return &jsonrpc.Request{Method: "notifications/roots/list_changed", Params: json.RawMessage(`{}`)}, nil
	}
	return msg, err
}

// A client older than 2026-07-28 is asked a backend's question in the
// middle of a call by go-sdk itself, under the call's context alone; a
// client that went away without answering held that request, and the
// session's close (shutdown, eviction, idle timeout) with it, for ever.
func TestClosingASessionEndsAQuestionToAGoneClient(t *testing.T) {
	f := start(t, nil, nil)
	base := serveHTTP(t, f, gateway.HTTPOptions{})
	s := &rawSession{hc: clientOf("alice"), url: base + "/mcp"}
	init, err := s.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + benchProtocol +
		`","capabilities":{"elicitation":{}},"clientInfo":{"name":"goes-away","version":"1"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	s.id = init.Header.Get("Mcp-Session-Id")
	if _, err := s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mcp__b__choose","arguments":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Mcp-Protocol-Version", benchProtocol)
	resp, err := s.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(resp.Body)
	for !strings.Contains(lines.Text(), `"method":"elicitation/create"`) {
		if !lines.Scan() {
			t.Fatalf("the call's stream ended without the backend's question: %v", lines.Err())
		}
	}
	resp.Body.Close() // the client goes away without answering
	closeSessions(t, f)
}

// A question to a client that never answers, in a session nobody closes,
// ends when the relay's wait for answers is up, with an error that says so:
// the request go-sdk sends on the gateway's behalf has that deadline too.
func TestAQuestionToAClientThatNeverAnswersEnds(t *testing.T) {
	quit := make(chan struct{})
	f := startClient(t, "2025-11-25", "2025-11-25", nil, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		select {
		case <-ctx.Done():
		case <-quit:
		}
		return nil, errors.New("no answer")
	}}, gateway.Options{})
	defer close(quit)
	gateway.SetAnswerWait(f.relay, 100*time.Millisecond)
	ctx := ctxFor(t)
	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__choose"})
	if ctx.Err() != nil {
		t.Fatalf("the call still waited for the client's answer at the test's bound (%s): %v", bound, err)
	}
	if err == nil || !strings.Contains(err.Error(), "did not answer elicitation/create") {
		t.Fatalf("choose, never answered: %v %v; want the gateway's error that the client did not answer", res, err)
	}
}

// The stdio gateway stops when its context ends, whatever its client's
// requests wait for (here, the client's answer to a backend's question,
// which never comes).
func TestRunStopsWithAQuestionUnanswered(t *testing.T) {
	f := start(t, nil, nil)
	asked, quit := make(chan struct{}), make(chan struct{})
	defer close(quit)
	ct, st := mcp.NewInMemoryTransports()
	ctx, stop := context.WithCancel(ctxFor(t))
	defer stop()
	ran := make(chan error, 1)
	go func() { ran <- f.g.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-client"}, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		close(asked)
		select {
		case <-ctx.Done():
		case <-quit:
		}
		return nil, errors.New("no answer")
	}}).Connect(ctxFor(t), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	// The client waits as long as it takes: only the gateway can end it.
	callCtx, cancelCall := context.WithCancel(context.Background())
	defer cancelCall()
	go cs.CallTool(callCtx, &mcp.CallToolParams{Name: "mcp__b__choose"})
	<-asked
	stop()
	select {
	case err := <-ran:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Run: %v; want it cancelled", err)
		}
	case <-time.After(bound):
		t.Fatalf("Run did not return within %s of its context's end: the unanswered question holds the session", bound)
	}
}

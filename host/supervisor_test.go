package host_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
)

// dropSessions ends every session of srv from the server side, as a crash
// or a network failure would.
func dropSessions(srv *mcp.Server) int {
	n := 0
	for ss := range srv.Sessions() {
		_ = ss.Close()
		n++
	}
	return n
}

// countConnects counts the sessions srv was asked to initialize.
func countConnects(srv *mcp.Server) *atomic.Int32 {
	var n atomic.Int32
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" || method == "server/discover" {
				n.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	return &n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func fastReconnect(id string) *config.Server {
	return &config.Server{ID: id, Enabled: true, Reconnect: config.Reconnect{InitialDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond}}
}

// A lost session is reconnected; the server's tools keep their names, and
// a call made while it reconnects waits for it.
func TestReconnectAfterSessionLoss(t *testing.T) {
	testenv.CheckGoroutines(t)
	var ev eventLog
	alpha := newToolServer("alpha", "echo", "search")
	connects := countConnects(alpha)
	cfg := &config.Config{Servers: []*config.Server{fastReconnect("alpha")}}
	h := startHost(t, cfg, host.WithInProcessServer("alpha", alpha), host.WithInProcessServer("beta", newToolServer("beta", "echo")), host.WithEvents(ev.add))
	names := toolNames(h)

	if n := dropSessions(alpha); n != 1 {
		t.Fatalf("dropped %d sessions", n)
	}
	res, err := h.CallTool(testContext(t), "alpha:echo", map[string]any{"text": "after"})
	if err != nil || hosttest.Text(res) != "echo:after" {
		t.Fatalf("call after the loss: %v %+v", err, res)
	}
	waitState(t, h, "alpha", host.StateReady)
	if got := toolNames(h); !slices.Equal(got, names) {
		t.Errorf("names changed across the reconnect: %v, then %v", names, got)
	}
	if n := connects.Load(); n != 2 {
		t.Errorf("%d connects, want 2", n)
	}
	if st := ev.states("alpha"); !containsInOrder(st, host.StateConnecting, host.StateReady, host.StateReconnecting, host.StateReady) {
		t.Errorf("states %v", st)
	}
	if st := ev.states("beta"); slices.Contains(st, host.StateReconnecting) {
		t.Errorf("beta was disturbed: %v", st)
	}
}

func toolNames(h *host.Host) []string {
	var out []string
	for _, tool := range h.Tools() {
		out = append(out, tool.Name+"="+tool.Display)
	}
	return out
}

func containsInOrder(seq []host.State, want ...host.State) bool {
	i := 0
	for _, s := range seq {
		if i < len(want) && s == want[i] {
			i++
		}
	}
	return i == len(want)
}

// A call waits for a reconnecting server up to its own deadline, then fails
// saying so.
func TestCallToReconnectingServerWaitsUpToItsDeadline(t *testing.T) {
	srv := newToolServer("alpha", "echo")
	var refuse atomic.Bool
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if refuse.Load() && (method == "initialize" || method == "server/discover") {
				return nil, errors.New("not now")
			}
			return next(ctx, method, req)
		}
	})
	h := startHost(t, &config.Config{Servers: []*config.Server{fastReconnect("alpha")}}, host.WithInProcessServer("alpha", srv))
	refuse.Store(true)
	dropSessions(srv)
	_, err := h.CallTool(testContext(t), "alpha:echo", nil, host.WithTimeout(300*time.Millisecond))
	if err == nil || !strings.Contains(err.Error(), `server "alpha" is reconnecting (attempt`) || !strings.Contains(err.Error(), "last error") ||
		!errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	refuse.Store(false)
	if _, err := h.CallTool(testContext(t), "alpha:echo", nil); err != nil {
		t.Fatalf("after the server came back: %v", err)
	}
}

func TestReconnectRequest(t *testing.T) {
	srv := newToolServer("alpha", "echo")
	connects := countConnects(srv)
	h := startHost(t, nil, host.WithInProcessServer("alpha", srv))
	if err := h.Reconnect("alpha"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a second connect", func() bool { return connects.Load() == 2 })
	waitState(t, h, "alpha", host.StateReady)
	if _, err := h.CallTool(testContext(t), "alpha:echo", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.Reconnect("nope"); !errors.Is(err, host.ErrUnknownServer) {
		t.Errorf("unknown server: %v", err)
	}
}

func TestSetEnabled(t *testing.T) {
	testenv.CheckGoroutines(t)
	h := startHost(t, nil, host.WithInProcessServer("alpha", newToolServer("alpha", "echo")), host.WithInProcessServer("beta", newToolServer("beta", "echo")))
	names := toolNames(h)
	ctx := testContext(t)
	if err := h.SetEnabled(ctx, "alpha", false); err != nil {
		t.Fatal(err)
	}
	if st := statusOf(t, h, "alpha"); st.State != host.StateDisabled || st.Enabled {
		t.Fatalf("alpha: %+v", st)
	}
	if _, ok := h.Resolve("alpha:echo"); ok {
		t.Error("a disabled server's tool is listed")
	}
	if _, err := h.CallTool(ctx, "alpha:echo", nil); err == nil {
		t.Error("a disabled server's tool was called")
	}
	if err := h.SetEnabled(ctx, "alpha", true); err != nil {
		t.Fatal(err)
	}
	waitState(t, h, "alpha", host.StateReady)
	if got := toolNames(h); !slices.Equal(got, names) {
		t.Errorf("names %v, then %v", names, got)
	}
	if _, err := h.CallTool(ctx, "alpha:echo", nil); err != nil {
		t.Fatal(err)
	}
}

// SetServers touches only what changed: an unchanged server keeps its
// session, a changed one reconnects, a removed one goes, an added one comes.
func TestSetServers(t *testing.T) {
	testenv.CheckGoroutines(t)
	keep, change, drop := testServer(t, "keep"), testServer(t, "change"), testServer(t, "drop")
	h := startProcHost(t, []*config.Server{keep, change, drop})
	pid := func(id string) string {
		t.Helper()
		res, err := h.CallTool(testContext(t), id+":pid", nil)
		if err != nil {
			t.Fatalf("pid of %s: %v", id, err)
		}
		return hosttest.Text(res)
	}
	keepPID, changePID := pid("keep"), pid("change")

	changed := testServer(t, "change")
	changed.Env = map[string]string{"MCPHOST_TEST_MARK": "new"}
	bad := &config.Server{ID: "bad", Transport: config.TransportStdio, Command: "x", Enabled: true, Err: errors.New("config: bad entry")}
	diff, err := h.SetServers(testContext(t), &config.Config{Servers: []*config.Server{testServer(t, "keep"), changed, testServer(t, "add"), bad}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(diff.Added, []string{"add", "bad"}) || !slices.Equal(diff.Removed, []string{"drop"}) || !slices.Equal(diff.Changed, []string{"change"}) {
		t.Fatalf("diff %+v", diff)
	}
	if diff.Errors["bad"] == nil || len(diff.Errors) != 1 {
		t.Errorf("errors %v", diff.Errors)
	}
	waitState(t, h, "add", host.StateReady)
	waitState(t, h, "change", host.StateReady)
	if got := pid("keep"); got != keepPID {
		t.Errorf("the unchanged server was restarted (%s, then %s)", keepPID, got)
	}
	if got := pid("change"); got == changePID {
		t.Error("the changed server was not restarted")
	}
	res, err := h.CallTool(testContext(t), "change:env", map[string]any{"name": "MCPHOST_TEST_MARK"})
	if err != nil || hosttest.Text(res) != "new" {
		t.Errorf("changed server's env: %v %v", err, res)
	}
	if _, ok := h.Resolve("drop:echo"); ok {
		t.Error("a removed server's tool is listed")
	}
	if slices.Contains(h.ServerIDs(), "drop") {
		t.Error("a removed server is still listed")
	}
	if st := statusOf(t, h, "bad"); st.State != host.StateError {
		t.Errorf("bad: %+v", st)
	}
	again, err := h.SetServers(testContext(t), &config.Config{Servers: []*config.Server{testServer(t, "keep"), changed, testServer(t, "add"), bad}})
	if err != nil || !again.Empty() {
		t.Errorf("the same configuration again: %+v %v", again, err)
	}
}

// After max_attempts failed connects in a row the server is left in error
// until Reconnect.
func TestMaxAttempts(t *testing.T) {
	sc := testServer(t, "crasher", "-crash-at-start")
	sc.Reconnect = config.Reconnect{InitialDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, MaxAttempts: 3}
	var ev eventLog
	h := startProcHost(t, []*config.Server{sc}, host.WithEvents(ev.add))
	st := waitState(t, h, "crasher", host.StateError)
	if !strings.Contains(st.Error, "gave up after 3 failed connects") || !strings.Contains(st.Error, "exited with status 1") {
		t.Errorf("error %q", st.Error)
	}
	if n := countState(ev.states("crasher"), host.StateReconnecting); n != 2 {
		t.Errorf("%d reconnecting states, want 2 (attempts 2 and 3): %v", n, ev.states("crasher"))
	}
	if err := h.Reconnect("crasher"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "another round of attempts", func() bool { return countState(ev.states("crasher"), host.StateError) == 2 })
}

func countState(seq []host.State, s host.State) int {
	n := 0
	for _, x := range seq {
		if x == s {
			n++
		}
	}
	return n
}

// A server that stops answering pings is reconnected.
func TestHealthCheckFailureReconnects(t *testing.T) {
	srv := newToolServer("alpha", "echo")
	connects := countConnects(srv)
	var mute atomic.Bool
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "ping" && mute.Load() {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return next(ctx, method, req)
		}
	})
	sc := fastReconnect("alpha")
	sc.HealthInterval = 20 * time.Millisecond
	var ev eventLog
	h := startHost(t, &config.Config{Servers: []*config.Server{sc}}, host.WithInProcessServer("alpha", srv), host.WithEvents(ev.add))
	mute.Store(true)
	waitFor(t, "a reconnect after a missed health check", func() bool { return connects.Load() >= 2 })
	mute.Store(false)
	waitState(t, h, "alpha", host.StateReady)
	var sawHealth bool
	ev.mu.Lock()
	for _, e := range ev.all {
		if e.State == host.StateReconnecting && e.Err != nil && strings.Contains(e.Err.Error(), "health check: no answer to ping") {
			sawHealth = true
		}
	}
	ev.mu.Unlock()
	if !sawHealth {
		t.Errorf("no reconnecting event blaming the health check: %v", ev.states("alpha"))
	}
	if _, err := h.CallTool(testContext(t), "alpha:echo", nil); err != nil {
		t.Fatal(err)
	}
}

// Close ends calls in flight at once, stops every supervisor and leaves no
// goroutine and no process behind, within its bound.
func TestCloseStopsEverything(t *testing.T) {
	testenv.CheckGoroutines(t)
	blocked := make(chan struct{})
	hang := mcp.NewServer(&mcp.Implementation{Name: "hang", Version: "1"}, nil)
	mcp.AddTool(hang, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(blocked)
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	crasher := testServer(t, "crasher", "-crash-at-start")
	crasher.Reconnect = config.Reconnect{InitialDelay: time.Hour}
	cfg := &config.Config{Servers: []*config.Server{testServer(t, "proc"), crasher}}
	h, err := host.New(cfg, host.WithInProcessServer("hang", hang))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(testContext(t)); err != nil {
		t.Fatal(err)
	}
	res, err := h.CallTool(testContext(t), "proc:pid", nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := hosttest.Text(res)
	callErr := make(chan error, 1)
	go func() {
		_, err := h.CallTool(context.Background(), "hang:wait", nil)
		callErr <- err
	}()
	<-blocked
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-callErr; !errors.Is(err, host.ErrClosed) {
		t.Errorf("call in flight: %v", err)
	}
	waitFor(t, "the stdio server to exit", func() bool { return !testenv.ProcessAlive(atoi(t, pid)) })
	if st := statusOf(t, h, "crasher"); st.State != host.StateClosed {
		t.Errorf("crasher: %s", st.State)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

// A missing executable is an error at once: a retry cannot help, so the
// server is not left reconnecting for ever.
func TestMissingExecutableIsAnError(t *testing.T) {
	sc := &config.Server{ID: "gone", Transport: config.TransportStdio, Command: filepath.Join(t.TempDir(), "no-such-server"), Enabled: true}
	h := startFaultHost(t, []*config.Server{sc}, nil)
	st := statusOf(t, h, "gone")
	if st.State != host.StateError || !strings.Contains(st.Error, "no-such-server") || !strings.Contains(st.Error, "tried again on Reconnect") {
		t.Fatalf("gone: %s (%s); want error", st.State, st.Error)
	}
}

// WithConnectAttempts(1), as one-shot commands use it: one start of a
// server that crashes, then state error; no restart storm.
func TestOneConnectAttempt(t *testing.T) {
	state := filepath.Join(t.TempDir(), "starts")
	sc := stdioFault(t, "crashy", "-crash-at-start-times", "1000", "-state-file", state)
	h := startFaultHost(t, []*config.Server{sc}, nil, host.WithConnectAttempts(1))
	st := statusOf(t, h, "crashy")
	if st.State != host.StateError || !strings.Contains(st.Error, "crashing at start") {
		t.Fatalf("crashy: %s (%s); want error", st.State, st.Error)
	}
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.TrimSpace(string(data)); n != "1" {
		t.Fatalf("the server was started %s times, want once", n)
	}
}

// SetServers and Close called at once: whatever order they take, every
// server SetServers added is closed by Close (none is left running).
func TestSetServersAndCloseConcurrently(t *testing.T) {
	for i := 0; i < 20; i++ {
		h, err := host.New(&config.Config{Servers: []*config.Server{testServer(t, "a")}}, testLogger(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Start(testContext(t)); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, _ = h.SetServers(testContext(t), &config.Config{Servers: []*config.Server{testServer(t, "a"), testServer(t, "b")}})
		}()
		go func() {
			defer wg.Done()
			_ = h.Close(testContext(t))
		}()
		wg.Wait()
		for _, st := range h.Status() {
			if st.State != host.StateClosed {
				t.Fatalf("round %d: server %s is %s after Close", i, st.ID, st.State)
			}
		}
	}
}

// A server that answers 401 is in state needs-auth, saying what it asked
// for and what to do; it is not retried (no reconnect storm) until
// something changes, and a call to it fails at once with the hint.
func TestUnauthorizedIsNeedsAuth(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	sc := &config.Server{ID: "locked", Transport: config.TransportHTTP, URL: srv.URL + "/mcp", Enabled: true,
		StartupTimeout: bound, Reconnect: faultReconnect}
	h := startFaultHost(t, []*config.Server{sc, testServer(t, "good")}, nil)
	st := statusOf(t, h, "locked")
	if st.State != host.StateNeedsAuth || !strings.Contains(st.Error, "401") || !strings.Contains(st.Error, "resource_metadata") || !strings.Contains(st.Error, `run "mcphost login locked"`) {
		t.Fatalf("locked: %s (%s); want needs-auth with the challenge and a hint", st.State, st.Error)
	}
	before := requests.Load()
	_, err := h.CallTool(testContext(t), "locked:anything", nil)
	if err == nil || !strings.Contains(err.Error(), "mcphost login locked") {
		t.Fatalf("call: %v; want the needs-auth hint", err)
	}
	echoWorks(t, h, "good")
	if st := statusOf(t, h, "locked"); st.State != host.StateNeedsAuth {
		t.Fatalf("locked: %s", st.State)
	}
	if after := requests.Load(); after != before {
		t.Fatalf("%d more requests to a server that refused: want none until something changes", after-before)
	}
}

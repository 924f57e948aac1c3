package host_test

// The fault matrix of issue "Server supervision". For every fault, over stdio
// and Streamable HTTP where it applies to both, a test asserts that
//
//  1. the caller gets a clear error, naming the server and the cause, within
//     its deadline;
//  2. the other servers keep serving (a healthy stdio server "good" in the
//     same host answers echo);
//  3. the server is back after the fault (ready again, echo works).
//
// Each test names its row of the matrix. Times are failure bounds (bound),
// never speed expectations; backoffs are short so that recoveries are quick.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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

// faultReconnect is a short backoff, so that a server comes back quickly
// once its fault is gone.
var faultReconnect = config.Reconnect{InitialDelay: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond}

// stdioFault is the test server's entry with flags and a short backoff.
func stdioFault(t *testing.T, id string, flags ...string) *config.Server {
	t.Helper()
	sc := testServer(t, id, flags...)
	sc.Reconnect = faultReconnect
	return sc
}

// httpFault is a Streamable HTTP entry with a short backoff.
func httpFault(id, url string) *config.Server {
	return &config.Server{
		ID: id, Transport: config.TransportHTTP, URL: url, Enabled: true,
		StartupTimeout: bound, RequestTimeout: bound, Reconnect: faultReconnect,
	}
}

// ownHTTP gives the host an http.Transport of its own, so that no
// connection kept alive by another test (or from before a server restart in
// another test) is reused; its idle connections are closed at the end.
func ownHTTP(t *testing.T) host.Option {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return host.WithHTTPClient(&http.Client{Transport: tr})
}

// faultEvent is an event as the host delivered it.
type faultEvent struct {
	host.Event
	At time.Time
	// Status is the server's status when the event was delivered (state
	// events only). The supervisor waits for the callback, so it is the
	// status right after the change.
	Status host.ServerStatus
}

// eventLog records the host's events with their times.
type eventLog struct {
	h   atomic.Pointer[host.Host]
	mu  sync.Mutex
	all []faultEvent
}

func (l *eventLog) add(ev host.Event) {
	fe := faultEvent{Event: ev, At: time.Now()}
	if h := l.h.Load(); h != nil && ev.Kind == "state" {
		for _, st := range h.Status() {
			if st.ID == ev.Server {
				fe.Status = st
			}
		}
	}
	l.mu.Lock()
	l.all = append(l.all, fe)
	l.mu.Unlock()
}

// of returns the state events of server id.
func (l *eventLog) of(id string) []faultEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []faultEvent
	for _, ev := range l.all {
		if ev.Server == id && ev.Kind == "state" {
			out = append(out, ev)
		}
	}
	return out
}

// states is the sequence of states server id went through.
func (l *eventLog) states(id string) []host.State {
	var out []host.State
	for _, ev := range l.of(id) {
		out = append(out, ev.State)
	}
	return out
}

// mark returns the number of events so far, for since.
func (l *eventLog) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.all)
}

// since returns the states server id went through after mark.
func (l *eventLog) since(mark int, id string) []host.State {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []host.State
	for _, ev := range l.all[mark:] {
		if ev.Server == id && ev.Kind == "state" {
			out = append(out, ev.State)
		}
	}
	return out
}

// startFaultHost starts a host with these servers, recording its events in
// ev, and closes it at the end.
func startFaultHost(t *testing.T, servers []*config.Server, ev *eventLog, opts ...host.Option) *host.Host {
	t.Helper()
	if ev == nil {
		ev = new(eventLog)
	}
	h, err := host.New(&config.Config{Servers: servers}, append([]host.Option{testLogger(t), host.WithEvents(ev.add)}, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ev.h.Store(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := h.Start(testContext(t)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return h
}

// callResult is the outcome of a call started by goCall.
type callResult struct {
	res   *mcp.CallToolResult
	err   error
	took  time.Duration
	name  string
	limit time.Duration
}

// goCall starts a call with its own deadline, timeout, and no other.
func goCall(h *host.Host, name string, args map[string]any, timeout time.Duration, opts ...host.CallOption) <-chan callResult {
	done := make(chan callResult, 1)
	go func() {
		start := time.Now()
		res, err := h.CallTool(context.Background(), name, args, append([]host.CallOption{host.WithTimeout(timeout)}, opts...)...)
		done <- callResult{res: res, err: err, took: time.Since(start), name: name, limit: timeout}
	}()
	return done
}

// await waits for a call started by goCall, failing the test if it has not
// returned within its deadline plus bound (a failure bound).
func await(t *testing.T, c <-chan callResult, name string, timeout time.Duration) (*mcp.CallToolResult, error) {
	t.Helper()
	select {
	case r := <-c:
		t.Logf("%s (deadline %s): returned after %s, error: %v", r.name, r.limit, r.took.Round(time.Millisecond), r.err)
		return r.res, r.err
	case <-time.After(timeout + bound):
		t.Fatalf("%s: no return within its deadline %s (+%s)", name, timeout, bound)
		return nil, nil
	}
}

// callWithin calls a tool with its own deadline, timeout, and no other: it
// fails the test if the call has not returned within that deadline (plus
// bound).
func callWithin(t *testing.T, h *host.Host, name string, args map[string]any, timeout time.Duration, opts ...host.CallOption) (*mcp.CallToolResult, error) {
	t.Helper()
	return await(t, goCall(h, name, args, timeout, opts...), name, timeout)
}

// wantErr fails t unless err is an error whose text contains every part.
func wantErr(t *testing.T, err error, what string, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not mention %q", what, err, p)
		}
	}
}

// containsAny reports whether s contains one of parts, ignoring case.
func containsAny(s string, parts ...string) bool {
	s = strings.ToLower(s)
	for _, p := range parts {
		if strings.Contains(s, strings.ToLower(p)) {
			return true
		}
	}
	return false
}

// pidOf returns the process id of a stdio test server.
func pidOf(t *testing.T, h *host.Host, id string) string {
	t.Helper()
	res, err := h.CallTool(testContext(t), id+":pid", nil)
	if err != nil {
		t.Fatalf("pid of %s: %v", id, err)
	}
	return hosttest.Text(res)
}

// falseLoss fails t if err says that the connection was lost while server
// id kept its session (it did not change state after mark).
func falseLoss(t *testing.T, ev *eventLog, mark int, id string, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), "connection lost") && len(ev.since(mark, id)) == 0 {
		t.Errorf("error %q says the connection was lost, but only the call failed: the session goes on", err)
	}
}

// noReconnects fails t if server id left the ready state after mark.
func noReconnects(t *testing.T, ev *eventLog, mark int, id string) {
	t.Helper()
	if st := ev.since(mark, id); len(st) > 0 {
		t.Errorf("server %q changed state: %v; want it to stay ready", id, st)
	}
}

// sessionCount counts the Streamable HTTP sessions a server issued (the
// Mcp-Session-Id values of its answers): one per connect of the host.
// (countConnects would count two: over HTTP the host's server/discover
// probe is followed by initialize.)
type sessionCount struct {
	mu  sync.Mutex
	ids map[string]bool
}

func (c *sessionCount) middleware() hosttest.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r)
			if id := w.Header().Get("Mcp-Session-Id"); id != "" {
				c.mu.Lock()
				if c.ids == nil {
					c.ids = map[string]bool{}
				}
				c.ids[id] = true
				c.mu.Unlock()
			}
		})
	}
}

func (c *sessionCount) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ids)
}

// faultServer is an in-memory server for the Streamable HTTP rows: echo and
// big as in hosttest.NewEchoServer, hang (blocks until cancelled), flood {n}
// (n progress notifications) and deepresult {depth} (structured content
// nested depth levels).
type faultServer struct {
	*mcp.Server
	hanging chan struct{} // receives when a hang call starts
}

func newFaultServer(t *testing.T) *faultServer {
	s := &faultServer{Server: hosttest.NewEchoServer(), hanging: make(chan struct{}, 16)}
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	mcp.AddTool(s.Server, &mcp.Tool{Name: "hang", Description: "Blocks until cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			s.hanging <- struct{}{}
			select {
			case <-ctx.Done():
			case <-release:
			}
			return nil, nil, fmt.Errorf("hang: ended")
		})
	type floodIn struct {
		N int `json:"n"`
	}
	mcp.AddTool(s.Server, &mcp.Tool{Name: "flood", Description: "Sends n progress notifications."},
		func(ctx context.Context, req *mcp.CallToolRequest, in floodIn) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			for i := 1; i <= in.N && token != nil; i++ {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(i), Total: float64(in.N), Message: "flood",
				})
				if err != nil {
					return nil, nil, fmt.Errorf("flood: notification %d: %w", i, err)
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("flooded %d", in.N)}}}, nil, nil
		})
	addDeepResultTool(s.Server)
	return s
}

// addDeepResultTool adds deepresult {depth}: its structured content nests
// depth levels of {"x":...} (JSON nesting depth+1 inside the result).
func addDeepResultTool(srv *mcp.Server) {
	srv.AddTool(&mcp.Tool{Name: "deepresult", Description: "Returns structured content nested depth levels.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"depth":{"type":"integer"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Depth int `json:"depth"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			nested := strings.Repeat(`{"x":`, in.Depth) + `"bottom"` + strings.Repeat(`}`, in.Depth)
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: "deep"}},
				StructuredContent: json.RawMessage(nested),
			}, nil
		})
}

// Row 1: a crash in the middle of a call. The call, and another one in
// flight on the same server, fail at once naming the server and the cause;
// neither is sent again (it may have run); the server is started again.
// (TestProcessCrashMidCall covers the single crashing call over stdio.)
func TestFaultCrashMidCall(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		testenv.CheckGoroutines(t)
		var ev eventLog
		h := startFaultHost(t, []*config.Server{stdioFault(t, "crashy"), testServer(t, "good")}, &ev)
		before := pidOf(t, h, "crashy")

		// A slow call in flight (it has reported progress) when the
		// server crashes.
		inFlight := make(chan struct{})
		var once sync.Once
		slowErr := make(chan error, 1)
		go func() {
			_, err := h.CallTool(context.Background(), "crashy:slow", map[string]any{"ms": 10 * bound.Milliseconds()},
				host.WithTimeout(bound), host.WithProgress(func(host.Progress) { once.Do(func() { close(inFlight) }) }))
			slowErr <- err
		}()
		select {
		case <-inFlight:
		case <-time.After(bound):
			t.Fatal("the slow call never reported progress")
		}

		_, err := callWithin(t, h, "crashy:crash", nil, bound)
		wantErr(t, err, "crash", `"crashy"`, `"crash"`, "status 3")
		select {
		case err := <-slowErr:
			t.Logf("slow call in flight: %v", err)
			wantErr(t, err, "slow call in flight", `"crashy"`, `"slow"`, "connection lost", "status 3")
			if strings.Contains(err.Error(), "no answer within") {
				t.Errorf("the call in flight waited for its deadline: %v", err)
			}
		case <-time.After(bound):
			t.Fatal("the call in flight did not fail when its server crashed")
		}

		echoWorks(t, h, "good")
		echoWorks(t, h, "crashy")
		waitState(t, h, "crashy", host.StateReady)
		if after := pidOf(t, h, "crashy"); after == before {
			t.Errorf("still process %s after the crash", after)
		}
		// One crash, one restart: the crash call was not sent again to the
		// new process (it would have crashed that one too).
		if st := ev.states("crashy"); !containsInOrder(st, host.StateReady, host.StateReconnecting, host.StateReady) || countState(st, host.StateReady) != 2 {
			t.Errorf("crashy went through %v, want ready, reconnecting, ready", st)
		}
		if st := ev.states("good"); len(st) != 2 {
			t.Errorf("good went through %v, want connecting and ready only", st)
		}
	})

	t.Run("http", func(t *testing.T) {
		srv := newFaultServer(t)
		var sessions sessionCount
		rs := hosttest.NewRestartableHTTP(t, srv.Server, sessions.middleware())
		var ev eventLog
		h := startFaultHost(t, []*config.Server{httpFault("remote", rs.URL()), testServer(t, "good")}, &ev, ownHTTP(t))
		echoWorks(t, h, "remote")

		hangErr := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := h.CallTool(context.Background(), "remote:hang", nil, host.WithTimeout(bound))
			hangErr <- err
		}()
		select {
		case <-srv.hanging:
		case <-time.After(bound):
			t.Fatal("the hang call did not reach the server")
		}
		rs.Stop() // the server process dies, mid-call
		select {
		case err := <-hangErr:
			t.Logf("call in flight when the server stopped: after %s: %v", time.Since(start).Round(time.Millisecond), err)
			wantErr(t, err, "call in flight", `"remote"`, `"hang"`)
			if strings.Contains(err.Error(), "no answer within") {
				t.Errorf("the call in flight waited for its deadline instead of failing with the connection: %v", err)
			}
		case <-time.After(2 * bound):
			t.Fatal("the call in flight did not return")
		}

		// While it is down, a call fails naming it; the others serve.
		_, err := callWithin(t, h, "remote:echo", map[string]any{"text": "down"}, time.Second)
		wantErr(t, err, "call while the server is down", `"remote"`)
		echoWorks(t, h, "good")

		if err := rs.Start(); err != nil {
			t.Fatal(err)
		}
		echoWorks(t, h, "remote")
		waitState(t, h, "remote", host.StateReady)
		if n := sessions.n(); n < 2 {
			t.Errorf("%d sessions, want a new one after the restart", n)
		}
		select {
		case <-srv.hanging:
			t.Error("the call in flight was sent again after the restart")
		default:
		}
		echoWorks(t, h, "good")
		if st := ev.states("good"); len(st) != 2 {
			t.Errorf("good went through %v, want connecting and ready only", st)
		}
	})
}

// Row 2: a crash at startup, four times in a row. Each failed connect is
// reported (reconnecting, attempt n, the exit status), the waits between
// attempts double from reconnect.initial_delay up to reconnect.max_delay
// (±20 % jitter), and the fifth start serves. "pinned" sets
// protocol_version, so that every start is one connect attempt and the
// cap shows; "probe" is the default, where the host may take the first
// crash for a server that closes the connection on server/discover and
// start it again at once within the same attempt (see
// TestFaultCrashAtStartDoesNotPinProtocol).
func TestFaultCrashAtStartRepeatedly(t *testing.T) {
	t.Run("probe", func(t *testing.T) { testCrashAtStart(t, "", 3) })
	t.Run("pinned", func(t *testing.T) { testCrashAtStart(t, "2025-11-25", 4) })
}

// testCrashAtStart runs row 2; at least minFailures of the four crashes
// must be failed connects.
func testCrashAtStart(t *testing.T, version string, minFailures int) {
	testenv.CheckGoroutines(t)
	policy := config.Reconnect{InitialDelay: 20 * time.Millisecond, MaxDelay: 80 * time.Millisecond}
	stateFile := filepath.Join(t.TempDir(), "starts")
	sc := testServer(t, "crasher", "-crash-at-start-times", "4", "-state-file", stateFile)
	sc.Reconnect = policy
	sc.ProtocolVersion = version
	var ev eventLog
	h := startFaultHost(t, []*config.Server{sc, testServer(t, "good")}, &ev)

	// A call now, while it is failing, or already back: an error must name it.
	if _, err := callWithin(t, h, "crasher:echo", map[string]any{"text": "x"}, time.Second); err != nil && !strings.Contains(err.Error(), "crasher") {
		t.Errorf("call during the crash loop: %v does not name the server", err)
	}
	echoWorks(t, h, "good")

	waitState(t, h, "crasher", host.StateReady)
	echoWorks(t, h, "crasher")
	echoWorks(t, h, "good")
	if data, err := os.ReadFile(stateFile); err != nil || strings.TrimSpace(string(data)) != "5" {
		t.Errorf("state file %q (%v), want 5 starts", data, err)
	}

	var reconnecting []faultEvent
	var readyAt time.Time
	for _, e := range ev.of("crasher") {
		switch e.State {
		case host.StateReconnecting:
			reconnecting = append(reconnecting, e)
		case host.StateReady:
			readyAt = e.At
		}
	}
	t.Logf("crasher went through %v", ev.states("crasher"))
	if len(reconnecting) < minFailures || len(reconnecting) > 4 {
		t.Fatalf("%d reconnecting events, want %d to 4", len(reconnecting), minFailures)
	}
	for i, e := range reconnecting {
		n := i + 1
		if e.Attempt != n || e.Status.Attempt != n+1 {
			t.Errorf("reconnecting event %d: Event.Attempt %d, Status.Attempt %d; want %d and %d", n, e.Attempt, e.Status.Attempt, n, n+1)
		}
		if e.Err == nil || !strings.Contains(e.Err.Error(), `"crasher"`) || !strings.Contains(e.Err.Error(), "status 1") {
			t.Errorf("reconnecting event %d: error %v; want one naming the server and its exit status", n, e.Err)
		}
		if e.Status.NextRetry.IsZero() {
			t.Errorf("reconnecting event %d: no NextRetry", n)
			continue
		}
		// The wait chosen: initial_delay doubled per earlier failure,
		// capped at max_delay, ±20 %. Measured from the event, it can only
		// look shorter (by the time the event took to arrive): the lower
		// bound allows 10ms for that.
		nominal := min(policy.InitialDelay<<(n-1), policy.MaxDelay)
		wait := e.Status.NextRetry.Sub(e.At)
		lo, hi := nominal*8/10-10*time.Millisecond, nominal*12/10+time.Millisecond
		t.Logf("failure %d: wait %s (nominal %s)", n, wait.Round(100*time.Microsecond), nominal)
		if wait < lo || wait > hi {
			t.Errorf("wait after failure %d: %s, want %s ±20%% (between %s and %s)", n, wait, nominal, lo, hi)
		}
		// The next attempt did not start before NextRetry.
		next := readyAt
		if i+1 < len(reconnecting) {
			next = reconnecting[i+1].At
		}
		if next.Before(e.Status.NextRetry) {
			t.Errorf("attempt %d ended %s before its NextRetry", n+1, e.Status.NextRetry.Sub(next))
		}
	}
	if st := ev.states("crasher"); st[len(st)-1] != host.StateReady {
		t.Errorf("crasher went through %v, want ready last", st)
	}
}

// Row 2, a finding: a server that crashes at its first start is taken for
// one that closes the connection on the server/discover probe. The host
// starts it again at once within the same connect attempt, with
// initialize at the fallback version, and keeps that version pinned for
// the life of the host: once back, the server speaks an older protocol
// than the same server without the crash, and the crash is not reported
// as a failed connect.
func TestFaultCrashAtStartDoesNotPinProtocol(t *testing.T) {
	stateFile := filepath.Join(t.TempDir(), "starts")
	var ev eventLog
	h := startFaultHost(t, []*config.Server{
		stdioFault(t, "crasher", "-crash-at-start-times", "1", "-state-file", stateFile),
		testServer(t, "good"),
	}, &ev)
	waitState(t, h, "crasher", host.StateReady)
	echoWorks(t, h, "crasher")
	data, err := os.ReadFile(stateFile)
	if err != nil {
		t.Fatal(err)
	}
	failed := countState(ev.states("crasher"), host.StateReconnecting)
	if starts := strings.TrimSpace(string(data)); starts != strconv.Itoa(failed+1) {
		t.Errorf("the server was started %s times for %d failed connects (states %v); want one start per connect", starts, failed, ev.states("crasher"))
	}
	if got, want := statusOf(t, h, "crasher").ProtocolVersion, statusOf(t, h, "good").ProtocolVersion; got != want {
		t.Errorf("after one crash at start the server speaks protocol %s; without the crash, %s", got, want)
	}
}

// Row 3: no answer to a call. The call fails at its deadline, naming the
// server, the tool and the deadline; the server keeps answering others on
// the same session.
func TestFaultCallNoAnswer(t *testing.T) {
	const timeout = 300 * time.Millisecond
	check := func(t *testing.T, h *host.Host, ev *eventLog, id string) {
		t.Helper()
		mark := ev.mark()
		hang := goCall(h, id+":hang", nil, timeout)
		// Meanwhile the same server and the other one answer.
		echoWorks(t, h, id)
		echoWorks(t, h, "good")
		_, err := await(t, hang, id+":hang", timeout)
		wantErr(t, err, "hang", `"`+id+`"`, `"hang"`, "no answer within "+timeout.String())
		echoWorks(t, h, id)
		noReconnects(t, ev, mark, id)
	}
	t.Run("stdio", func(t *testing.T) {
		var ev eventLog
		h := startFaultHost(t, []*config.Server{stdioFault(t, "stuck"), testServer(t, "good")}, &ev)
		before := pidOf(t, h, "stuck")
		check(t, h, &ev, "stuck")
		if after := pidOf(t, h, "stuck"); after != before {
			t.Errorf("the server was restarted (%s, then %s)", before, after)
		}
	})
	t.Run("http", func(t *testing.T) {
		var sessions sessionCount
		u := hosttest.ServeHTTP(t, newFaultServer(t).Server, sessions.middleware())
		var ev eventLog
		h := startFaultHost(t, []*config.Server{httpFault("stuck", u), testServer(t, "good")}, &ev, ownHTTP(t))
		check(t, h, &ev, "stuck")
		if n := sessions.n(); n != 1 {
			t.Errorf("%d sessions, want 1", n)
		}
	})
}

// holdHandshake makes a Streamable HTTP server never answer initialize and
// server/discover while hold is set (the request waits until its client
// gives up).
func holdHandshake(hold *atomic.Bool) hosttest.Middleware {
	return onMethod(func(m string) bool {
		return hold.Load() && (m == "initialize" || m == "server/discover")
	}, func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
}

// Row 4: no answer to initialize. Each connect fails at startup_timeout,
// saying so; the server is back once fixed: over stdio by SetServers with
// the flag removed, over HTTP when the server answers again.
func TestFaultInitializeNoAnswer(t *testing.T) {
	const startup = 500 * time.Millisecond
	checkStuck := func(t *testing.T, h *host.Host, id string) {
		t.Helper()
		st := statusOf(t, h, id)
		t.Logf("%s: %s (%s)", id, st.State, st.Error)
		if st.State != host.StateReconnecting || !strings.Contains(st.Error, `"`+id+`"`) || !strings.Contains(st.Error, "startup_timeout") {
			t.Errorf("%s: state %s, error %q; want reconnecting with an error naming the server and startup_timeout", id, st.State, st.Error)
		}
		_, err := callWithin(t, h, id+":echo", map[string]any{"text": "x"}, time.Second)
		wantErr(t, err, "call to a server that never initialized", id)
		echoWorks(t, h, "good")
	}
	t.Run("stdio", func(t *testing.T) {
		testenv.CheckGoroutines(t)
		stuck := stdioFault(t, "stuck", "-hang-initialize")
		stuck.StartupTimeout = startup
		good := testServer(t, "good")
		h := startFaultHost(t, []*config.Server{stuck, good}, nil)
		goodPID := pidOf(t, h, "good")
		checkStuck(t, h, "stuck")

		fixed := stdioFault(t, "stuck")
		fixed.StartupTimeout = startup
		change, err := h.SetServers(testContext(t), &config.Config{Servers: []*config.Server{fixed, testServer(t, "good")}})
		if err != nil {
			t.Fatal(err)
		}
		if len(change.Changed) != 1 || change.Changed[0] != "stuck" || len(change.Added)+len(change.Removed) != 0 {
			t.Errorf("SetServers: %+v, want stuck changed only", change)
		}
		waitState(t, h, "stuck", host.StateReady)
		echoWorks(t, h, "stuck")
		if got := pidOf(t, h, "good"); got != goodPID {
			t.Errorf("good was restarted (%s, then %s)", goodPID, got)
		}
	})
	t.Run("http", func(t *testing.T) {
		var hold atomic.Bool
		hold.Store(true)
		u := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), holdHandshake(&hold))
		stuck := httpFault("stuck", u)
		stuck.StartupTimeout = startup
		h := startFaultHost(t, []*config.Server{stuck, testServer(t, "good")}, nil, ownHTTP(t))
		checkStuck(t, h, "stuck")

		hold.Store(false)
		waitState(t, h, "stuck", host.StateReady)
		echoWorks(t, h, "stuck")
		echoWorks(t, h, "good")
	})
}

// Row 5: server/discover ignored. The probe's own short deadline passes
// and the SDK falls back to initialize on the same connection: the first
// connect succeeds, within startup_timeout. (TestProcessDiscoverProbe
// covers the same with servers that close the connection on the probe.)
func TestFaultDiscoverIgnored(t *testing.T) {
	check := func(t *testing.T, sc *config.Server, opts ...host.Option) {
		t.Helper()
		sc.StartupTimeout = 10 * time.Second
		var ev eventLog
		opts = append(opts, host.WithDiscoverProbeTimeout(200*time.Millisecond))
		h := startFaultHost(t, []*config.Server{sc, testServer(t, "good")}, &ev, opts...)
		// Start returns after the first connect attempt: it succeeded.
		st := statusOf(t, h, "odd")
		if st.State != host.StateReady {
			t.Fatalf("odd: %s (%s), stderr %q; want ready after the first connect", st.State, st.Error, st.Stderr)
		}
		if st.ProtocolVersion == "" || st.ProtocolVersion > "2025-11-25" {
			t.Errorf("protocol %q, want initialize at 2025-11-25 or older", st.ProtocolVersion)
		}
		t.Logf("odd: protocol %s, connect took %s", st.ProtocolVersion, st.ConnectDuration.Round(time.Millisecond))
		if st := ev.states("odd"); len(st) != 2 {
			t.Errorf("odd went through %v, want connecting and ready only", st)
		}
		echoWorks(t, h, "odd")
		echoWorks(t, h, "good")
	}
	t.Run("stdio", func(t *testing.T) {
		check(t, stdioFault(t, "odd", "-ignore-discover"))
	})
	t.Run("http", func(t *testing.T) {
		u := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), discoverMiddleware("drop"))
		check(t, httpFault("odd", u), ownHTTP(t))
	})
}

// Row 6: a garbage line on stdout. Every process of the server fails its
// first tools/list: it is reconnected again and again with an error saying
// that its output was not JSON, until SetServers fixes it.
func TestFaultGarbageOnStdout(t *testing.T) {
	testenv.CheckGoroutines(t)
	var ev eventLog
	h := startFaultHost(t, []*config.Server{stdioFault(t, "noisy", "-garbage"), testServer(t, "good")}, &ev)
	goodPID := pidOf(t, h, "good")
	st := statusOf(t, h, "noisy")
	t.Logf("noisy: %s (%s)", st.State, st.Error)
	if st.State != host.StateReconnecting {
		t.Errorf("noisy: state %s, want reconnecting", st.State)
	}
	if !strings.Contains(st.Error, `"noisy"`) || !strings.Contains(strings.ToLower(st.Error), "json") || !strings.Contains(st.Error, "this line is not JSON-RPC") {
		t.Errorf("error %q does not name the server, say the output was not JSON and show it", st.Error)
	}
	_, err := callWithin(t, h, "noisy:echo", map[string]any{"text": "x"}, time.Second)
	wantErr(t, err, "call to the noisy server", "noisy")
	echoWorks(t, h, "good")

	change, err := h.SetServers(testContext(t), &config.Config{Servers: []*config.Server{stdioFault(t, "noisy"), testServer(t, "good")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(change.Changed) != 1 || change.Changed[0] != "noisy" || len(change.Added)+len(change.Removed) != 0 {
		t.Errorf("SetServers: %+v, want noisy changed only", change)
	}
	waitState(t, h, "noisy", host.StateReady)
	echoWorks(t, h, "noisy")
	if got := pidOf(t, h, "good"); got != goodPID {
		t.Errorf("good was restarted (%s, then %s)", goodPID, got)
	}
}

// Row 7: a frame over max_message_bytes. Only the call it answers fails,
// naming the server and max_message_bytes; the server stays ready on the
// same session.
func TestFaultFrameOverLimit(t *testing.T) {
	const limit = 64 << 10
	check := func(t *testing.T, h *host.Host, ev *eventLog, id string) {
		t.Helper()
		mark := ev.mark()
		_, err := callWithin(t, h, id+":big", map[string]any{"n": 4 * limit}, bound)
		wantErr(t, err, "big answer over the limit", `"`+id+`"`, `"big"`, "max_message_bytes")
		falseLoss(t, ev, mark, id, err)
		res, err := callWithin(t, h, id+":big", map[string]any{"n": limit / 2}, bound)
		if err != nil || len(hosttest.Text(res)) != limit/2 {
			t.Errorf("big answer under the limit: %v", err)
		}
		echoWorks(t, h, id)
		echoWorks(t, h, "good")
		if st := statusOf(t, h, id); st.State != host.StateReady {
			t.Errorf("%s: %s (%s)", id, st.State, st.Error)
		}
		noReconnects(t, ev, mark, id)
	}
	t.Run("stdio", func(t *testing.T) {
		limited := stdioFault(t, "limited")
		limited.MaxMessageBytes = limit
		var ev eventLog
		h := startFaultHost(t, []*config.Server{limited, testServer(t, "good")}, &ev)
		before := pidOf(t, h, "limited")
		check(t, h, &ev, "limited")
		if after := pidOf(t, h, "limited"); after != before {
			t.Errorf("the server was restarted (%s, then %s)", before, after)
		}
	})
	t.Run("http", func(t *testing.T) {
		var sessions sessionCount
		limited := httpFault("limited", hosttest.ServeHTTP(t, hosttest.NewEchoServer(), sessions.middleware()))
		limited.MaxMessageBytes = limit
		var ev eventLog
		h := startFaultHost(t, []*config.Server{limited, testServer(t, "good")}, &ev, ownHTTP(t))
		check(t, h, &ev, "limited")
		if n := sessions.n(); n != 1 {
			t.Errorf("%d sessions, want 1", n)
		}
	})
}

// Row 8: HTTP 404, the server lost the session. The next call is sent on a
// new session (a request refused with 404 never ran) or fails clearly;
// the server is ready again with a new session.
func TestFaultHTTPSessionLost(t *testing.T) {
	f := &hosttest.Faults{}
	var sessions sessionCount
	u := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), sessions.middleware(), f.Middleware())
	var ev eventLog
	h := startFaultHost(t, []*config.Server{httpFault("remote", u), testServer(t, "good")}, &ev, ownHTTP(t))
	echoWorks(t, h, "remote")

	f.LoseSessions()
	res, err := callWithin(t, h, "remote:echo", map[string]any{"text": "after"}, bound)
	if err != nil {
		wantErr(t, err, "call on a lost session", `"remote"`)
		if !containsAny(err.Error(), "404", "session") {
			t.Errorf("error %q does not say the session was lost", err)
		}
	} else if got := hosttest.Text(res); got != "after" {
		t.Errorf("call on a lost session answered %q", got)
	}
	echoWorks(t, h, "good")
	waitFor(t, "a new session", func() bool { return sessions.n() >= 2 })
	waitState(t, h, "remote", host.StateReady)
	echoWorks(t, h, "remote")
	if n := f.Count(http.StatusNotFound); n < 1 {
		t.Errorf("no request was refused with 404: %v", f.Counts())
	}
	if st := ev.states("remote"); !containsInOrder(st, host.StateReady, host.StateReconnecting, host.StateReady) {
		t.Errorf("remote went through %v", st)
	}
	if st := ev.states("good"); len(st) != 2 {
		t.Errorf("good went through %v, want connecting and ready only", st)
	}
}

// Row 9: bursts of HTTP 500 and 503. Each call of the burst fails, naming
// the server and the status; afterwards calls succeed on the same session,
// nothing having been restarted.
func TestFaultHTTPStatusBurst(t *testing.T) {
	f := &hosttest.Faults{}
	var sessions sessionCount
	u := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), sessions.middleware(), f.Middleware())
	var ev eventLog
	h := startFaultHost(t, []*config.Server{httpFault("remote", u), testServer(t, "good")}, &ev, ownHTTP(t))
	goodPID := pidOf(t, h, "good")
	echoWorks(t, h, "remote")
	mark := ev.mark()

	for _, status := range []int{http.StatusInternalServerError, http.StatusServiceUnavailable} {
		const burst = 5
		f.FailNext(status, burst)
		for i := range burst {
			_, err := callWithin(t, h, "remote:echo", map[string]any{"text": "x"}, bound)
			wantErr(t, err, fmt.Sprintf("call %d of a %d burst", i+1, status), `"remote"`)
			if err != nil && !containsAny(err.Error(), strconv.Itoa(status), http.StatusText(status)) {
				t.Errorf("call %d of a %d burst: error %q does not name the status", i+1, status, err)
			}
		}
		echoWorks(t, h, "remote")
		echoWorks(t, h, "good")
		if got := f.Count(status); got != burst {
			t.Errorf("%d answers %d, want %d", got, status, burst)
		}
	}
	noReconnects(t, &ev, mark, "remote")
	noReconnects(t, &ev, mark, "good")
	if n := sessions.n(); n != 1 {
		t.Errorf("%d sessions, want 1", n)
	}
	if got := pidOf(t, h, "good"); got != goodPID {
		t.Errorf("good was restarted (%s, then %s)", goodPID, got)
	}
}

// Row 10: connection refused, then accepted. A server down when the host
// starts is retried with backoff, its error saying the connection was
// refused, and is ready once it listens, without any action.
func TestFaultConnectionRefused(t *testing.T) {
	rs := hosttest.NewRestartableHTTP(t, hosttest.NewEchoServer())
	rs.Stop()
	h := startFaultHost(t, []*config.Server{httpFault("remote", rs.URL()), testServer(t, "good")}, nil, ownHTTP(t))
	st := statusOf(t, h, "remote")
	t.Logf("remote: %s (%s)", st.State, st.Error)
	if st.State != host.StateReconnecting || !strings.Contains(st.Error, `"remote"`) || !strings.Contains(st.Error, "refused") {
		t.Errorf("remote: state %s, error %q; want reconnecting with an error naming the server and saying the connection was refused", st.State, st.Error)
	}
	_, err := callWithin(t, h, "remote:echo", map[string]any{"text": "x"}, time.Second)
	wantErr(t, err, "call to a server that refuses connections", "remote")
	echoWorks(t, h, "good")

	if err := rs.Start(); err != nil {
		t.Fatal(err)
	}
	waitState(t, h, "remote", host.StateReady)
	echoWorks(t, h, "remote")
	echoWorks(t, h, "good")
}

// Row 11: every answer 2 s late. A call with a shorter deadline fails at
// it, saying so; one with a longer deadline succeeds; the server is never
// reconnected.
func TestFaultSlowAnswers(t *testing.T) {
	const late = 2 * time.Second
	check := func(t *testing.T, h *host.Host, ev *eventLog, id string) {
		t.Helper()
		mark := ev.mark()
		_, err := callWithin(t, h, id+":echo", map[string]any{"text": "x"}, 500*time.Millisecond)
		wantErr(t, err, "call with a 500ms deadline", `"`+id+`"`, `"echo"`, "no answer within 500ms")
		echoWorks(t, h, "good")
		res, err := callWithin(t, h, id+":echo", map[string]any{"text": "late"}, 10*time.Second)
		if err != nil || hosttest.Text(res) != "late" {
			t.Errorf("call with a 10s deadline: %v", err)
		}
		if st := statusOf(t, h, id); st.State != host.StateReady {
			t.Errorf("%s: %s (%s)", id, st.State, st.Error)
		}
		noReconnects(t, ev, mark, id)
	}
	t.Run("stdio", func(t *testing.T) {
		var ev eventLog
		// testServer's startup_timeout (bound) leaves room for a handshake
		// and a tools/list answered 2 s late each.
		h := startFaultHost(t, []*config.Server{stdioFault(t, "slowpoke", "-delay", late.String()), testServer(t, "good")}, &ev)
		t.Logf("slowpoke: connect took %s", statusOf(t, h, "slowpoke").ConnectDuration.Round(time.Millisecond))
		check(t, h, &ev, "slowpoke")
	})
	t.Run("http", func(t *testing.T) {
		f := &hosttest.Faults{}
		f.Delay(late)
		u := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), f.Middleware())
		var ev eventLog
		h := startFaultHost(t, []*config.Server{httpFault("slowpoke", u), testServer(t, "good")}, &ev, ownHTTP(t))
		st := statusOf(t, h, "slowpoke")
		if st.State != host.StateReady {
			t.Fatalf("slowpoke: %s (%s)", st.State, st.Error)
		}
		t.Logf("slowpoke: connect took %s", st.ConnectDuration.Round(time.Millisecond))
		check(t, h, &ev, "slowpoke")
	})
}

// Row 12: a flood of notifications. 20000 progress notifications during one
// call: the call returns, progress reaches the callback, and the same and
// the other server answer during and after the flood.
func TestFaultNotificationFlood(t *testing.T) {
	const n = 20000
	check := func(t *testing.T, h *host.Host, ev *eventLog, id string) {
		t.Helper()
		mark := ev.mark()
		var progress atomic.Int64
		type result struct {
			res *mcp.CallToolResult
			err error
		}
		done := make(chan result, 1)
		ctx := testContext(t)
		go func() {
			res, err := h.CallTool(ctx, id+":flood", map[string]any{"n": n},
				host.WithProgress(func(host.Progress) { progress.Add(1) }))
			done <- result{res, err}
		}()
		// During the flood (once it has begun), the same server and the
		// other one answer.
		waitFor(t, "the flood to begin", func() bool { return progress.Load() > 0 })
		echoWorks(t, h, id)
		echoWorks(t, h, "good")
		t.Logf("echo answered after %d of %d progress notifications", progress.Load(), n)
		var r result
		select {
		case r = <-done:
		case <-time.After(2 * bound):
			t.Fatal("the flood call did not return")
		}
		if r.err != nil || hosttest.Text(r.res) != fmt.Sprintf("flooded %d", n) {
			t.Fatalf("flood: %v %+v", r.err, r.res)
		}
		waitFor(t, "progress notifications", func() bool { return progress.Load() > 0 })
		t.Logf("%d of %d progress notifications reached the callback", progress.Load(), n)
		echoWorks(t, h, id)
		echoWorks(t, h, "good")
		noReconnects(t, ev, mark, id)
	}
	t.Run("stdio", func(t *testing.T) {
		var ev eventLog
		h := startFaultHost(t, []*config.Server{stdioFault(t, "flooder"), testServer(t, "good")}, &ev)
		check(t, h, &ev, "flooder")
	})
	t.Run("http", func(t *testing.T) {
		u := hosttest.ServeHTTP(t, newFaultServer(t).Server)
		var ev eventLog
		h := startFaultHost(t, []*config.Server{httpFault("flooder", u), testServer(t, "good")}, &ev, ownHTTP(t))
		check(t, h, &ev, "flooder")
	})
}

// Row 13: a tools/list of 10,000 tools. All are listed under unique names
// and the last pages work.
func TestFaultManyTools(t *testing.T) {
	const n = 10000
	check := func(t *testing.T, h *host.Host, id string) {
		t.Helper()
		if st := statusOf(t, h, id); st.State != host.StateReady || st.Tools < n {
			t.Fatalf("%s: %s (%s), %d tools; want ready with at least %d", id, st.State, st.Error, st.Tools, n)
		}
		names, displays := map[string]bool{}, map[string]bool{}
		count := 0
		for _, tool := range h.Tools() {
			if names[tool.Name] || displays[tool.Display] {
				t.Errorf("listed twice: %s (%s)", tool.Name, tool.Display)
			}
			names[tool.Name], displays[tool.Display] = true, true
			if tool.Server == id {
				count++
			}
		}
		if count < n {
			t.Errorf("%d tools of %s listed, want at least %d", count, id, n)
		}
		res, err := callWithin(t, h, id+":t09999", map[string]any{"text": "last page"}, bound)
		if err != nil || hosttest.Text(res) != "last page" {
			t.Errorf("t09999: %v %+v", err, res)
		}
		echoWorks(t, h, id)
		echoWorks(t, h, "good")
	}
	t.Run("stdio", func(t *testing.T) {
		h := startFaultHost(t, []*config.Server{stdioFault(t, "many", "-tools", strconv.Itoa(n)), testServer(t, "good")}, nil)
		check(t, h, "many")
	})
	t.Run("http", func(t *testing.T) {
		srv := hosttest.NewEchoServer()
		echo := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in hosttest.EchoIn
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil
		}
		schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
		for i := 1; i <= n; i++ {
			srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%05d", i), InputSchema: schema}, echo)
		}
		h := startFaultHost(t, []*config.Server{httpFault("many", hosttest.ServeHTTP(t, srv)), testServer(t, "good")}, nil, ownHTTP(t))
		check(t, h, "many")
	})
}

// leftOutWithWarning checks that server id is ready without tool, that a
// warning names the tool and the limit (saying "limit" and one of
// limitWords), and that its other tools are kept (want of them).
func leftOutWithWarning(t *testing.T, h *host.Host, id, tool string, want int, limitWords ...string) {
	t.Helper()
	st := statusOf(t, h, id)
	if st.State != host.StateReady {
		t.Fatalf("%s: %s (%s); want ready", id, st.State, st.Error)
	}
	if _, ok := h.Resolve(id + ":" + tool); ok {
		t.Errorf("tool %s is listed; want it left out", tool)
	}
	if st.Tools != want {
		t.Errorf("%s: %d tools, want the %d others kept", id, st.Tools, want)
	}
	t.Logf("%s: warnings %q", id, st.Warnings)
	if !slices.ContainsFunc(st.Warnings, func(w string) bool {
		return strings.Contains(w, `"`+tool+`"`) && strings.Contains(w, "limit") && containsAny(w, limitWords...)
	}) {
		t.Errorf("no warning names the tool %q and its limit (%s): %q", tool, strings.Join(limitWords, " or "), st.Warnings)
	}
}

// depthWords: one of them is in a warning or an error about nesting.
var depthWords = []string{"depth", "nest", "levels"}

// hugeSchema is an object schema of about size bytes of JSON: string
// properties with 1 KiB descriptions.
func hugeSchema(size int) json.RawMessage {
	desc := strings.Repeat("x", 1024)
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%05d":{"type":"string","description":%q}`, i, desc)
	}
	b.WriteString(`}}`)
	return b.Bytes()
}

// deepSchema nests depth levels of {"type":"object","properties":{"x":...}}
// around {"type":"string"}, as the test server's -deep-schema does.
func deepSchema(depth int) json.RawMessage {
	return json.RawMessage(strings.Repeat(`{"type":"object","properties":{"x":`, depth) + `{"type":"string"}` + strings.Repeat(`}}`, depth))
}

// deepToolMiddleware adds the tool deep and swaps a schema nested *depth
// levels into tools/list answers while depth is not 0 (go-sdk refuses to
// register a schema nested over 1000 levels).
func deepToolMiddleware(srv *mcp.Server, depth *atomic.Int64) mcp.Middleware {
	srv.AddTool(&mcp.Tool{Name: "deep", Description: "Has a deeply nested input schema; returns ok.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			list, ok := res.(*mcp.ListToolsResult)
			d := depth.Load()
			if err != nil || method != "tools/list" || !ok || d == 0 {
				return res, err
			}
			out := *list
			out.Tools = nil
			for _, tool := range list.Tools {
				if tool.Name == "deep" {
					deep := *tool
					deep.InputSchema = deepSchema(int(d))
					tool = &deep
				}
				out.Tools = append(out.Tools, tool)
			}
			return &out, nil
		}
	}
}

// checkModeratelyDeep: a schema nested 200 levels (401 levels of JSON,
// which go-sdk decodes) is over the host's limit of 100: the tool is left
// out with a warning and the server's other tools are kept and work.
func checkModeratelyDeep(t *testing.T, h *host.Host, id string, others int) {
	t.Helper()
	st := statusOf(t, h, id)
	if st.State != host.StateReady {
		t.Fatalf("%s: %s (%s); want ready", id, st.State, st.Error)
	}
	if _, ok := h.Resolve(id + ":deep"); ok {
		t.Fatalf("%s: the tool deep, whose schema nests 401 levels, was listed; want it left out", id)
	}
	leftOutWithWarning(t, h, id, "deep", others, depthWords...)
	echoWorks(t, h, id)
	echoWorks(t, h, "good")
}

// checkTooDeep: a tools/list answer nested deeper than go-sdk's decoder
// accepts fails its request alone with a clear error (naming the server,
// tools/list and the nesting): the server is not ready, the connection was
// not blamed, the other server works, and it comes back once fixed (fix),
// with the tools it then lists (want).
func checkTooDeep(t *testing.T, h *host.Host, id string, want int, fix func()) {
	t.Helper()
	st := statusOf(t, h, id)
	echoWorks(t, h, "good")
	if st.State == host.StateReady {
		t.Fatalf("%s: ready with %d tools; want its tools/list to fail", id, st.Tools)
	}
	if !strings.Contains(st.Error, `"`+id+`"`) || !strings.Contains(st.Error, "tools/list") || !containsAny(st.Error, depthWords...) {
		t.Errorf("%s: error %q; want one naming the server, tools/list and the nesting", id, st.Error)
	}
	if containsAny(st.Error, "connection lost", "connection closed") {
		t.Errorf("%s: error %q: the answer broke the connection; want only its request to fail", id, st.Error)
	}
	fix()
	waitState(t, h, id, host.StateReady)
	if got := statusOf(t, h, id).Tools; got != want {
		t.Errorf("%s: %d tools after the fix, want %d", id, got, want)
	}
	echoWorks(t, h, id)
}

// Row 14: a 5 MB and a deeply nested tool schema. A tool whose schema is
// over 1 MiB or nested deeper than the limit is left out with a warning in
// ServerStatus.Warnings naming the tool and the limit, and the server's
// other tools are kept; a message nested beyond go-sdk's decoder fails
// only its request with a clear error.
func TestFaultHugeAndDeepSchemas(t *testing.T) {
	// The test server's tools without the flags, for "the others are kept".
	baseline := func(t *testing.T, h *host.Host) int {
		t.Helper()
		return statusOf(t, h, "good").Tools
	}
	t.Run("stdio", func(t *testing.T) {
		t.Run("huge-5MB", func(t *testing.T) {
			h := startFaultHost(t, []*config.Server{stdioFault(t, "schemas", "-huge-schema", "5000000"), testServer(t, "good")}, nil)
			leftOutWithWarning(t, h, "schemas", "huge", baseline(t, h), "MiB", "1048576")
			echoWorks(t, h, "schemas")
			echoWorks(t, h, "good")
		})
		t.Run("deep-200", func(t *testing.T) {
			h := startFaultHost(t, []*config.Server{stdioFault(t, "schemas", "-deep-schema", "200"), testServer(t, "good")}, nil)
			checkModeratelyDeep(t, h, "schemas", baseline(t, h))
		})
		t.Run("deep-600", func(t *testing.T) {
			h := startFaultHost(t, []*config.Server{stdioFault(t, "schemas", "-deep-schema", "600"), testServer(t, "good")}, nil)
			checkTooDeep(t, h, "schemas", baseline(t, h), func() {
				change, err := h.SetServers(testContext(t), &config.Config{Servers: []*config.Server{stdioFault(t, "schemas"), testServer(t, "good")}})
				if err != nil || len(change.Changed) != 1 {
					t.Errorf("SetServers: %+v, %v", change, err)
				}
			})
		})
		t.Run("deep-result", func(t *testing.T) {
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			sc := &config.Server{ID: "deeper", Transport: config.TransportStdio, Command: self, Env: map[string]string{deepResultEnv: "1"},
				Enabled: true, StartupTimeout: bound, RequestTimeout: bound, Reconnect: faultReconnect}
			var ev eventLog
			h := startFaultHost(t, []*config.Server{sc, testServer(t, "good")}, &ev)
			checkDeepResult(t, h, &ev, "deeper")
		})
	})
	t.Run("http", func(t *testing.T) {
		// The HTTP server's tools: echo, add, big.
		const others = 3
		t.Run("huge-5MB", func(t *testing.T) {
			srv := hosttest.NewEchoServer()
			srv.AddTool(&mcp.Tool{Name: "huge", InputSchema: hugeSchema(5000000)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
			h := startFaultHost(t, []*config.Server{httpFault("schemas", hosttest.ServeHTTP(t, srv)), testServer(t, "good")}, nil, ownHTTP(t))
			leftOutWithWarning(t, h, "schemas", "huge", others, "MiB", "1048576")
			echoWorks(t, h, "schemas")
			echoWorks(t, h, "good")
		})
		deepServer := func(t *testing.T, depth int64) (*host.Host, *atomic.Int64) {
			srv := hosttest.NewEchoServer()
			var d atomic.Int64
			d.Store(depth)
			srv.AddReceivingMiddleware(deepToolMiddleware(srv, &d))
			h := startFaultHost(t, []*config.Server{httpFault("schemas", hosttest.ServeHTTP(t, srv)), testServer(t, "good")}, nil, ownHTTP(t))
			return h, &d
		}
		t.Run("deep-200", func(t *testing.T) {
			h, _ := deepServer(t, 200)
			checkModeratelyDeep(t, h, "schemas", others)
		})
		t.Run("deep-600", func(t *testing.T) {
			h, d := deepServer(t, 600)
			// The fix keeps the tool deep, with a shallow schema.
			checkTooDeep(t, h, "schemas", others+1, func() { d.Store(0) })
		})
		t.Run("deep-result", func(t *testing.T) {
			var sessions sessionCount
			u := hosttest.ServeHTTP(t, newFaultServer(t).Server, sessions.middleware())
			var ev eventLog
			h := startFaultHost(t, []*config.Server{httpFault("deeper", u), testServer(t, "good")}, &ev, ownHTTP(t))
			checkDeepResult(t, h, &ev, "deeper")
			if n := sessions.n(); n != 1 {
				t.Errorf("%d sessions, want 1: the answer broke the session", n)
			}
		})
	})
}

// checkDeepResult: a call whose result nests deeper than go-sdk's decoder
// accepts fails alone, with a clear error; the server stays ready on the
// same session.
func checkDeepResult(t *testing.T, h *host.Host, ev *eventLog, id string) {
	t.Helper()
	mark := ev.mark()
	res, err := callWithin(t, h, id+":deepresult", map[string]any{"depth": 20}, bound)
	if err != nil || hosttest.Text(res) != "deep" {
		t.Fatalf("a result nested 20 levels: %v", err)
	}
	_, err = callWithin(t, h, id+":deepresult", map[string]any{"depth": 1200}, bound)
	wantErr(t, err, "a result nested 1200 levels", `"`+id+`"`, `"deepresult"`)
	if err != nil && !containsAny(err.Error(), "depth", "nest") {
		t.Errorf("error %q does not say the answer was nested too deep", err)
	}
	falseLoss(t, ev, mark, id, err)
	echoWorks(t, h, id)
	echoWorks(t, h, "good")
	if st := statusOf(t, h, id); st.State != host.StateReady {
		t.Errorf("%s: %s (%s)", id, st.State, st.Error)
	}
	noReconnects(t, ev, mark, id)
}

// deepResultEnv makes the test binary, started with it set, a stdio server
// with the tools of hosttest.NewEchoServer and deepresult. (init, not
// TestMain: it runs before TestMain, which does not know this role.)
const deepResultEnv = "MCPHOST_FAULT_TEST_DEEP_RESULT"

func init() {
	if os.Getenv(deepResultEnv) == "" {
		return
	}
	srv := hosttest.NewEchoServer()
	addDeepResultTool(srv)
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil && err != io.EOF {
		fmt.Fprintln(os.Stderr, "deep result server:", err)
	}
	os.Exit(0)
}

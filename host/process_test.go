package host_test

// Process-level behaviour through the host, with the Go stdio test server
// (hosttest.BuildTestServer) and small HTTP servers: crashes, garbage on
// stdout, hung servers, servers that mishandle the 2026-07-28
// server/discover probe, shutdown of process groups, message size limits,
// env and cwd. Deadlines are failure bounds only.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
)

// roleEnv makes the test binary run as a stdio MCP server instead of the
// tests (see TestMain): the value says how it misbehaves.
const roleEnv = "MCPHOST_HOST_TEST_ROLE"

// Roles of the test binary as a stdio server.
const (
	roleDropDiscover  = "drop-discover"  // never answers server/discover
	roleCloseDiscover = "close-discover" // exits when it reads server/discover
)

func TestMain(m *testing.M) {
	if role := os.Getenv(roleEnv); role != "" {
		os.Exit(runRole(role))
	}
	code := m.Run()
	hosttest.CleanupTestServer()
	os.Exit(code)
}

// runRole serves hosttest.NewEchoServer over stdio, misbehaving on
// server/discover as role says.
func runRole(role string) int {
	if role != roleDropDiscover && role != roleCloseDiscover {
		fmt.Fprintf(os.Stderr, "unknown %s %q\n", roleEnv, role)
		return 2
	}
	err := hosttest.NewEchoServer().Run(context.Background(), &discoverFilter{Transport: &mcp.StdioTransport{}, role: role})
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "role server:", err)
	}
	return 0
}

// discoverFilter is a server-side transport that drops server/discover
// requests (roleDropDiscover) or exits on them (roleCloseDiscover) and
// passes everything else through.
type discoverFilter struct {
	mcp.Transport
	role string
}

func (f *discoverFilter) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := f.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &discoverFilterConn{Connection: c, role: f.role}, nil
}

type discoverFilterConn struct {
	mcp.Connection
	role string
}

func (c *discoverFilterConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.Method == "server/discover" {
			fmt.Fprintf(os.Stderr, "role server: %s: got server/discover\n", c.role)
			if c.role == roleCloseDiscover {
				os.Exit(0)
			}
			continue
		}
		return msg, err
	}
}

// testServer returns the config of the Go stdio test server with flags.
func testServer(t *testing.T, id string, flags ...string) *config.Server {
	t.Helper()
	return &config.Server{
		ID:             id,
		Transport:      config.TransportStdio,
		Command:        hosttest.BuildTestServer(t),
		Args:           flags,
		Enabled:        true,
		StartupTimeout: bound,
		RequestTimeout: bound,
	}
}

// startProcHost starts a host with these servers and closes it at the end.
func startProcHost(t *testing.T, servers []*config.Server, opts ...host.Option) *host.Host {
	t.Helper()
	return startHost(t, &config.Config{Servers: servers}, append([]host.Option{testLogger(t)}, opts...)...)
}

// echoWorks checks that server id answers an echo call through the host.
func echoWorks(t *testing.T, h *host.Host, id string) {
	t.Helper()
	res, err := h.CallTool(testContext(t), id+":echo", map[string]any{"text": "still here"})
	if err != nil || res.IsError || hosttest.Text(res) != "still here" {
		t.Fatalf("echo on %q: %v %+v", id, err, res)
	}
}

// waitState polls until server id reaches state (bounded).
func waitState(t *testing.T, h *host.Host, id string, state host.State) host.ServerStatus {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		st := statusOf(t, h, id)
		if st.State == state {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %q: state %s (%s), want %s", id, st.State, st.Error, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProcessCrashAtStart(t *testing.T) {
	h := startProcHost(t, []*config.Server{
		testServer(t, "crasher", "-crash-at-start"),
		testServer(t, "good"),
	})
	// It keeps being retried, with backoff.
	st := statusOf(t, h, "crasher")
	if st.State != host.StateReconnecting || st.Attempt < 1 {
		t.Fatalf("crasher: state %s, attempt %d, want reconnecting", st.State, st.Attempt)
	}
	if !strings.Contains(st.Error, `"crasher"`) {
		t.Errorf("error does not name the server: %q", st.Error)
	}
	if !strings.Contains(strings.Join(st.Stderr, "\n"), "crashing at start as asked") {
		t.Errorf("stderr lines missing from status: %q", st.Stderr)
	}
	t.Logf("crasher: %s; stderr %q", st.Error, st.Stderr)
	if st := statusOf(t, h, "good"); st.State != host.StateReady {
		t.Fatalf("good: state %s (%s)", st.State, st.Error)
	}
	echoWorks(t, h, "good")
	// The call's error says why the tool is missing.
	if _, err := h.CallTool(testContext(t), "crasher:echo", nil); err == nil || !strings.Contains(err.Error(), "crasher (reconnecting: connect:") ||
		!strings.Contains(err.Error(), "exited with status 1") {
		t.Errorf("call to the crashed server: %v", err)
	}
}

func TestProcessCrashMidCall(t *testing.T) {
	h := startProcHost(t, []*config.Server{
		testServer(t, "crashy"),
		testServer(t, "good"),
	})
	_, err := h.CallTool(testContext(t), "crashy:crash", nil)
	if err == nil {
		t.Fatal("a call whose server exited succeeded")
	}
	t.Logf("crash mid-call: %v", err)
	if !strings.Contains(err.Error(), `"crashy"`) || !strings.Contains(err.Error(), "status 3") {
		t.Errorf("error %q does not name the server and its exit status", err)
	}
	// The supervisor starts it again; its tools stayed listed meanwhile,
	// and a call made now waits for the new process.
	if _, ok := h.Resolve("crashy:echo"); !ok {
		t.Error("the tools of a reconnecting server left the registry")
	}
	echoWorks(t, h, "crashy")
	st := waitState(t, h, "crashy", host.StateReady)
	if st.Tools == 0 {
		t.Errorf("no tools after the reconnect: %+v", st)
	}
	echoWorks(t, h, "good")
}

func TestProcessGarbageOnStdout(t *testing.T) {
	h := startProcHost(t, []*config.Server{
		testServer(t, "noisy", "-garbage"),
		testServer(t, "good"),
	})
	// The test server prints its non-JSON line before answering the first
	// request after the handshake, which here is the host's tools/list.
	st := statusOf(t, h, "noisy")
	if st.State != host.StateReconnecting {
		t.Fatalf("noisy: state %s, want reconnecting", st.State)
	}
	t.Logf("garbage: %s", st.Error)
	if !strings.Contains(st.Error, `"noisy"`) || !strings.Contains(strings.ToLower(st.Error), "json") {
		t.Errorf("error %q does not name the server and say the output was not JSON", st.Error)
	}
	echoWorks(t, h, "good")
}

// TestProcessHungServerDoesNotDelayOthers: a Streamable HTTP endpoint that
// never answers fails with its own startup_timeout while the other server
// is ready. Start should return after about startup_timeout; it can take up
// to 5 s more, because go-sdk's Connect, failing, closes the session and
// waits for the notifications/cancelled POST it sends to the hung endpoint
// (notifyCancellationTimeout), hence the generous bound.
func TestProcessHungServerDoesNotDelayOthers(t *testing.T) {
	stop := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() {
		close(stop)
		hung.CloseClientConnections()
		hung.Close()
	})
	cfg := &config.Config{Servers: []*config.Server{
		{ID: "hung", Transport: config.TransportHTTP, URL: hung.URL + "/mcp", Enabled: true, StartupTimeout: time.Second},
		testServer(t, "good"),
	}}
	h, err := host.New(cfg, testLogger(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	start := time.Now()
	if err := h.Start(testContext(t)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("Start took %s with a 1s startup_timeout on the hung server", took)
	}
	t.Logf("Start took %s", time.Since(start).Round(time.Millisecond))
	st := statusOf(t, h, "hung")
	if st.State != host.StateReconnecting || !strings.Contains(st.Error, "startup_timeout") || !strings.Contains(st.Error, `"hung"`) {
		t.Errorf("hung: state %s, error %q; want an error naming the server and startup_timeout", st.State, st.Error)
	}
	if st := statusOf(t, h, "good"); st.State != host.StateReady {
		t.Fatalf("good: state %s (%s)", st.State, st.Error)
	}
	echoWorks(t, h, "good")
}

// onMethod makes a Streamable HTTP server hand the POSTs of JSON-RPC
// method names to do instead of serving them. Other requests pass.
func onMethod(match func(method string) bool, do func(w http.ResponseWriter, r *http.Request)) hosttest.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				next.ServeHTTP(w, r)
				return
			}
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &msg) != nil || !match(msg.Method) {
				next.ServeHTTP(w, r)
				return
			}
			do(w, r)
		})
	}
}

// discoverMiddleware makes a Streamable HTTP server misbehave on
// server/discover: "drop" never answers the POST, "close" closes the TCP
// connection without an answer.
func discoverMiddleware(mode string) hosttest.Middleware {
	return onMethod(func(m string) bool { return m == "server/discover" }, func(w http.ResponseWriter, r *http.Request) {
		switch mode {
		case "drop":
			<-r.Context().Done()
		case "close":
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
		}
	})
}

// TestProcessDiscoverProbe: servers that ignore the 2026-07-28
// server/discover probe, or close the connection on it, still connect (with
// initialize, at 2025-11-25 or older) and serve calls.
func TestProcessDiscoverProbe(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	roleServer := func(role string) *config.Server {
		return &config.Server{
			ID: "odd", Transport: config.TransportStdio, Command: self,
			Env: map[string]string{roleEnv: role}, Enabled: true, StartupTimeout: bound,
		}
	}
	for _, tc := range []struct {
		name string
		srv  func(t *testing.T) *config.Server
	}{
		{"http-ignores", func(t *testing.T) *config.Server {
			u := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), discoverMiddleware("drop"))
			return &config.Server{ID: "odd", Transport: config.TransportHTTP, URL: u, Enabled: true, StartupTimeout: bound}
		}},
		{"http-closes", func(t *testing.T) *config.Server {
			u := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), discoverMiddleware("close"))
			return &config.Server{ID: "odd", Transport: config.TransportHTTP, URL: u, Enabled: true, StartupTimeout: bound}
		}},
		{"stdio-ignores", func(*testing.T) *config.Server { return roleServer(roleDropDiscover) }},
		{"stdio-closes", func(*testing.T) *config.Server { return roleServer(roleCloseDiscover) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := &config.Config{Servers: []*config.Server{tc.srv(t), testServer(t, "good")}}
			h, err := host.New(cfg, testLogger(t), host.WithDiscoverProbeTimeout(500*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), bound)
				defer cancel()
				if err := h.Close(ctx); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			start := time.Now()
			if err := h.Start(testContext(t)); err != nil {
				t.Fatalf("Start: %v", err)
			}
			took := time.Since(start)
			if took > 15*time.Second {
				t.Errorf("Start took %s with a 500ms probe timeout", took)
			}
			st := statusOf(t, h, "odd")
			if st.State != host.StateReady {
				t.Fatalf("odd: state %s (%s), stderr %q", st.State, st.Error, st.Stderr)
			}
			if st.ProtocolVersion == "" || st.ProtocolVersion > "2025-11-25" {
				t.Errorf("protocol %q, want initialize at 2025-11-25 or older", st.ProtocolVersion)
			}
			t.Logf("%s: protocol %s, Start took %s", tc.name, st.ProtocolVersion, took.Round(time.Millisecond))
			echoWorks(t, h, "odd")
			if st := statusOf(t, h, "good"); st.State != host.StateReady {
				t.Errorf("good: %s (%s)", st.State, st.Error)
			}
		})
	}
}

// TestProcessCloseLeavesNoProcess: Close stops a server that ignores stdin
// EOF (and SIGTERM) together with the grandchild it spawned.
func TestProcessCloseLeavesNoProcess(t *testing.T) {
	testenv.CheckGoroutines(t) // after both subtests
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"ignores-stdin-eof", []string{"-ignore-stdin-eof"}},
		{"ignores-sigterm", []string{"-ignore-stdin-eof", "-ignore-sigterm"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "child.pid")
			flags := append([]string{"-spawn-child", "-child-pid-file", pidFile}, tc.flags...)
			h, err := host.New(&config.Config{Servers: []*config.Server{testServer(t, "spawner", flags...)}}, testLogger(t))
			if err != nil {
				t.Fatal(err)
			}
			ctx := testContext(t)
			closed := false
			t.Cleanup(func() {
				if !closed {
					h.Close(context.Background())
				}
			})
			if err := h.Start(ctx); err != nil {
				t.Fatal(err)
			}
			if st := statusOf(t, h, "spawner"); st.State != host.StateReady {
				t.Fatalf("spawner: %s (%s)", st.State, st.Error)
			}
			res, err := h.CallTool(ctx, "spawner:pid", nil)
			if err != nil {
				t.Fatal(err)
			}
			serverPID, err := strconv.Atoi(hosttest.Text(res))
			if err != nil {
				t.Fatalf("pid tool: %q", hosttest.Text(res))
			}
			data, err := os.ReadFile(pidFile) // written before the server starts serving
			if err != nil {
				t.Fatal(err)
			}
			childPID, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("child pid file: %q", data)
			}
			if !testenv.ProcessAlive(serverPID) || !testenv.ProcessAlive(childPID) {
				t.Fatalf("server %d or child %d not running before Close", serverPID, childPID)
			}

			closed = true
			if err := h.Close(ctx); err != nil {
				t.Fatalf("Close: %v", err)
			}
			deadline := time.Now().Add(bound)
			for testenv.ProcessAlive(serverPID) || testenv.ProcessAlive(childPID) {
				if time.Now().After(deadline) {
					t.Fatalf("after Close: server %d alive %v, child %d alive %v", serverPID, testenv.ProcessAlive(serverPID), childPID, testenv.ProcessAlive(childPID))
				}
				time.Sleep(20 * time.Millisecond)
			}
			if st := statusOf(t, h, "spawner"); st.State != host.StateClosed {
				t.Errorf("state after Close: %s", st.State)
			}
		})
	}
}

func TestProcessMaxMessageBytes(t *testing.T) {
	limited := testServer(t, "limited")
	limited.MaxMessageBytes = 64 << 10
	h := startProcHost(t, []*config.Server{limited, testServer(t, "good")})

	_, err := h.CallTool(testContext(t), "limited:big", map[string]any{"n": 256 << 10})
	if err == nil || !strings.Contains(err.Error(), "max_message_bytes") {
		t.Fatalf("big result over the limit: err = %v, want one mentioning max_message_bytes", err)
	}
	if !strings.Contains(err.Error(), "limited") {
		t.Errorf("error %q does not name the server", err)
	}
	t.Logf("over the limit: %v", err)
	// Under the limit, on the same server and the same session.
	res, err := h.CallTool(testContext(t), "limited:big", map[string]any{"n": 1000})
	if err != nil || len(hosttest.Text(res)) != 1000 {
		t.Fatalf("big result under the limit: %v", err)
	}
	echoWorks(t, h, "limited")
	echoWorks(t, h, "good")
	res, err = h.CallTool(testContext(t), "good:big", map[string]any{"n": 256 << 10})
	if err != nil || len(hosttest.Text(res)) != 256<<10 {
		t.Fatalf("big result on a server with the default limit: %v", err)
	}
}

// TestProcessEnvAndCwd: a stdio server's env is merged over the host's
// environment and its cwd is honoured.
func TestProcessEnvAndCwd(t *testing.T) {
	t.Setenv("MCPHOST_TEST_INHERITED", "from-host")
	t.Setenv("MCPHOST_TEST_OVERRIDDEN", "from-host")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := testServer(t, "envy")
	srv.Env = map[string]string{"MCPHOST_TEST_OVERRIDDEN": "from-config", "MCPHOST_TEST_ADDED": "added"}
	srv.Cwd = dir
	h := startProcHost(t, []*config.Server{srv})
	for name, want := range map[string]string{
		"MCPHOST_TEST_INHERITED":  "from-host",
		"MCPHOST_TEST_OVERRIDDEN": "from-config",
		"MCPHOST_TEST_ADDED":      "added",
	} {
		res, err := h.CallTool(testContext(t), "envy:env", map[string]any{"name": name})
		if err != nil {
			t.Fatal(err)
		}
		if got := hosttest.Text(res); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	res, err := h.CallTool(testContext(t), "envy:cwd", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := hosttest.Text(res); got != dir {
		t.Errorf("cwd = %q, want %q", got, dir)
	}
}

// TestStartListsEveryReadyServer: after Start, Tools has the tools of every
// ready server. Servers connect in parallel and each rebuilds the registry;
// unserialised rebuilds could store an older result last and lose a
// server's tools (with 8 servers, about once in 100 starts before the fix).
func TestStartListsEveryReadyServer(t *testing.T) {
	const servers, starts = 8, 150
	for i := range starts {
		var opts []host.Option
		for j := range servers {
			id := fmt.Sprintf("s%d", j)
			opts = append(opts, host.WithInProcessServer(id, newToolServer(id, "echo")))
		}
		h, err := host.New(&config.Config{}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Start(testContext(t)); err != nil {
			t.Fatal(err)
		}
		var ready int
		for _, st := range h.Status() {
			if st.State == host.StateReady {
				ready++
			}
		}
		n := len(h.Tools())
		if err := h.Close(testContext(t)); err != nil {
			t.Fatal(err)
		}
		if ready != servers || n != servers {
			t.Fatalf("start %d: %d servers ready, %d tools listed; want %d and %d", i, ready, n, servers, servers)
		}
	}
}

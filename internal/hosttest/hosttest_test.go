package hosttest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/jsonscan"
	"github.com/mcphost/mcphost/internal/testenv"
	"github.com/mcphost/mcphost/transports"
)

func TestMain(m *testing.M) {
	code := m.Run()
	hosttest.CleanupTestServer()
	os.Exit(code)
}

func echo(t *testing.T, tr mcp.Transport) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "hosttest", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "hi" {
		t.Errorf("echo = %q", got)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err != nil {
		t.Fatalf("add: %v", err)
	}
	if sc, _ := res.StructuredContent.(map[string]any); sc["sum"] != 3.0 {
		t.Errorf("add = %#v", res.StructuredContent)
	}
}

func TestBuildTestServer(t *testing.T) {
	bin := hosttest.BuildTestServer(t)
	if bin != hosttest.BuildTestServer(t) {
		t.Error("built twice")
	}
	// Plain go-sdk command transport: the binary is an ordinary MCP server.
	echo(t, &mcp.CommandTransport{Command: exec.Command(bin)})
}

func TestEchoServerInMemory(t *testing.T) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := hosttest.NewEchoServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	echo(t, ct)
}

func TestServeHelpers(t *testing.T) {
	srv := hosttest.NewEchoServer()
	t.Run("http", func(t *testing.T) {
		echo(t, &mcp.StreamableClientTransport{Endpoint: hosttest.ServeHTTP(t, srv)})
	})
	t.Run("sse", func(t *testing.T) {
		echo(t, &mcp.SSEClientTransport{Endpoint: hosttest.ServeSSE(t, srv)})
	})
	t.Run("websocket", func(t *testing.T) {
		tr, err := transports.New(transports.Spec{ID: "ws", Kind: transports.KindWebSocket, URL: hosttest.ServeWebSocket(t, srv)}, transports.Options{})
		if err != nil {
			t.Fatal(err)
		}
		echo(t, tr)
	})
}

// Fault servers. No test below depends on timing to pass: a "never
// answered" check is a call still blocked when a short deadline ends, a
// delay is checked as a lower bound, and every wait is bounded by long.

// long bounds every wait that should end.
const long = 30 * time.Second

// legacy makes a go-sdk client use the initialize handshake (no
// server/discover) and sessions over Streamable HTTP.
var legacy = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

func newClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "hosttest", Version: "1"}, opts)
}

func longContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), long)
	t.Cleanup(cancel)
	return ctx
}

// connect connects a client to tr, closing the session when the test ends.
func connect(t *testing.T, c *mcp.Client, tr mcp.Transport, opts *mcp.ClientSessionOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := c.Connect(longContext(t), tr, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) == 0 {
		return "", fmt.Errorf("%s: error result %+v", tool, res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("%s: content %T", tool, res.Content[0])
	}
	return tc.Text, nil
}

func mustEcho(t *testing.T, cs *mcp.ClientSession, tool string) {
	t.Helper()
	got, err := callText(longContext(t), cs, tool, map[string]any{"text": "hi"})
	if err != nil || got != "hi" {
		t.Fatalf("%s = %q, %v", tool, got, err)
	}
}

// command returns the test server command with flags, its stderr captured.
func command(t *testing.T, flags ...string) (*exec.Cmd, *testenv.Buffer) {
	cmd := exec.Command(hosttest.BuildTestServer(t), flags...)
	stderr := new(testenv.Buffer)
	cmd.Stderr = stderr
	return cmd, stderr
}

// exitedByItself reports whether the process of cmd, waited for, exited 0
// rather than being signalled.
func exitedByItself(t *testing.T, cmd *exec.Cmd, stderr *testenv.Buffer) {
	t.Helper()
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("server did not exit by itself with status 0: %v\nstderr:\n%s", cmd.ProcessState, stderr)
	}
}

// blockedConnect checks that connecting to the server with flags is still
// blocked once the server has said on stderr that it holds the request
// named by holding, and that the server then exits by itself on stdin EOF
// (Connect closes the transport when it fails).
func blockedConnect(t *testing.T, opts *mcp.ClientSessionOptions, holding string, flags ...string) {
	t.Helper()
	cmd, stderr := command(t, flags...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	returned := make(chan struct{})
	go func() {
		defer cancel()
		for deadline := time.Now().Add(long); time.Now().Before(deadline); {
			if strings.Contains(stderr.String(), "holding "+holding) {
				return
			}
			select {
			case <-returned:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	cs, err := newClient(nil).Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: long}, opts)
	close(returned)
	if err == nil {
		cs.Close()
		t.Fatal("connect succeeded")
	}
	if ctx.Err() == nil {
		t.Fatalf("connect failed by itself: %v\nstderr:\n%s", err, stderr)
	}
	if !strings.Contains(stderr.String(), "holding "+holding) {
		t.Fatalf("the server did not hold %s in %v\nstderr:\n%s", holding, long, stderr)
	}
	exitedByItself(t, cmd, stderr)
}

// rawServer is the test server driven over raw JSON-RPC lines.
type rawServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	stderr *testenv.Buffer
	stdin  io.WriteCloser
	lines  chan []byte // stdout, a line at a time; closed at EOF
	wait   func() error
}

func startRaw(t *testing.T, flags ...string) *rawServer {
	t.Helper()
	cmd, stderr := command(t, flags...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &rawServer{t: t, cmd: cmd, stderr: stderr, stdin: stdin, lines: make(chan []byte, 16)}
	go func() {
		defer close(s.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			s.lines <- bytes.Clone(sc.Bytes())
		}
	}()
	s.wait = sync.OnceValue(func() error {
		// Wait closes stdout: read it all first.
		for range s.lines {
		}
		return cmd.Wait()
	})
	t.Cleanup(func() {
		cmd.Process.Kill()
		s.wait()
	})
	return s
}

// waitStderr waits until the server has written text on stderr.
func (s *rawServer) waitStderr(text string) {
	s.t.Helper()
	for deadline := time.Now().Add(long); !strings.Contains(s.stderr.String(), text); {
		if time.Now().After(deadline) {
			s.t.Fatalf("no %q on stderr in %v:\n%s", text, long, s.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *rawServer) send(msg string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, msg+"\n"); err != nil {
		s.t.Fatalf("send: %v", err)
	}
}

// rawMessage is a JSON-RPC message as read by the tests.
type rawMessage struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	line   []byte
}

func (s *rawServer) next() (rawMessage, bool) {
	s.t.Helper()
	select {
	case line, ok := <-s.lines:
		if !ok {
			return rawMessage{}, false
		}
		m := rawMessage{line: line}
		if err := json.Unmarshal(line, &m); err != nil {
			s.t.Fatalf("stdout line %q: %v", line, err)
		}
		return m, true
	case <-time.After(long):
		s.t.Fatalf("no message in %v\nstderr:\n%s", long, s.stderr)
		return rawMessage{}, false
	}
}

// response returns the answer to request id, failing on any other answer.
func (s *rawServer) response(id int) rawMessage {
	s.t.Helper()
	for {
		m, ok := s.next()
		if !ok {
			s.t.Fatalf("stdout ended before answer %d\nstderr:\n%s", id, s.stderr)
		}
		if m.Method != "" { // a notification
			continue
		}
		if m.ID == nil || *m.ID != id {
			s.t.Fatalf("got %s, want the answer to %d", m.line, id)
		}
		return m
	}
}

// finish closes stdin and returns the messages written until the process
// exited, and how it exited.
func (s *rawServer) finish() ([]rawMessage, error) {
	s.t.Helper()
	s.stdin.Close()
	var rest []rawMessage
	for {
		m, ok := s.next()
		if !ok {
			break
		}
		rest = append(rest, m)
	}
	return rest, s.wait()
}

const rawInitialize = `{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestCrashAtStartTimes(t *testing.T) {
	state := filepath.Join(t.TempDir(), "starts")
	flags := []string{"-crash-at-start-times", "2", "-state-file", state}
	starts := func() string {
		data, err := os.ReadFile(state)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(data))
	}
	for i := 1; i <= 2; i++ {
		cmd, stderr := command(t, flags...)
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Fatalf("start %d: %v, want exit status 1", i, err)
		}
		if !strings.Contains(stderr.String(), "crashing at start") {
			t.Errorf("start %d: stderr %q", i, stderr)
		}
		if got := starts(); got != strconv.Itoa(i) {
			t.Errorf("after start %d: state file says %q", i, got)
		}
	}
	// Third start: an ordinary server.
	cmd, _ := command(t, flags...)
	cs := connect(t, newClient(nil), &mcp.CommandTransport{Command: cmd}, nil)
	mustEcho(t, cs, "echo")
	if got := starts(); got != "3" {
		t.Errorf("state file says %q after 3 starts", got)
	}

	t.Run("a client sees a failed connect", func(t *testing.T) {
		state := filepath.Join(t.TempDir(), "starts")
		cmd, _ := command(t, "-crash-at-start-times", "1", "-state-file", state)
		if cs, err := newClient(nil).Connect(longContext(t), &mcp.CommandTransport{Command: cmd}, nil); err == nil {
			cs.Close()
			t.Fatal("connect succeeded")
		}
	})
	t.Run("needs a state file", func(t *testing.T) {
		cmd, _ := command(t, "-crash-at-start-times", "1")
		var ee *exec.ExitError
		if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Fatalf("%v, want exit status 2", err)
		}
	})
}

func TestHangInitialize(t *testing.T) {
	t.Run("discover", func(t *testing.T) {
		// The default go-sdk client starts with server/discover.
		blockedConnect(t, nil, "server/discover", "-hang-initialize")
	})
	t.Run("initialize", func(t *testing.T) {
		blockedConnect(t, legacy, "initialize", "-hang-initialize")
	})
	t.Run("raw", func(t *testing.T) {
		s := startRaw(t, "-hang-initialize")
		s.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if m := s.response(1); m.Error != nil {
			t.Fatalf("ping: %s", m.line)
		}
		s.send(fmt.Sprintf(rawInitialize, 2))
		// Queued behind initialize: never answered either.
		s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		// (Closing stdin before the server holds initialize would have
		// it dropped unseen.)
		s.waitStderr("holding initialize")
		rest, err := s.finish()
		if err != nil {
			t.Fatalf("exit: %v\nstderr:\n%s", err, s.stderr)
		}
		for _, m := range rest {
			t.Errorf("answered after initialize: %s", m.line)
		}
		if !strings.Contains(s.stderr.String(), "stdin closed with initialize unanswered") {
			t.Errorf("stderr:\n%s", s.stderr)
		}
	})
}

func TestIgnoreDiscover(t *testing.T) {
	blockedConnect(t, nil, "server/discover", "-ignore-discover")
	// initialize is answered.
	cmd, _ := command(t, "-ignore-discover")
	cs := connect(t, newClient(nil), &mcp.CommandTransport{Command: cmd}, legacy)
	mustEcho(t, cs, "echo")
}

func TestDelay(t *testing.T) {
	t.Run("answers late", func(t *testing.T) {
		const d = 200 * time.Millisecond
		cmd, _ := command(t, "-delay", d.String())
		cs := connect(t, newClient(nil), &mcp.CommandTransport{Command: cmd}, legacy)
		start := time.Now()
		mustEcho(t, cs, "echo")
		if took := time.Since(start); took < d {
			t.Errorf("echo answered in %v, before the %v delay", took, d)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		s := startRaw(t, "-delay", "1h")
		s.send(fmt.Sprintf(rawInitialize, 1))
		s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}}`)
		if m := s.response(1); m.Error == nil {
			t.Errorf("cancelled initialize answered %s", m.line)
		}
		if _, err := s.finish(); err != nil {
			t.Errorf("exit: %v", err)
		}
	})
	t.Run("stdin EOF", func(t *testing.T) {
		s := startRaw(t, "-delay", "1h")
		s.send(fmt.Sprintf(rawInitialize, 1))
		rest, err := s.finish()
		if err != nil {
			t.Errorf("exit: %v\nstderr:\n%s", err, s.stderr)
		}
		for _, m := range rest {
			t.Errorf("answered: %s", m.line)
		}
	})
}

func TestManyTools(t *testing.T) {
	const n = 10000
	cmd, _ := command(t, "-tools", strconv.Itoa(n))
	cs := connect(t, newClient(nil), &mcp.CommandTransport{Command: cmd}, nil)
	count := 0
	for tool, err := range cs.Tools(longContext(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(tool.Name, "t") && len(tool.Name) == 6 {
			count++
		}
	}
	if count != n {
		t.Errorf("listed %d extra tools, want %d", count, n)
	}
	mustEcho(t, cs, "t00001")
	mustEcho(t, cs, "t10000")
	mustEcho(t, cs, "echo")
}

// listTool returns the tool name from a tools/list.
func listTool(t *testing.T, cs *mcp.ClientSession, name string) *mcp.Tool {
	t.Helper()
	for tool, err := range cs.Tools(longContext(t), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func TestHugeSchema(t *testing.T) {
	for _, size := range []int{100, 5000, 1 << 20} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			cmd, _ := command(t, "-huge-schema", strconv.Itoa(size))
			cs := connect(t, newClient(nil), &mcp.CommandTransport{Command: cmd}, nil)
			tool := listTool(t, cs, "huge")
			data, err := json.Marshal(tool.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) != size {
				t.Errorf("schema of %d bytes, want %d", len(data), size)
			}
			var schema struct {
				Type       string `json:"type"`
				Properties map[string]struct {
					Type        string `json:"type"`
					Description string `json:"description"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(data, &schema); err != nil || schema.Type != "object" || len(schema.Properties) == 0 {
				t.Errorf("schema %.200s: %v", data, err)
			}
			if got, err := callText(longContext(t), cs, "huge", map[string]any{"p00000": "x"}); err != nil || got != "ok" {
				t.Errorf("huge = %q, %v", got, err)
			}
		})
	}
}

func TestDeepSchema(t *testing.T) {
	t.Run("go-sdk client", func(t *testing.T) {
		const depth = 20
		cmd, _ := command(t, "-deep-schema", strconv.Itoa(depth))
		cs := connect(t, newClient(nil), &mcp.CommandTransport{Command: cmd}, nil)
		schema, _ := listTool(t, cs, "deep").InputSchema.(map[string]any)
		levels := 0
		for schema["type"] == "object" {
			levels++
			props, _ := schema["properties"].(map[string]any)
			schema, _ = props["x"].(map[string]any)
		}
		if levels != depth || schema["type"] != "string" {
			t.Errorf("%d object levels around %v, want %d around a string", levels, schema, depth)
		}
		if got, err := callText(longContext(t), cs, "deep", nil); err != nil || got != "ok" {
			t.Errorf("deep = %q, %v", got, err)
		}
	})
	t.Run("deepest", func(t *testing.T) {
		const depth = 4990
		s := startRaw(t, "-deep-schema", strconv.Itoa(depth))
		s.send(fmt.Sprintf(rawInitialize, 1))
		s.response(1)
		s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		m := s.response(2)
		if !json.Valid(m.line) {
			t.Fatal("tools/list answer is not valid JSON")
		}
		// message, result, tools, tool, then the schema.
		if got, want := jsonscan.Depth(m.line), 4+2*depth+1; got != want {
			t.Errorf("nesting %d, want %d", got, want)
		}
	})
	t.Run("too deep", func(t *testing.T) {
		cmd, _ := command(t, "-deep-schema", "4991")
		var ee *exec.ExitError
		if err := cmd.Run(); !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Fatalf("%v, want exit status 2", err)
		}
	})
}

func TestHangTool(t *testing.T) {
	cmd, stderr := command(t)
	// The process will not exit on stdin EOF: signal it soon.
	tr := &mcp.CommandTransport{Command: cmd, TerminateDuration: 100 * time.Millisecond}
	cs, err := newClient(nil).Connect(longContext(t), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := callText(ctx, cs, "hang", nil); err == nil || ctx.Err() == nil {
		t.Fatalf("hang returned before the deadline: %v", err)
	}
	// The session still works.
	mustEcho(t, cs, "echo")
	cs.Close()
	if cmd.ProcessState == nil || cmd.ProcessState.Exited() {
		t.Errorf("server with a hang call exited by itself: %v", cmd.ProcessState)
	}
	if !strings.Contains(stderr.String(), "hang: blocking forever") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// counter counts notifications, closing done at the nth.
type counter struct {
	n    int64
	seen atomic.Int64
	done chan struct{}
}

func newCounter(n int) *counter { return &counter{n: int64(n), done: make(chan struct{})} }

func (c *counter) add() {
	if c.seen.Add(1) == c.n {
		close(c.done)
	}
}

func (c *counter) wait(t *testing.T, what string) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(long):
		t.Fatalf("%d %s notifications of %d", c.seen.Load(), what, c.n)
	}
}

func TestFlood(t *testing.T) {
	const n = 2000
	progress, logs := newCounter(n), newCounter(n)
	c := newClient(&mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.add() },
		LoggingMessageHandler:       func(context.Context, *mcp.LoggingMessageRequest) { logs.add() },
	})
	cmd, _ := command(t)
	cs := connect(t, c, &mcp.CommandTransport{Command: cmd}, legacy)
	ctx := longContext(t)

	params := &mcp.CallToolParams{Name: "flood", Arguments: map[string]any{"n": n}}
	params.SetProgressToken("flood")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != fmt.Sprintf("flooded %d", n) {
		t.Fatalf("flood: %v %+v", err, res)
	}
	progress.wait(t, "progress")

	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if got, err := callText(ctx, cs, "flood", map[string]any{"n": n}); err != nil || got != fmt.Sprintf("flooded %d", n) {
		t.Fatalf("flood = %q, %v", got, err)
	}
	logs.wait(t, "log")
	if got := progress.seen.Load(); got != n {
		t.Errorf("%d progress notifications, want %d", got, n)
	}
}

// Streamable HTTP faults.

// freshHTTPClient returns an HTTP client with connections of its own, none
// kept alive from before a restart.
func freshHTTPClient(t *testing.T) *http.Client {
	c := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func post(t *testing.T, url, session, body string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(longContext(t), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := freshHTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestFaultsFailNext(t *testing.T) {
	f := &hosttest.Faults{}
	url := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), f.Middleware())
	cs := connect(t, newClient(nil), &mcp.StreamableClientTransport{Endpoint: url}, legacy)
	mustEcho(t, cs, "echo")

	f.FailNext(http.StatusServiceUnavailable, 2)
	for i := range 2 {
		if _, err := callText(longContext(t), cs, "echo", map[string]any{"text": "hi"}); err == nil {
			t.Fatalf("call %d succeeded during the burst", i)
		}
	}
	mustEcho(t, cs, "echo") // 5xx is transient for go-sdk: the session survives
	if got := f.Count(http.StatusServiceUnavailable); got != 2 {
		t.Errorf("%d answers 503, want 2", got)
	}

	f.FailNext(http.StatusInternalServerError, 1)
	if got := post(t, url, "", "{}"); got != http.StatusInternalServerError {
		t.Errorf("POST answered %d during a 500 burst", got)
	}
	if got := post(t, url, "", "{}"); got == http.StatusInternalServerError {
		t.Error("POST answered 500 after the burst")
	}
	f.FailNext(http.StatusInternalServerError, 5)
	f.FailNext(0, 0) // cancels
	mustEcho(t, cs, "echo")
	counts := f.Counts()
	if counts[http.StatusInternalServerError] != 1 || counts[http.StatusOK] == 0 {
		t.Errorf("counts %v", counts)
	}
}

func TestFaultsLoseSessions(t *testing.T) {
	f := &hosttest.Faults{}
	url := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), f.Middleware())
	a := connect(t, newClient(nil), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: 1}, legacy)
	mustEcho(t, a, "echo")
	if a.ID() == "" {
		t.Fatal("no session id")
	}

	f.LoseSessions()
	if _, err := callText(longContext(t), a, "echo", map[string]any{"text": "hi"}); err == nil {
		t.Error("call on a lost session succeeded")
	}
	if got := post(t, url, a.ID(), `{"jsonrpc":"2.0","id":9,"method":"ping"}`); got != http.StatusNotFound {
		t.Errorf("lost session answered %d", got)
	}
	if f.Count(http.StatusNotFound) < 2 {
		t.Errorf("counts %v", f.Counts())
	}

	b := connect(t, newClient(nil), &mcp.StreamableClientTransport{Endpoint: url}, legacy)
	mustEcho(t, b, "echo")
	if b.ID() == a.ID() {
		t.Error("session id reused")
	}
}

func TestFaultsDelay(t *testing.T) {
	f := &hosttest.Faults{}
	url := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), f.Middleware())
	cs := connect(t, newClient(nil), &mcp.StreamableClientTransport{Endpoint: url}, legacy)

	const d = 200 * time.Millisecond
	f.Delay(d)
	start := time.Now()
	mustEcho(t, cs, "echo")
	if took := time.Since(start); took < d {
		t.Errorf("echo answered in %v, before the %v delay", took, d)
	}

	// A delayed request ends when its client gives up, uncounted.
	f.Delay(time.Hour)
	before := f.Counts()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader("{}"))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("delayed POST answered %d", resp.StatusCode)
	}
	f.Delay(0)
	mustEcho(t, cs, "echo")
	// Had it been passed on, the server would have answered 400.
	if after := f.Counts(); after[http.StatusOK] <= before[http.StatusOK] || after[http.StatusBadRequest] != before[http.StatusBadRequest] {
		t.Errorf("counts %v, then %v", before, after)
	}
}

func TestRestartableHTTP(t *testing.T) {
	srv := hosttest.NewEchoServer()
	f := &hosttest.Faults{}
	rs := hosttest.NewRestartableHTTP(t, srv, f.Middleware())
	url := rs.URL()
	// Each client has its own connections: one kept alive by a client
	// from before a restart fails its next request.
	a := connect(t, newClient(nil), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: 1, HTTPClient: freshHTTPClient(t)}, legacy)
	mustEcho(t, a, "echo")

	rs.Stop()
	rs.Stop() // no-op
	if rs.Running() {
		t.Error("running after Stop")
	}
	// A new connection (not one kept alive from before, which fails
	// otherwise) is refused.
	req, _ := http.NewRequestWithContext(longContext(t), http.MethodPost, url, strings.NewReader("{}"))
	_, err := freshHTTPClient(t).Do(req)
	if err == nil {
		t.Fatal("POST to a stopped server succeeded")
	}
	if runtime.GOOS != "windows" && !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("POST to a stopped server: %v, want connection refused", err)
	}
	if _, err := callText(longContext(t), a, "echo", map[string]any{"text": "hi"}); err == nil {
		t.Error("call to a stopped server succeeded")
	}

	if err := rs.Start(); err != nil {
		t.Fatal(err)
	}
	if err := rs.Start(); err != nil { // no-op
		t.Fatal(err)
	}
	if rs.URL() != url {
		t.Errorf("URL %s after restart, was %s", rs.URL(), url)
	}
	b := connect(t, newClient(nil), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: freshHTTPClient(t)}, legacy)
	mustEcho(t, b, "echo")
	// The old session did not survive the restart.
	if got := post(t, url, a.ID(), `{"jsonrpc":"2.0","id":9,"method":"ping"}`); got != http.StatusNotFound {
		t.Errorf("old session answered %d after restart", got)
	}
	if f.Count(http.StatusOK) == 0 {
		t.Errorf("middleware saw %v", f.Counts())
	}

	t.Run("restart loop", func(t *testing.T) {
		for i := range 5 {
			if err := rs.Restart(); err != nil {
				t.Fatalf("restart %d: %v", i, err)
			}
			tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: freshHTTPClient(t)}
			cs, err := newClient(nil).Connect(longContext(t), tr, nil)
			if err != nil {
				t.Fatalf("connect after restart %d: %v", i, err)
			}
			mustEcho(t, cs, "echo")
			cs.Close()
		}
	})
}

//go:build unix

package transports_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/transports"
)

func stdioSpec(t *testing.T, id string, args ...string) transports.Spec {
	return transports.Spec{
		ID:      id,
		Kind:    transports.KindStdio,
		Command: hosttest.BuildTestServer(t),
		Args:    args,
	}
}

// fastClose keeps the shutdown paths short in tests; correctness never
// depends on these values.
var fastClose = transports.Options{StdinGrace: 200 * time.Millisecond, TermGrace: 500 * time.Millisecond}

func newStdio(t *testing.T, s transports.Spec, opts transports.Options) *transports.StdioTransport {
	t.Helper()
	tr, err := transports.New(s, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	st, ok := tr.(*transports.StdioTransport)
	if !ok {
		t.Fatalf("New returned %T, want *StdioTransport", tr)
	}
	return st
}

func TestStdioConnectListCall(t *testing.T) {
	tr := newStdio(t, stdioSpec(t, "test"), transports.Options{})
	cs := connect(t, tr, nil)
	if got := cs.InitializeResult().ServerInfo.Name; got != "testserver" {
		t.Errorf("server name = %q", got)
	}
	names := toolNames(t, cs)
	for _, want := range []string{"echo", "add", "slow", "crash", "big", "stderr"} {
		if !contains(names, want) {
			t.Errorf("tool %q missing from %v", want, names)
		}
	}
	if got := mustCall(t, cs, "echo", map[string]any{"text": "hello"}); got != "hello" {
		t.Errorf("echo = %q", got)
	}
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil {
		t.Fatal(err)
	}
	if sc, ok := res.StructuredContent.(map[string]any); !ok || sc["sum"] != 5.0 {
		t.Errorf("add structured content = %#v", res.StructuredContent)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

func TestStdioEnvMergedAndCwd(t *testing.T) {
	t.Setenv("MCPHOST_TEST_INHERITED", "from-host")
	t.Setenv("MCPHOST_TEST_OVERRIDDEN", "from-host")
	dir := t.TempDir()
	s := stdioSpec(t, "env")
	s.Env = map[string]string{"MCPHOST_TEST_OVERRIDDEN": "from-config", "MCPHOST_TEST_NEW": "new"}
	s.Cwd = dir
	cs := connect(t, newStdio(t, s, transports.Options{}), nil)
	for name, want := range map[string]string{
		"MCPHOST_TEST_INHERITED":  "from-host",
		"MCPHOST_TEST_OVERRIDDEN": "from-config",
		"MCPHOST_TEST_NEW":        "new",
	} {
		if got := mustCall(t, cs, "env", map[string]any{"name": name}); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	got := mustCall(t, cs, "cwd", map[string]any{})
	wantDir, _ := filepath.EvalSymlinks(dir)
	gotDir, _ := filepath.EvalSymlinks(got)
	if gotDir != wantDir {
		t.Errorf("cwd = %q, want %q", got, dir)
	}
}

func TestStdioConfigPATHUsedForLookup(t *testing.T) {
	bin := hosttest.BuildTestServer(t)
	s := transports.Spec{
		ID:      "path",
		Kind:    transports.KindStdio,
		Command: filepath.Base(bin),
		Env:     map[string]string{"PATH": filepath.Dir(bin)},
	}
	cs := connect(t, newStdio(t, s, transports.Options{}), nil)
	if got := mustCall(t, cs, "echo", map[string]any{"text": "x"}); got != "x" {
		t.Errorf("echo = %q", got)
	}
}

func TestStdioStartErrors(t *testing.T) {
	s := transports.Spec{
		ID:      "github",
		Kind:    transports.KindStdio,
		Command: "mcphost-no-such-command",
		Env:     map[string]string{"TOKEN": "env-secret-value"},
	}
	tr := newStdio(t, s, transports.Options{})
	_, err := tr.Connect(context.Background())
	if err == nil {
		t.Fatal("connect succeeded")
	}
	want := `transports: stdio "github": start "mcphost-no-such-command": executable file not found in $PATH`
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	if strings.Contains(err.Error(), "env-secret-value") {
		t.Errorf("error leaks an env value: %v", err)
	}

	s = stdioSpec(t, "badcwd")
	s.Cwd = filepath.Join(t.TempDir(), "missing")
	if _, err := newStdio(t, s, transports.Options{}).Connect(context.Background()); err == nil ||
		!strings.HasPrefix(err.Error(), `transports: stdio "badcwd": start `) {
		t.Errorf("bad cwd: err = %v", err)
	}

	if _, err := transports.New(transports.Spec{ID: "x", Kind: transports.KindStdio}, transports.Options{}); err == nil {
		t.Error("New accepted a stdio server without command")
	}
}

func TestStdioStderrTail(t *testing.T) {
	tr := newStdio(t, stdioSpec(t, "stderr"), fastClose)
	cs := connect(t, tr, nil)
	mustCall(t, cs, "stderr", map[string]any{"text": "first line"})
	mustCall(t, cs, "stderr", map[string]any{"text": "second line"})
	long := strings.Repeat("y", 5000)
	mustCall(t, cs, "stderr", map[string]any{"text": long})
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	// Close waits for stderr to drain; eventually only guards against a
	// very slow machine.
	eventually(t, "stderr lines", func() bool {
		tail := tr.StderrTail()
		return len(tail) >= 3 && contains(tail, "first line") && contains(tail, "second line")
	})
	tail := tr.StderrTail()
	last := tail[len(tail)-1]
	if len(last) > 1100 || !strings.HasPrefix(last, "yyyy") || !strings.HasSuffix(last, "[truncated]") {
		t.Errorf("long line not capped: %d bytes, ends %q", len(last), last[len(last)-20:])
	}

	// The ring keeps the last 50 lines.
	tr2 := newStdio(t, stdioSpec(t, "stderr2"), fastClose)
	cs2 := connect(t, tr2, nil)
	for i := range 60 {
		mustCall(t, cs2, "stderr", map[string]any{"text": "line " + strconv.Itoa(i)})
	}
	cs2.Close()
	eventually(t, "60 stderr lines", func() bool { return contains(tr2.StderrTail(), "line 59") })
	tail = tr2.StderrTail()
	if len(tail) != 50 || tail[0] != "line 10" || tail[49] != "line 59" {
		t.Errorf("tail has %d lines: first %q last %q", len(tail), tail[0], tail[len(tail)-1])
	}
}

func TestStdioCrashAtStart(t *testing.T) {
	tr := newStdio(t, stdioSpec(t, "crashy", "-crash-at-start"), fastClose)
	_, err := connectErr(t, tr, nil)
	if err == nil {
		t.Fatal("connect succeeded")
	}
	if !strings.Contains(err.Error(), "exited with status 1") || !strings.Contains(err.Error(), "crashing at start") {
		t.Errorf("error = %v; want exit status and last stderr line", err)
	}
	tail := tr.StderrTail()
	if len(tail) == 0 || !strings.Contains(tail[len(tail)-1], "crashing at start") {
		t.Errorf("tail = %q", tail)
	}
}

func TestStdioCrashMidCall(t *testing.T) {
	tr := newStdio(t, stdioSpec(t, "crash"), fastClose)
	cs := connect(t, tr, nil)
	_, err := callText(t, cs, "crash", map[string]any{})
	if err == nil {
		t.Fatal("crash call succeeded")
	}
	if !errors.Is(err, transports.ErrServerExited) || !strings.Contains(err.Error(), "exited with status 3") {
		t.Errorf("error = %v; want the exit status", err)
	}
	if !strings.Contains(err.Error(), `transports: stdio "crash"`) {
		t.Errorf("error = %v; want the origin", err)
	}
	// The session is over; Wait reports why.
	if werr := cs.Wait(); werr == nil || !strings.Contains(werr.Error(), "status 3") {
		t.Errorf("Wait = %v", werr)
	}
}

func TestStdioGarbageLine(t *testing.T) {
	tr := newStdio(t, stdioSpec(t, "garbage", "-garbage"), fastClose)
	cs := connect(t, tr, nil)
	_, err := cs.ListTools(testCtx(t), nil)
	if err == nil {
		t.Fatal("list tools succeeded after garbage")
	}
	if !strings.Contains(err.Error(), "invalid JSON-RPC message from server") || !strings.Contains(err.Error(), "this line is not JSON-RPC") {
		t.Errorf("error = %v", err)
	}
}

func TestStdioMessageTooLarge(t *testing.T) {
	s := stdioSpec(t, "big")
	s.MaxMessageBytes = 4096
	tr := newStdio(t, s, fastClose)
	cs := connect(t, tr, nil)
	if got := mustCall(t, cs, "big", map[string]any{"n": 1000}); len(got) != 1000 {
		t.Errorf("big 1000 returned %d bytes", len(got))
	}
	_, err := callText(t, cs, "big", map[string]any{"n": 100000})
	want := `server "big": message larger than max_message_bytes (4096 bytes); raise max_message_bytes for this server`
	if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, transports.ErrMessageTooLarge) {
		t.Fatalf("error = %v\nwant it to contain %q", err, want)
	}
	// Only that call failed: the session goes on.
	if got := mustCall(t, cs, "echo", map[string]any{"text": "still here"}); got != "still here" {
		t.Errorf("echo after oversized response = %q", got)
	}
}

func TestStdioReconnect(t *testing.T) {
	tr := newStdio(t, stdioSpec(t, "again"), fastClose)
	var pids []int
	for range 2 {
		cs := connect(t, tr, nil)
		mustCall(t, cs, "echo", map[string]any{"text": "x"})
		pids = append(pids, tr.PID())
		if err := cs.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if pids[0] == pids[1] || pids[0] == 0 {
		t.Errorf("pids = %v; want two processes", pids)
	}
}

func TestStdioCloseIdempotentAndConcurrent(t *testing.T) {
	tr := newStdio(t, stdioSpec(t, "close"), fastClose)
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := conn.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		}()
	}
	wg.Wait()
	if err := conn.Close(); err != nil {
		t.Errorf("close again: %v", err)
	}
	if _, err := conn.Read(context.Background()); err == nil {
		t.Error("read after close succeeded")
	}
	assertGone(t, tr.PID())
}

// gone reports whether pid no longer runs. A zombie counts as gone: orphans
// are reaped by init, and in some containers init never reaps them.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	i := bytes.LastIndexByte(data, ')')
	f := bytes.Fields(data[i+1:])
	return len(f) > 0 && (string(f[0]) == "Z" || string(f[0]) == "X")
}

func assertGone(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		eventually(t, "process "+strconv.Itoa(pid)+" to be gone", func() bool { return gone(pid) })
	}
}

func TestStdioCloseKillsProcessGroup(t *testing.T) {
	for _, mode := range [][]string{
		{"-ignore-stdin-eof"},
		{"-ignore-stdin-eof", "-ignore-sigterm"},
		{}, // exits on stdin EOF, leaving its child behind
	} {
		t.Run(strings.Join(append([]string{"spawn-child"}, mode...), " "), func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "child.pid")
			args := append([]string{"-spawn-child", "-child-pid-file", pidFile}, mode...)
			tr := newStdio(t, stdioSpec(t, "group", args...), fastClose)
			cs := connect(t, tr, nil)
			mustCall(t, cs, "echo", map[string]any{"text": "x"})
			data, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			child, _ := strconv.Atoi(string(data))
			server := tr.PID()
			if gone(child) || gone(server) {
				t.Fatalf("processes not running before Close")
			}
			start := time.Now()
			cs.Close()
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("Close took %v", d)
			}
			// The server is our child and reaped by Close: it must be gone now.
			if err := syscall.Kill(server, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("server %d still exists after Close (kill 0: %v)", server, err)
			}
			assertGone(t, child)
		})
	}
}

func TestStdioSlowProgressAndCancel(t *testing.T) {
	tr := newStdio(t, stdioSpec(t, "slow"), fastClose)
	progress := make(chan float64, 100)
	cs := connect(t, tr, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params.Progress:
			default:
			}
		},
	})
	if got := mustCall(t, cs, "slow", map[string]any{"ms": 1}); got != "done" {
		t.Errorf("slow = %q", got)
	}
	ctx, cancel := context.WithCancel(testCtx(t))
	params := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 60000}}
	params.SetProgressToken("p1")
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, params)
		errc <- err
	}()
	select {
	case <-progress:
	case <-time.After(bound):
		t.Fatal("no progress notification")
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled call: err = %v", err)
		}
	case <-time.After(bound):
		t.Fatal("cancelled call did not return")
	}
	eventually(t, "the server to see the cancellation", func() bool {
		return contains(tr.StderrTail(), "testserver: slow: cancelled")
	})
	if got := mustCall(t, cs, "echo", map[string]any{"text": "after"}); got != "after" {
		t.Errorf("echo = %q", got)
	}
}

// A server that stops reading its stdin cannot block a write for ever: the
// write ends at the call's deadline (or when its context is cancelled), the
// session is closed (part of a line may be in the pipe), and Close returns.
func TestStdioWriteHonoursDeadline(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal("sleep is needed to stand in for a server that never reads its stdin")
	}
	tr := newStdio(t, transports.Spec{ID: "deaf", Kind: transports.KindStdio, Command: sleep, Args: []string{"600"}}, fastClose)
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	id, _ := jsonrpc.MakeID(float64(1))
	// Far more than a pipe holds, quick to encode; the deadline leaves the
	// write time to start (a write whose deadline passed before it began
	// writes nothing and says only that), however loaded the machine.
	big := &jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage(`{"x":"` + strings.Repeat("a", 1<<20) + `"}`)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- conn.Write(ctx, big) }()
	select {
	case err = <-done:
	case <-time.After(bound):
		t.Fatal("a write to a server that does not read stdin never returned")
	}
	if err == nil || !strings.Contains(err.Error(), `stdio "deaf"`) || !strings.Contains(err.Error(), "not reading its stdin") {
		t.Fatalf("write: %v; want an error naming the server and saying it does not read", err)
	}
	// The session is dead: reads end, and Close returns.
	rctx, rcancel := context.WithTimeout(context.Background(), bound)
	defer rcancel()
	if _, err := conn.Read(rctx); err == nil || rctx.Err() != nil {
		t.Fatalf("read after the stalled write: %v (want the session ended, not the test's deadline)", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- conn.Close() }()
	select {
	case <-closed:
	case <-time.After(bound):
		t.Fatal("Close did not return")
	}
}

package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/argcheck"
	"github.com/mcphost/mcphost/internal/testenv"
)

// hostileStderrServer is a stdio server entry that writes a clipboard write
// and cursor moves to stderr, then exits: its text reaches the error, the
// stderr tail and the debug log.
func hostileStderrServer() map[string]any {
	return map[string]any{"command": "sh", "args": []string{"-c", `printf '\033]52;c;cm0gLXJmIH4=\007\033[2J\033[Hcrashed\342\200\256\n' >&2; exit 1`}}
}

// spoofedLine is a line break and what a hostile server wants the person to
// read on a line of its own.
const spoofedLine = "\n  call evil:harmless"

// destructiveServer has a destructive tool, which confirm_destructive makes
// the CLI ask about; its name, title and description carry escapes, and its
// name and the server's name a line break that would fake a line of a table
// or of the confirmation prompt.
func destructiveServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "evil" + hostile + spoofedLine, Version: "1"}, nil)
	yes := true
	srv.AddTool(&mcp.Tool{
		Name: "wipe" + spoofedLine, Title: "Wipe" + hostile, Description: "Wipes." + hostile,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes},
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wiped"}}}, nil
	})
	return srv
}

// Log lines, warnings and the stderr tail of a failed server show its text
// escaped.
func TestLogLinesAndErrorsEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"crash": hostileStderrServer(), "ts": testServer(t)})
	for _, args := range [][]string{
		{"--config", cfg, "--log-level", "trace", "servers"},
		{"--config", cfg, "--log-level", "debug", "tools"},
		{"--config", cfg, "mcp", "test", "crash"},
		{"--config", cfg, "tools", "--server", "crash"},
	} {
		r := e.run(args...)
		if r.code != exitFailure {
			t.Errorf("want exit %d:\n%s", exitFailure, r)
		}
		noControls(t, strings.Join(args, " "), r.stdout+r.stderr)
		wantContains(t, strings.Join(args, " "), r.stdout+r.stderr, "crashed")
	}
}

// servers --watch shows server text escaped, on a terminal (where mcphost
// itself redraws the screen) and off one.
func TestWatchEscapesServerText(t *testing.T) {
	t.Parallel()
	for _, terminal := range []bool{false, true} {
		e := newEnv(t)
		e.terminal = terminal
		e.hostOpts = []host.Option{host.WithInProcessServer("evil", hostileServer())}
		cfg := e.configFile(map[string]any{"crash": hostileStderrServer()})
		w := e.startWatch("--config", cfg, "servers", "--watch")
		w.waitFor(`crashed`)
		w.waitFor(`(?m)^evil\s`)
		r := w.stop()
		out := r.stdout + r.stderr
		if terminal {
			// mcphost's own clear-screen sequence is the only control.
			out = strings.ReplaceAll(out, clearScreen, "")
		}
		noControls(t, "servers --watch", out)
	}
}

// The confirmation prompt shows the tool's text escaped.
func TestConfirmPromptEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.terminal = true
	e.hostOpts = []host.Option{host.WithInProcessServer("evil", destructiveServer())}
	cfg := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), "policy: {confirm_destructive: true}\n")
	r := e.runStdin("n\n", "--config", cfg, "call", "evil:wipe"+spoofedLine, "--args", `{"path":"/\u001b[2J"}`)
	if r.code == exitOK {
		t.Fatalf("a refused confirmation must fail the call:\n%s", r)
	}
	wantContains(t, "prompt", r.stderr, "allow? [y/N]", `\u001b[2J`)
	// Clearing the progress line is mcphost's own control.
	noControls(t, "confirmation prompt", strings.ReplaceAll(r.stdout+r.stderr, "\r\x1b[K", ""))
	prompt, _, _ := strings.Cut(r.stderr, "allow? [y/N]")
	noSpoofedLine(t, "confirmation prompt", prompt)

	// The tables keep one row per server and per tool. (Erasing the start
	// line on the terminal is mcphost's own control.)
	for _, args := range [][]string{{"tools"}, {"servers"}} {
		r := e.must(exitOK, args...)
		noSpoofedLine(t, args[0], r.stdout+r.stderr)
		noControls(t, args[0], r.stdout+strings.ReplaceAll(r.stderr, "\r\x1b[K", ""))
	}
}

// noSpoofedLine fails if out has a line that server text made.
func noSpoofedLine(t *testing.T, what, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  call evil:harmless") {
			t.Errorf("%s shows a line the server made: %q in\n%s", what, line, out)
		}
	}
}

// A failed server's cause is said once: the server is named once per line,
// and its one stderr line is not repeated under the error that quotes it.
func TestServerErrorSaidOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"crash": map[string]any{
		"command": "sh", "args": []string{"-c", "printf 'fatal: cannot %s db\\n' open >&2; exit 3"},
	}})
	for _, args := range [][]string{{"servers"}, {"tools"}, {"tools", "--server", "crash"}, {"call", "crash:anything"}, {"mcp", "test", "crash"}} {
		r := e.must(exitFailure, append([]string{"--config", cfg}, args...)...)
		out := r.stdout + r.stderr
		what := strings.Join(args, " ")
		wantContains(t, what, out, "status 3")
		// Once on a stream (stdout and stderr may go to different places).
		if n, m := strings.Count(r.stdout, "fatal: cannot open db"), strings.Count(r.stderr, "fatal: cannot open db"); n > 1 || m > 1 || n+m == 0 {
			t.Errorf("%s says the cause %d times on stdout and %d on stderr, want once:\n%s", what, n, m, r)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "crash") && strings.Count(line, `server "crash"`)+strings.Count(line, "server crash") > 1 {
				t.Errorf("%s names the server twice in one line: %q", what, line)
			}
		}
	}
}

// The resources and prompts tables keep one row per entry.
func TestResourceAndPromptTablesEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "evil", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "demo://one", Name: "one" + hostile, MIMEType: "text/plain" + spoofedLine},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greet" + spoofedLine, Description: "Greets." + hostile,
		Arguments: []*mcp.PromptArgument{{Name: "who" + hostile + spoofedLine}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{}, nil
		})
	e.hostOpts = []host.Option{host.WithInProcessServer("evil", srv)}
	for _, args := range [][]string{{"resources"}, {"prompts"}} {
		r := e.must(exitOK, args...)
		wantContains(t, args[0], r.stdout, "evil")
		noControls(t, args[0], r.stdout+r.stderr)
		noSpoofedLine(t, args[0], r.stdout+r.stderr)
	}
}

// A secret holding characters that JSON or a log line escapes (<, &, ")
// is scrubbed in its escaped form too: --json output and log values do not
// carry it either.
func TestEscapedSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const secret = `s3cr<et&"val\ue`
	srv := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "leak", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "token: " + secret}}}, nil
		})
	e.hostOpts = []host.Option{host.WithInProcessServer("echo", srv)}
	cfg := e.configFile(map[string]any{"remote": map[string]any{
		"url": "http://127.0.0.1:9/mcp", "headers": map[string]any{"Authorization": "Bearer " + secret},
	}})
	for _, args := range [][]string{{"call", "echo:leak"}, {"call", "echo:leak", "--json"}, {"--log-level", "trace", "call", "echo:leak", "--json"}} {
		r := e.run(append([]string{"--config", cfg}, args...)...)
		wantContains(t, strings.Join(args, " "), r.stdout, "token: ")
		raw, _ := json.Marshal(secret)
		for _, form := range []string{secret, string(raw[1 : len(raw)-1]), `s3cr\u003cet`, `et\u0026\"val`, `\"val\\ue`} {
			if strings.Contains(r.stdout+r.stderr, form) {
				t.Errorf("the secret was printed as %s:\n%s", form, r)
			}
		}
	}
}

// A URL that does not parse (a space in its password) is quoted in the
// configuration error without its password or query.
func TestUnparsableURLSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const pass, token = "pass word-5e1f", "qtoken-9a7c1"
	cfg := e.configFile(map[string]any{"remote": map[string]any{"url": "http://al:" + pass + "@127.0.0.1:9/mcp?token=" + token}})
	for _, args := range [][]string{{"mcp", "list"}, {"mcp", "list", "--json"}, {"mcp", "get", "remote"}, {"servers"}, {"servers", "--json"}, {"tools"}} {
		r := e.run(append([]string{"--config", cfg}, args...)...)
		wantContains(t, strings.Join(args, " "), r.stdout+r.stderr, "not an absolute URL")
		wantNotContains(t, strings.Join(args, " "), r.stdout+r.stderr, pass, token, "word")
	}
}

// Ctrl-C during a request exits 130 and says so plainly, once: what was
// interrupted, not "context canceled".
func TestInterruptedRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	started := make(chan struct{}, 2)
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	srv.AddResource(&mcp.Resource{URI: "demo://wait", Name: "wait"},
		func(ctx context.Context, _ *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			started <- struct{}{}
			<-ctx.Done()
			return nil, ctx.Err()
		})
	e.hostOpts = []host.Option{host.WithInProcessServer("slow", srv)}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"call", "slow:wait"}, "mcphost: interrupted while calling slow:wait"},
		{[]string{"read", "demo://wait"}, `mcphost: interrupted while running "mcphost read"`},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var stdout, stderr testenv.Buffer
		a := newApp(strings.NewReader(""), &stdout, &stderr)
		a.globalDir, a.workDir, a.environ, a.hostOptions = e.global, e.work, e.environ, e.hostOpts
		a.managedDir = e.managed
		done := make(chan int)
		go func() { done <- a.execute(ctx, tc.args) }()
		select {
		case <-started:
		case <-time.After(failAfter):
			t.Fatalf("%v: the request did not reach the server", tc.args)
		}
		cancel() // what Ctrl-C does (signal.NotifyContext)
		var code int
		select {
		case code = <-done:
		case <-time.After(failAfter):
			t.Fatalf("%v: the interrupted command did not end", tc.args)
		}
		r := result{args: tc.args, code: code, stdout: stdout.String(), stderr: stderr.String()}
		if code != exitInterrupted || strings.TrimSpace(r.stderr) != tc.says {
			t.Errorf("want exit %d and %q alone:\n%s", exitInterrupted, tc.says, r)
		}
	}
}

// mcp list and mcp get show one line per server and per field, whatever
// line breaks a (project) file's values or an entry's errors hold.
func TestMCPListAndGetOneLineEach(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{
		"a":      map[string]any{"command": "srv", "args": []string{"x\nenabled: false", "\x1b[2J"}},
		"broken": map[string]any{"url": "ftp://h/", "startup_timeout": "soon"},
	})
	r := e.must(exitOK, "--config", cfg, "mcp", "list")
	noControls(t, "mcp list", r.stdout+r.stderr)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if f := strings.Fields(line); len(f) == 0 || (f[0] != "ID" && f[0] != "a" && f[0] != "broken") {
			t.Errorf("mcp list has a line that is no row: %q\n%s", line, r)
		}
	}
	r = e.must(exitOK, "--config", cfg, "mcp", "get", "a")
	noControls(t, "mcp get", r.stdout+r.stderr)
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "enabled: false") {
			t.Errorf("mcp get shows a line a value made: %q\n%s", line, r)
		}
	}
}

// endless is standard input that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// blocked is standard input that does not answer until released (a
// terminal nobody types on); it says when it is first read.
type blocked struct{ reading, release chan struct{} }

func (b blocked) Read([]byte) (int, error) {
	close(b.reading)
	<-b.release
	return 0, io.EOF
}

// --args - reads at most 64 MiB, and Ctrl-C ends a read that waits;
// --args @FILE takes a symlink to a regular file and refuses one over the
// limit before reading it.
func TestArgsLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.hostOpts = []host.Option{host.WithInProcessServer("evil", hostileServer())}
	runWith := func(ctx context.Context, stdin io.Reader, args ...string) result {
		var stdout, stderr testenv.Buffer
		a := newApp(stdin, &stdout, &stderr)
		a.globalDir, a.workDir, a.environ, a.hostOptions = e.global, e.work, e.environ, e.hostOpts
		a.managedDir = e.managed
		code := a.execute(ctx, args)
		return result{args: args, code: code, stdout: stdout.String(), stderr: stderr.String()}
	}
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	r := runWith(ctx, endless{}, "call", "evil:echo", "--args", "-")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--args -: standard input: file too large: over the limit of 67108864 bytes") {
		t.Errorf("endless standard input:\n%s", r)
	}

	in := blocked{reading: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(in.release) })
	ctx2, cancel2 := context.WithCancel(context.Background())
	done := make(chan result)
	go func() { done <- runWith(ctx2, in, "call", "evil:echo", "--args", "-") }()
	<-in.reading
	cancel2() // Ctrl-C
	select {
	case r = <-done:
		if r.code != exitInterrupted || !strings.Contains(r.stderr, "interrupted while reading standard input") {
			t.Errorf("Ctrl-C while reading standard input:\n%s", r)
		}
	case <-time.After(failAfter):
		t.Fatal("Ctrl-C did not end a read of standard input")
	}

	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(argcheck.MaxArgsBytes + 1); err != nil { // sparse: nothing is written
		t.Fatal(err)
	}
	f.Close()
	r = e.must(exitUsage, "call", "evil:echo", "--args", "@"+big)
	wantContains(t, "a file over the limit", r.stderr, big, "too large")

	link := filepath.Join(dir, "args-link.json")
	if err := os.Symlink(writeFile(t, filepath.Join(dir, "args.json"), `{"a":1}`), link); err != nil {
		t.Fatal(err)
	}
	e.must(exitOK, "call", "evil:echo", "--args", "@"+link)
}

// Ctrl-C at the confirmation prompt ends the command (exit 130).
func TestConfirmPromptInterrupted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := writeFile(t, filepath.Join(t.TempDir(), "c.yaml"), "policy: {confirm_destructive: true}\n")
	in := blocked{reading: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(in.release) })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testenv.Buffer
	a := newApp(in, &stdout, &stderr)
	a.globalDir, a.workDir, a.environ = e.global, e.work, e.environ
	a.managedDir = e.managed
	a.hostOptions = []host.Option{host.WithInProcessServer("evil", destructiveServer())}
	a.isTerminal = func(any) bool { return true }
	args := []string{"--config", cfg, "call", "evil:wipe" + spoofedLine}
	done := make(chan int)
	go func() { done <- a.execute(ctx, args) }()
	<-in.reading
	cancel() // Ctrl-C
	select {
	case code := <-done:
		r := result{args: args, code: code, stdout: stdout.String(), stderr: stderr.String()}
		if code != exitInterrupted || !strings.Contains(r.stderr, "mcphost: interrupted while calling evil:wipe") {
			t.Errorf("want exit %d, saying what was interrupted:\n%s", exitInterrupted, r)
		}
	case <-time.After(failAfter):
		t.Fatal("Ctrl-C did not end the confirmation prompt")
	}
}

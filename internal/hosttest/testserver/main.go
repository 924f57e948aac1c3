// Command testserver is a stdio MCP server for mcphost's tests. Its tools
// cover the ordinary cases (echo, add) and the faults a host must survive
// (crash mid-call, huge results, slow calls, calls that never return,
// notification floods); flags make the whole process misbehave like real
// servers do (ignore stdin EOF or SIGTERM, spawn a grandchild, print garbage
// on stdout, crash at start once or the first N times, hang in the
// handshake, answer slowly, list huge tool sets or schemas).
//
// Tests get the binary from hosttest.BuildTestServer.
//
// Flags:
//
//	-garbage             after the handshake, print one non-JSON line on
//	                     stdout before answering the next request
//	-ignore-stdin-eof    keep running after stdin closes
//	-ignore-sigterm      ignore SIGTERM: only SIGKILL stops the process
//	-spawn-child         start a sleeping grandchild sharing stdout and
//	                     stderr; -child-pid-file FILE receives its pid
//	-crash-at-start      print a message on stderr and exit 1 at once
//	-crash-at-start-times N -state-file FILE
//	                     the same for the first N starts only, then serve
//	                     normally: FILE (created if missing) holds the number
//	                     of starts so far, counting this one, and is updated
//	                     at every start. -state-file alone just counts.
//	-hang-initialize     never answer initialize nor server/discover: the
//	                     process keeps reading stdin (ping is answered
//	                     before initialize; requests after initialize queue
//	                     behind it, as go-sdk handles initialize in order)
//	                     and exits 0 on stdin EOF (with -ignore-stdin-eof,
//	                     stays).
//	-ignore-discover     never answer server/discover (it stays pending until
//	                     stdin EOF, then the process exits 0); initialize is
//	                     answered, so clients speaking 2025-11-25 or older,
//	                     or falling back to initialize, work.
//	-delay DURATION      delay every answer (every request but notifications)
//	                     by DURATION, cancellably: a request cancelled by
//	                     notifications/cancelled is answered with an error
//	                     at once, and stdin EOF ends the waits.
//	-tools N             N more tools t00001, t00002, ... (at least five
//	                     digits), each echoing its text argument
//	-huge-schema BYTES   one more tool, huge, whose inputSchema is a valid
//	                     JSON Schema object of about BYTES bytes of compact
//	                     JSON (exactly BYTES from 100 up): string properties
//	                     p00000, p00001, ... with descriptions of 1 KiB
//	-deep-schema DEPTH   one more tool, deep, whose inputSchema nests DEPTH
//	                     levels of {"type":"object","properties":{"x":...}},
//	                     the innermost x being {"type":"string"}: JSON
//	                     nesting 2*DEPTH+1. DEPTH is at most 4990 (Go's
//	                     encoding/json refuses to write JSON nested over
//	                     10000 levels). go-sdk v1.8 clients refuse to read
//	                     a message nested over 1000 levels: from DEPTH 498,
//	                     the tools/list answer breaks their connection.
//
// Tools: echo {text}, add {a,b} (structured output {sum}), slow {ms}
// (progress, honours cancellation), crash (exit 3 mid-call), big {n} (n bytes
// of text), stderr {text}, env {name}, cwd, pid, hang (never returns and
// ignores cancellation: while a hang call is pending the process outlives
// stdin EOF, as a stuck server does, and only a signal stops it), flood {n}
// (sends n notifications as fast as it can, then returns "flooded n":
// progress notifications if the call has a progress token, else logging
// messages at level info, which go-sdk sends only once the client has set a
// log level).
//
// The environment variable MCPHOST_TESTSERVER_ECHO_DESCRIPTION, when set,
// is echo's description: a server whose tool changes between two starts
// with the same command line (tool pinning's tests).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	garbage           = flag.Bool("garbage", false, "after the handshake, print a non-JSON line on stdout before answering the next request")
	ignoreStdinEOF    = flag.Bool("ignore-stdin-eof", false, "keep running after stdin closes (like many Node servers)")
	ignoreSigterm     = flag.Bool("ignore-sigterm", false, "ignore SIGTERM: only SIGKILL stops the process")
	spawnChild        = flag.Bool("spawn-child", false, "start a grandchild process that sleeps (it inherits stdout and stderr)")
	childPIDFile      = flag.String("child-pid-file", "", "with -spawn-child: write the child's pid to this file (default: to stderr)")
	daemonize         = flag.String("daemonize", "", "start a daemon as daemons start (setsid and a double fork: it leaves the process group and is orphaned) that writes its pid to this file and sleeps")
	daemonStage       = flag.Int("daemon-stage", 0, "internal: 1 = the first fork (starts stage 2 in a new session, then exits), 2 = the daemon")
	child             = flag.Bool("child", false, "internal: be the sleeping grandchild")
	crashAtStart      = flag.Bool("crash-at-start", false, "write a message to stderr and exit 1 before answering anything")
	crashAtStartTimes = flag.Int("crash-at-start-times", 0, "with -state-file: crash at start as -crash-at-start does for the first N starts, then serve normally")
	stateFile         = flag.String("state-file", "", "file counting the starts (created if missing), for -crash-at-start-times")
	hangInitialize    = flag.Bool("hang-initialize", false, "never answer initialize nor server/discover; exit on stdin EOF")
	ignoreDiscover    = flag.Bool("ignore-discover", false, "never answer server/discover (answer initialize normally); exit on stdin EOF")
	delay             = flag.Duration("delay", 0, "delay every answer by this long (cancellable)")
	extraTools        = flag.Int("tools", 0, "add N echo tools named t00001, t00002, ...")
	hugeSchema        = flag.Int("huge-schema", 0, "add a tool huge whose inputSchema is BYTES bytes of JSON")
	deepSchema        = flag.Int("deep-schema", 0, "add a tool deep whose inputSchema nests DEPTH object levels")
)

// stdinClosed is closed when reading stdin fails (EOF, usually).
var stdinClosed = make(chan struct{})

func main() {
	flag.Parse()
	if *child {
		time.Sleep(time.Hour)
		return
	}
	if *daemonStage > 0 {
		runDaemonStage()
		return
	}
	if *ignoreSigterm {
		signal.Ignore(syscall.SIGTERM)
	}
	if *crashAtStart {
		fmt.Fprintln(os.Stderr, "testserver: fatal: crashing at start as asked")
		os.Exit(1)
	}
	if *crashAtStartTimes > 0 && *stateFile == "" {
		fmt.Fprintln(os.Stderr, "testserver: -crash-at-start-times needs -state-file")
		os.Exit(2)
	}
	if *stateFile != "" {
		starts, err := countStart(*stateFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testserver: state file:", err)
			os.Exit(2)
		}
		if starts <= *crashAtStartTimes {
			fmt.Fprintf(os.Stderr, "testserver: fatal: crashing at start %d of %d as asked\n", starts, *crashAtStartTimes)
			os.Exit(1)
		}
	}
	if *deepSchema > maxDeepSchema {
		fmt.Fprintf(os.Stderr, "testserver: -deep-schema is at most %d\n", maxDeepSchema)
		os.Exit(2)
	}
	if *daemonize != "" {
		if err := startDaemonStage(1); err != nil {
			fmt.Fprintln(os.Stderr, "testserver: daemonize:", err)
			os.Exit(1)
		}
	}
	if *spawnChild {
		if err := startChild(); err != nil {
			fmt.Fprintln(os.Stderr, "testserver: spawn child:", err)
			os.Exit(1)
		}
	}

	server := newServer()
	// Stdio as mcp.StdioTransport does it, noticing when stdin ends.
	err := server.Run(context.Background(), &mcp.IOTransport{
		Reader: &eofReader{ReadCloser: os.Stdin},
		Writer: nopWriteCloser{os.Stdout},
	})
	if *ignoreStdinEOF {
		fmt.Fprintln(os.Stderr, "testserver: stdin closed; staying alive")
		sleepForever()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}

// countStart adds this start to the count kept in file and returns the new
// count.
func countStart(file string) (int, error) {
	starts := 0
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return 0, err
	default:
		if s := strings.TrimSpace(string(data)); s != "" {
			if starts, err = strconv.Atoi(s); err != nil {
				return 0, fmt.Errorf("%s: not a count: %q", file, s)
			}
		}
	}
	starts++
	return starts, os.WriteFile(file, []byte(strconv.Itoa(starts)+"\n"), 0o644)
}

// sleepForever blocks for good. (A pending timer keeps the runtime from
// declaring a deadlock once stdin is gone.)
func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

// eofReader closes stdinClosed when a read fails.
type eofReader struct {
	io.ReadCloser
	once sync.Once
}

func (r *eofReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err != nil {
		r.once.Do(func() { close(stdinClosed) })
	}
	return n, err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// startChild re-executes this binary as a sleeping grandchild in the same
// process group, sharing stdout and stderr as npx's children do.
func startChild() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-child")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	if *childPIDFile != "" {
		return os.WriteFile(*childPIDFile, []byte(pid), 0o644)
	}
	fmt.Fprintln(os.Stderr, "testserver: child pid", pid)
	return nil
}

// startDaemonStage starts this binary as the given daemon stage, in a new
// session, detached from our stdio, and waits for the first stage (which
// exits at once, orphaning the daemon).
func startDaemonStage(stage int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-daemon-stage", strconv.Itoa(stage), "-daemonize", *daemonize)
	newSession(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	if stage == 1 {
		return cmd.Wait()
	}
	return nil
}

func runDaemonStage() {
	if *daemonStage == 1 {
		if err := startDaemonStage(2); err != nil {
			os.Exit(1)
		}
		os.Exit(0) // the daemon is now an orphan
	}
	if err := os.WriteFile(*daemonize, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.Exit(1)
	}
	time.Sleep(time.Hour)
}

type echoIn struct {
	Text string `json:"text"`
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

type slowIn struct {
	MS int `json:"ms"`
}

type bigIn struct {
	N int `json:"n"`
}

type envIn struct {
	Name string `json:"name"`
}

type floodIn struct {
	N int `json:"n"`
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1.0.0"}, nil)

	echoDescription := "Returns its text argument."
	if d := os.Getenv("MCPHOST_TESTSERVER_ECHO_DESCRIPTION"); d != "" {
		echoDescription = d
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: echoDescription},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds a and b (structured output)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "slow", Description: "Sleeps ms milliseconds, reporting progress; stops early when cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			done := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
			defer done.Stop()
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for i := 1; ; i++ {
				select {
				case <-ctx.Done():
					fmt.Fprintln(os.Stderr, "testserver: slow: cancelled")
					return nil, nil, ctx.Err()
				case <-done.C:
					return text("done"), nil, nil
				case <-tick.C:
					if token != nil {
						_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
							ProgressToken: token, Progress: float64(i), Message: "working",
						})
					}
				}
			}
		})
	mcp.AddTool(server, &mcp.Tool{Name: "crash", Description: "Exits the process with status 3 in the middle of the call."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "testserver: crash: exiting with status 3")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "big", Description: "Returns n bytes of text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("x", in.N)), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "stderr", Description: "Writes text to stderr."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, in.Text)
			return text("ok"), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "env", Description: "Returns the value of the environment variable name."},
		func(_ context.Context, _ *mcp.CallToolRequest, in envIn) (*mcp.CallToolResult, any, error) {
			return text(os.Getenv(in.Name)), nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "cwd", Description: "Returns the working directory."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			wd, err := os.Getwd()
			return text(wd), nil, err
		})
	mcp.AddTool(server, &mcp.Tool{Name: "pid", Description: "Returns the process id."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})

	mcp.AddTool(server, &mcp.Tool{Name: "hang", Description: "Never returns, even when cancelled."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "testserver: hang: blocking forever")
			sleepForever()
			return nil, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "flood", Description: "Sends n notifications as fast as it can: progress if the call has a progress token, else log messages."},
		func(ctx context.Context, req *mcp.CallToolRequest, in floodIn) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			for i := 1; i <= in.N; i++ {
				var err error
				if token != nil {
					err = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: token, Progress: float64(i), Total: float64(in.N), Message: "flood",
					})
				} else {
					err = req.Session.Log(ctx, &mcp.LoggingMessageParams{
						Level: "info", Logger: "flood", Data: fmt.Sprintf("flood %d/%d", i, in.N),
					})
				}
				if err != nil {
					return nil, nil, fmt.Errorf("flood: notification %d: %w", i, err)
				}
			}
			return text(fmt.Sprintf("flooded %d", in.N)), nil, nil
		})
	addExtraTools(server, *extraTools)
	if *hugeSchema > 0 {
		server.AddTool(&mcp.Tool{Name: "huge", Description: "Has a huge input schema; returns ok.", InputSchema: hugeInputSchema(*hugeSchema)}, okTool)
	}

	// Receiving middleware, the first of the list running first.
	var mw []mcp.Middleware
	if *hangInitialize {
		mw = append(mw, hold("initialize", "server/discover"))
	} else if *ignoreDiscover {
		mw = append(mw, hold("server/discover"))
	}
	if *delay > 0 {
		mw = append(mw, delayAnswers(*delay))
	}
	if *garbage {
		var once sync.Once
		mw = append(mw, func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				switch method {
				case "initialize", "server/discover", "notifications/initialized":
				default:
					once.Do(func() { fmt.Fprintln(os.Stdout, "this line is not JSON-RPC") })
				}
				return next(ctx, method, req)
			}
		})
	}
	if *deepSchema > 0 {
		mw = append(mw, addDeepTool(server, *deepSchema))
	}
	server.AddReceivingMiddleware(mw...)
	return server
}

// hold returns a middleware that never answers the methods: it keeps them
// pending, whatever cancellation arrives, until stdin ends, and then ends
// the process (or, with -ignore-stdin-eof, keeps them pending for good).
// Exiting, rather than returning, guarantees that no answer is ever written.
func hold(methods ...string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !slices.Contains(methods, method) {
				return next(ctx, method, req)
			}
			fmt.Fprintf(os.Stderr, "testserver: holding %s: it will never be answered\n", method)
			<-stdinClosed
			if *ignoreStdinEOF {
				sleepForever()
			}
			fmt.Fprintf(os.Stderr, "testserver: stdin closed with %s unanswered; exiting\n", method)
			os.Exit(0)
			return nil, nil
		}
	}
}

// delayAnswers returns a middleware that waits d before handling each
// request (not notifications), or fails it when it is cancelled first.
func delayAnswers(d time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if strings.HasPrefix(method, "notifications/") {
				return next(ctx, method, req)
			}
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-t.C:
			}
			return next(ctx, method, req)
		}
	}
}

// okTool is the handler of the huge and deep tools.
func okTool(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return text("ok"), nil
}

// echoSchema is the input schema of the -tools tools.
var echoSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)

// addExtraTools adds n echo tools t00001... (cheap: raw handlers sharing a
// schema, no schema inference).
func addExtraTools(server *mcp.Server, n int) {
	echo := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in echoIn
		if len(req.Params.Arguments) > 0 {
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
		}
		return text(in.Text), nil
	}
	for i := 1; i <= n; i++ {
		server.AddTool(&mcp.Tool{
			Name:        fmt.Sprintf("t%05d", i),
			Description: "Returns its text argument.",
			InputSchema: echoSchema,
		}, echo)
	}
}

const lorem = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. "

// hugeInputSchema returns an object schema of exactly size bytes of compact
// JSON (or the smallest object schema, if size is smaller): string
// properties p00000... with descriptions of up to about 1 KiB.
func hugeInputSchema(size int) json.RawMessage {
	const (
		head = `{"type":"object","properties":{`
		tail = `}}`
		// A property is `"NAME":{"type":"string","description":"DESC"}`.
		propOpen  = `":{"type":"string","description":"`
		propClose = `"}`
		descLen   = 1024
	)
	var b bytes.Buffer
	b.WriteString(head)
	for i := 0; ; i++ {
		sep := ""
		if i > 0 {
			sep = ","
		}
		name := fmt.Sprintf("p%05d", i)
		overhead := len(sep) + 1 + len(name) + len(propOpen) + len(propClose)
		room := size - b.Len() - len(tail) - overhead // for the description
		if room < 0 {
			break
		}
		n := descLen
		// Take it all if another property could not fit after this one.
		if room-n < overhead+1+16 {
			n = room
		}
		b.WriteString(sep + `"` + name + propOpen)
		for n > 0 {
			chunk := lorem[:min(n, len(lorem))]
			b.WriteString(chunk)
			n -= len(chunk)
		}
		b.WriteString(propClose)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// maxDeepSchema bounds -deep-schema: Go's encoding/json refuses to write JSON
// nested deeper than 10000 levels, and a tools/list answer adds 4.
const maxDeepSchema = 4990

// deepInputSchema returns depth levels of
// {"type":"object","properties":{"x":...}} around {"type":"string"}.
func deepInputSchema(depth int) json.RawMessage {
	const opening, closing = `{"type":"object","properties":{"x":`, `}}`
	var b bytes.Buffer
	b.Grow(depth*(len(opening)+len(closing)) + 20)
	for range depth {
		b.WriteString(opening)
	}
	b.WriteString(`{"type":"string"}`)
	for range depth {
		b.WriteString(closing)
	}
	return b.Bytes()
}

// addDeepTool adds the tool deep with a schema nesting depth levels. go-sdk
// refuses to register a schema nested over 1000 levels, so the tool is
// registered with a flat schema, and the middleware returned swaps in the
// deep one in tools/list answers.
func addDeepTool(server *mcp.Server, depth int) mcp.Middleware {
	schema := deepInputSchema(depth)
	server.AddTool(&mcp.Tool{Name: "deep", Description: "Has a deeply nested input schema; returns ok.",
		InputSchema: json.RawMessage(`{"type":"object"}`)}, okTool)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			list, ok := res.(*mcp.ListToolsResult)
			if err != nil || method != "tools/list" || !ok {
				return res, err
			}
			tools := slices.Clone(list.Tools)
			for i, t := range tools {
				if t.Name == "deep" {
					deep := *t
					deep.InputSchema = schema
					tools[i] = &deep
				}
			}
			out := *list
			out.Tools = tools
			return &out, nil
		}
	}
}

// Package hosttest provides MCP servers for tests: a stdio server binary
// with fault modes (see the testserver command), an in-memory server with a
// few tools, helpers serving an *mcp.Server over Streamable HTTP, SSE and
// WebSocket on 127.0.0.1, and Streamable HTTP faults: Faults (failure
// bursts, lost sessions, delays, as middleware) and RestartableHTTP (a
// server stopped and started again at the same URL).
package hosttest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/transports"
)

var build struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// BuildTestServer builds the testserver command once per test binary and
// returns the path of the executable. Call CleanupTestServer from TestMain to
// remove it when the tests are done.
//
// Flags of the binary (documented in the testserver command): -garbage,
// -ignore-stdin-eof, -ignore-sigterm, -spawn-child (with -child-pid-file
// FILE), -crash-at-start, -crash-at-start-times N (with -state-file FILE),
// -hang-initialize, -ignore-discover, -delay DURATION, -tools N,
// -huge-schema BYTES, -deep-schema DEPTH. Tools: echo {text}, add {a,b}
// (structured output {sum}), slow {ms} (progress, honours cancellation),
// crash (exit 3 mid-call), big {n}, stderr {text}, env {name}, cwd, pid, hang
// (never returns, ignores cancellation), flood {n} (n progress or log
// notifications), and with the flags t00001..., huge, deep.
func BuildTestServer(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		build.dir, build.err = os.MkdirTemp("", "mcphost-testserver-")
		if build.err != nil {
			return
		}
		name := "testserver"
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		build.bin = filepath.Join(build.dir, name)
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		cmd := exec.Command(goBin, "build", "-o", build.bin, "github.com/mcphost/mcphost/internal/hosttest/testserver")
		// Build from this package's directory, inside the module, whatever
		// the caller's working directory is.
		if _, file, _, ok := runtime.Caller(0); ok {
			cmd.Dir = filepath.Dir(file)
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build testserver: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatalf("hosttest: %v", build.err)
	}
	return build.bin
}

// CleanupTestServer removes the binary built by BuildTestServer, if any.
// Call it from TestMain after m.Run.
func CleanupTestServer() {
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
}

// EchoIn is the input of the echo tool of NewEchoServer.
type EchoIn struct {
	Text string `json:"text"`
}

// AddIn is the input of the add tool of NewEchoServer.
type AddIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// AddOut is the structured output of the add tool of NewEchoServer.
type AddOut struct {
	Sum float64 `json:"sum"`
}

// BigIn is the input of the big tool of NewEchoServer.
type BigIn struct {
	N int `json:"n"`
}

// NewEchoServer returns an in-memory server named "echo" with the tools
// echo {text} (returns text), add {a,b} (structured output {sum}) and big
// {n} (returns n bytes of text, for size-limit tests).
func NewEchoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text argument."},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds a and b."},
		func(_ context.Context, _ *mcp.CallToolRequest, in AddIn) (*mcp.CallToolResult, AddOut, error) {
			return nil, AddOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Returns n bytes of text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in BigIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.N)}}}, nil, nil
		})
	return s
}

// Middleware wraps the handler of a test server, e.g. to check headers.
type Middleware = func(http.Handler) http.Handler

// ServeHTTP serves srv over Streamable HTTP on 127.0.0.1 until the test ends
// and returns the endpoint URL.
func ServeHTTP(t testing.TB, srv *mcp.Server, mw ...Middleware) string {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	return serve(t, h, mw, nil)
}

// ServeSSE serves srv over the legacy HTTP+SSE transport on 127.0.0.1 until
// the test ends and returns the URL of the event stream.
func ServeSSE(t testing.TB, srv *mcp.Server, mw ...Middleware) string {
	t.Helper()
	h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	return serve(t, h, mw, nil)
}

// ServeWebSocket serves srv over WebSocket (transports.NewWebSocketHandler)
// on 127.0.0.1 until the test ends and returns the ws:// URL.
func ServeWebSocket(t testing.TB, srv *mcp.Server, mw ...Middleware) string {
	t.Helper()
	h := transports.NewWebSocketHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	u := serve(t, h, mw, func() { h.Close() })
	return "ws" + strings.TrimPrefix(u, "http")
}

func serve(t testing.TB, h http.Handler, mw []Middleware, before func()) string {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		if before != nil {
			before()
		}
		// Event streams never finish by themselves: cut them, or Close waits.
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL
}

// Text is the text of a tool result: its text contents, joined.
func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

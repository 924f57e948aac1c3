// Command testserver is a stdio MCP server for mcphost's tests. Its tools
// cover the ordinary cases (echo, add) and the faults a host must survive
// (crash mid-call, huge results, slow calls); flags make the whole process
// misbehave like real servers do (ignore stdin EOF or SIGTERM, spawn a
// grandchild, print garbage on stdout, crash at start).
//
// Tests get the binary from hosttest.BuildTestServer.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	garbage        = flag.Bool("garbage", false, "after the handshake, print a non-JSON line on stdout before answering the next request")
	ignoreStdinEOF = flag.Bool("ignore-stdin-eof", false, "keep running after stdin closes (like many Node servers)")
	ignoreSigterm  = flag.Bool("ignore-sigterm", false, "ignore SIGTERM: only SIGKILL stops the process")
	spawnChild     = flag.Bool("spawn-child", false, "start a grandchild process that sleeps (it inherits stdout and stderr)")
	childPIDFile   = flag.String("child-pid-file", "", "with -spawn-child: write the child's pid to this file (default: to stderr)")
	child          = flag.Bool("child", false, "internal: be the sleeping grandchild")
	crashAtStart   = flag.Bool("crash-at-start", false, "write a message to stderr and exit 1 before answering anything")
)

func main() {
	flag.Parse()
	if *child {
		time.Sleep(time.Hour)
		return
	}
	if *ignoreSigterm {
		signal.Ignore(syscall.SIGTERM)
	}
	if *crashAtStart {
		fmt.Fprintln(os.Stderr, "testserver: fatal: crashing at start as asked")
		os.Exit(1)
	}
	if *spawnChild {
		if err := startChild(); err != nil {
			fmt.Fprintln(os.Stderr, "testserver: spawn child:", err)
			os.Exit(1)
		}
	}

	server := newServer()
	err := server.Run(context.Background(), &mcp.StdioTransport{})
	if *ignoreStdinEOF {
		fmt.Fprintln(os.Stderr, "testserver: stdin closed; staying alive")
		for {
			time.Sleep(time.Hour)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		os.Exit(1)
	}
}

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

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func newServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1.0.0"}, nil)

	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Returns its text argument."},
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

	if *garbage {
		var once sync.Once
		server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
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
	return server
}

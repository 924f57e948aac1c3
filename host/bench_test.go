package host_test

// What the host adds to a tool call: the same Go stdio test server
// (hosttest.BuildTestServer) called through Host.CallTool ("host") and
// through a bare go-sdk ClientSession over mcp.CommandTransport ("bare"),
// at the protocol version the host negotiates. "transport" is the bare
// go-sdk client over mcphost's own stdio transport (transports.New), which
// splits the difference into transport and host layers.
//
//	go test -run='^$' -bench=CallTool -benchtime=3000x -count=5 ./host/
//
// The Parallel variants run 8 goroutines per GOMAXPROCS on one session.
// Besides ns/op (latency, dominated by the wake-ups of two processes and
// noisy on a shared machine) each reports cpu-ns/op: the CPU time the client
// side used per call, which is where the host's own cost shows.

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
	"github.com/mcphost/mcphost/transports"
)

const benchParallelism = 8

// benchCaller makes one echo call and checks its answer.
type benchCaller func(ctx context.Context) error

func benchServerConfig(b *testing.B) *config.Server {
	return &config.Server{ID: "bench", Transport: config.TransportStdio, Command: hosttest.BuildTestServer(b), Enabled: true}
}

// benchHost starts a host with the test server and returns a caller of its
// echo tool by public name.
func benchHost(b *testing.B) benchCaller {
	h, err := host.New(&config.Config{Servers: []*config.Server{benchServerConfig(b)}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close(context.Background()) })
	if err := h.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	st := h.Status()[0]
	if st.State != host.StateReady {
		b.Fatalf("bench server: %s (%s)", st.State, st.Error)
	}
	var name string
	for _, t := range h.Tools() {
		if t.Tool == "echo" {
			name = t.Name
		}
	}
	if name == "" {
		b.Fatal("no echo tool")
	}
	return func(ctx context.Context) error {
		res, err := h.CallTool(ctx, name, map[string]any{"text": "hello"})
		return checkEcho(res, err)
	}
}

// benchSession returns a caller over a bare go-sdk client session on tr,
// pinned to version.
func benchSession(b *testing.B, tr mcp.Transport, version string) benchCaller {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		b.Fatalf("bare session negotiated %s, host %s", got, version)
	}
	return func(ctx context.Context) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
		return checkEcho(res, err)
	}
}

var errBadEcho = errors.New("echo returned something else than its text")

func checkEcho(res *mcp.CallToolResult, err error) error {
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 {
		return errBadEcho
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "hello" {
		return errBadEcho
	}
	return nil
}

// hostVersion is the protocol version the host negotiates with the test
// server, found once.
var hostVersion struct {
	once    sync.Once
	version string
}

// benchVariants builds the caller of a variant. The bare ones use the
// protocol version the host negotiates.
func benchVariants(b *testing.B, variant string) benchCaller {
	if variant == "host" {
		return benchHost(b)
	}
	hostVersion.once.Do(func() {
		h, err := host.New(&config.Config{Servers: []*config.Server{benchServerConfig(b)}})
		if err != nil {
			b.Fatal(err)
		}
		defer h.Close(context.Background())
		if err := h.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		hostVersion.version = h.Status()[0].ProtocolVersion
	})
	version := hostVersion.version
	if version == "" {
		b.Fatal("the host did not negotiate a protocol version with the test server")
	}
	switch variant {
	case "bare":
		return benchSession(b, &mcp.CommandTransport{Command: exec.Command(hosttest.BuildTestServer(b))}, version)
	case "transport":
		tr, err := transports.New(transports.Spec{ID: "bench", Kind: transports.KindStdio, Command: hosttest.BuildTestServer(b)}, transports.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return benchSession(b, tr, version)
	}
	b.Fatalf("unknown variant %q", variant)
	return nil
}

// reportCPU reports the CPU time this process (the client side: host or
// bare session, not the server) used per call since start. Unlike ns/op,
// which is mostly the wake-ups of two processes, it shows what the host
// layer costs.
func reportCPU(b *testing.B, start time.Duration) {
	if cpu := testenv.CPUTime() - start; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkCallTool(b *testing.B) {
	for _, variant := range []string{"host", "bare", "transport"} {
		b.Run(variant, func(b *testing.B) {
			call := benchVariants(b, variant)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			cpu := testenv.CPUTime()
			for range b.N {
				if err := call(ctx); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

func BenchmarkCallToolParallel(b *testing.B) {
	for _, variant := range []string{"host", "bare", "transport"} {
		b.Run(variant, func(b *testing.B) {
			call := benchVariants(b, variant)
			ctx := context.Background()
			b.ReportAllocs()
			b.SetParallelism(benchParallelism)
			b.ResetTimer()
			cpu := testenv.CPUTime()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := call(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
			reportCPU(b, cpu)
		})
	}
}

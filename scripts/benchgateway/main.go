// Command benchgateway is the load generator of scripts/bench-gateway.sh: N
// MCP clients, each with its own Streamable HTTP session, call one tool in a
// loop against a gateway for a fixed time after a warm-up, and it prints the
// throughput, the median and 99th percentile latency of the calls and the
// number of errors.
//
//	benchgateway -url http://127.0.0.1:8080/mcp -clients 64 -warmup 2s -duration 10s
//
// Before the run it waits (up to -wait) until the gateway answers an
// initialize and has the tool. The last line on stdout is machine-readable:
//
//	RESULT clients=64 connected=64 calls=123456 calls_per_s=12345.6 p50_ms=4.321 p99_ms=9.876 errors=0 ...
//
// With -watch-pid PID (Linux) it also reports the CPU the process PID (the
// gateway) and its descendants (the servers it started) used during the
// measured window, in cores (CPU seconds per second), and its own. With
// -pprof URL (the base of a net/http/pprof handler) it saves a CPU profile
// of the measured window and an allocation profile at the end into
// -pprof-dir.
//
// "benchgateway -free-port" prints a TCP port on 127.0.0.1 that was free a
// moment ago, for the script to start a gateway on.
//
// It is a benchmark tool, not a test: nothing here runs in "go test".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	var (
		url         = flag.String("url", "", "Streamable HTTP endpoint of the gateway (http://HOST:PORT/mcp)")
		clients     = flag.Int("clients", 64, "concurrent clients, each with its own session")
		warmup      = flag.Duration("warmup", 2*time.Second, "calls during this time are not measured")
		duration    = flag.Duration("duration", 10*time.Second, "how long calls are measured, after the warm-up")
		wait        = flag.Duration("wait", 60*time.Second, "how long to wait for the gateway to answer before the run")
		tool        = flag.String("tool", "echo", "the tool to call")
		argName     = flag.String("arg", "message", "the name of the tool's string argument")
		protocol    = flag.String("protocol", "2025-11-25", "MCP protocol version the clients ask for (2025-11-25 has sessions; 2026-07-28 is the stateless revision)")
		callTimeout = flag.Duration("call-timeout", 60*time.Second, "a call taking longer than this is an error")
		sse         = flag.Bool("standalone-sse", false, "open each session's standalone SSE stream (GET) as well")
		freePort    = flag.Bool("free-port", false, "print a free TCP port on 127.0.0.1 and exit")
		watchPID    = flag.Int("watch-pid", 0, "report the CPU used by this process and its descendants during the window (Linux)")
		pprofURL    = flag.String("pprof", "", "base URL of the gateway's net/http/pprof handler (http://HOST:PORT/debug/pprof)")
		pprofDir    = flag.String("pprof-dir", ".", "where -pprof saves cpu.pprof and allocs.pprof")
	)
	flag.Parse()
	if *freePort {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fatalf("free port: %v", err)
		}
		fmt.Println(l.Addr().(*net.TCPAddr).Port)
		l.Close()
		return
	}
	if *url == "" || *clients < 1 || *duration <= 0 || *warmup < 0 {
		flag.Usage()
		os.Exit(2)
	}
	b := &bench{
		url: *url, tool: *tool, arg: *argName, protocol: *protocol,
		callTimeout: *callTimeout, sse: *sse,
		watchPID: *watchPID, pprofURL: *pprofURL, pprofDir: *pprofDir,
		httpClient: &http.Client{Transport: &http.Transport{
			// Every client keeps its connections: the default of 2 idle
			// connections per host would make most calls open a new one.
			MaxIdleConns:        4 * *clients,
			MaxIdleConnsPerHost: 4 * *clients,
			IdleConnTimeout:     time.Minute,
		}},
	}
	if err := b.waitReady(*wait); err != nil {
		fatalf("%s did not answer within %s: %v", *url, *wait, err)
	}
	r := b.run(*clients, *warmup, *duration)
	fmt.Fprintf(os.Stderr, "benchgateway: %s: %d clients (%d connected), %d calls in %s: %.1f calls/s, p50 %s, p99 %s, %d errors\n",
		*url, *clients, r.connected, r.calls, *duration, r.callsPerSec, r.p50, r.p99, r.errors)
	if r.firstErr != "" {
		fmt.Fprintf(os.Stderr, "benchgateway: first error: %s\n", r.firstErr)
	}
	if r.profileErr != nil {
		fmt.Fprintf(os.Stderr, "benchgateway: profile: %v\n", r.profileErr)
	}
	fmt.Printf("RESULT clients=%d connected=%d calls=%d calls_per_s=%.1f p50_ms=%.3f p99_ms=%.3f errors=%d gateway_cores=%.2f backend_cores=%.2f generator_cores=%.2f\n",
		*clients, r.connected, r.calls, r.callsPerSec, ms(r.p50), ms(r.p99), r.errors, r.gatewayCores, r.backendCores, r.generatorCores)
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "benchgateway: "+format+"\n", args...)
	os.Exit(1)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

type bench struct {
	url, tool, arg, protocol string
	callTimeout              time.Duration
	sse                      bool
	httpClient               *http.Client
	watchPID                 int
	pprofURL, pprofDir       string
}

func (b *bench) connect(ctx context.Context, name string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	t := &mcp.StreamableClientTransport{
		Endpoint: b.url, HTTPClient: b.httpClient,
		MaxRetries: -1, DisableStandaloneSSE: !b.sse,
	}
	return c.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: b.protocol})
}

// call calls the tool once and checks that the answer holds the text sent.
func (b *bench) call(cs *mcp.ClientSession, text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), b.callTimeout)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: b.tool, Arguments: map[string]any{b.arg: text}})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("tool error: %s", resultText(res))
	}
	if got := resultText(res); !strings.Contains(got, text) {
		return fmt.Errorf("answer %q does not hold %q", got, text)
	}
	return nil
}

func resultText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	return sb.String()
}

// waitReady connects one client until the gateway answers and lists the
// tool, or the time is up.
func (b *bench) waitReady(limit time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var last error
	for {
		attempt, cancelAttempt := context.WithTimeout(ctx, 10*time.Second)
		cs, err := b.connect(attempt, "benchgateway-probe")
		if err == nil {
			err = b.hasTool(attempt, cs)
			cs.Close()
		}
		cancelAttempt()
		if err == nil {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return last
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (b *bench) hasTool(ctx context.Context, cs *mcp.ClientSession) error {
	var names []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		if t.Name == b.tool {
			return nil
		}
		names = append(names, t.Name)
	}
	return fmt.Errorf("no tool %q among %v", b.tool, names)
}

type result struct {
	connected   int
	calls       int
	errors      int64
	callsPerSec float64
	p50, p99    time.Duration
	firstErr    string

	gatewayCores, backendCores, generatorCores float64 // -1 when not measured
	profileErr                                 error
}

// run connects all clients first (a failed connect is an error and that
// client does not call), then lets every client call in a loop. Calls that
// end within [start+warmup, start+warmup+duration] are measured; a client
// stops after its first call that ends past the window.
func (b *bench) run(clients int, warmup, duration time.Duration) result {
	var (
		errs     atomic.Int64
		firstErr atomic.Pointer[string]
	)
	recordErr := func(err error) {
		errs.Add(1)
		s := err.Error()
		firstErr.CompareAndSwap(nil, &s)
	}

	sessions := make([]*mcp.ClientSession, clients)
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*b.callTimeout)
			defer cancel()
			cs, err := b.connect(ctx, fmt.Sprintf("benchgateway-%d", i))
			if err != nil {
				recordErr(fmt.Errorf("connect: %w", err))
				return
			}
			sessions[i] = cs
		}()
	}
	wg.Wait()
	connectErrs := errs.Load()

	start := time.Now()
	from, to := start.Add(warmup), start.Add(warmup+duration)
	// At the start of the window: CPU counters, and the CPU profile.
	var (
		cpuFrom    cpuSample
		profileErr = make(chan error, 1)
		windowWG   sync.WaitGroup
	)
	windowWG.Add(1)
	go func() {
		defer windowWG.Done()
		time.Sleep(time.Until(from))
		cpuFrom = b.sampleCPU()
		if b.pprofURL == "" {
			profileErr <- nil
			return
		}
		secs := max(1, int(duration.Seconds()))
		profileErr <- fetch(fmt.Sprintf("%s/profile?seconds=%d", b.pprofURL, secs), filepath.Join(b.pprofDir, "cpu.pprof"))
	}()
	latencies := make([][]time.Duration, clients)
	var measuredErrs atomic.Int64
	for i, cs := range sessions {
		if cs == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 4096)
			for n := 0; ; n++ {
				t0 := time.Now()
				err := b.call(cs, fmt.Sprintf("client %d call %d", i, n))
				t1 := time.Now()
				measured := t1.After(from) && !t1.After(to)
				switch {
				case measured && err != nil:
					measuredErrs.Add(1)
					recordErr(err)
				case measured:
					lat = append(lat, t1.Sub(t0))
				}
				if t1.After(to) {
					break
				}
				if err != nil && errors.Is(err, mcp.ErrConnectionClosed) {
					// The session is gone: this client does nothing more
					// rather than spin on errors (counted once).
					if !measured {
						measuredErrs.Add(1)
						recordErr(err)
					}
					break
				}
			}
			latencies[i] = lat
		}()
	}
	wg.Wait()
	cpuTo := b.sampleCPU()
	windowWG.Wait()
	pErr := <-profileErr
	if b.pprofURL != "" && pErr == nil {
		pErr = fetch(b.pprofURL+"/allocs", filepath.Join(b.pprofDir, "allocs.pprof"))
	}
	for _, cs := range sessions {
		if cs != nil {
			cs.Close()
		}
	}

	var all []time.Duration
	connected := 0
	for i, l := range latencies {
		if sessions[i] != nil {
			connected++
		}
		all = append(all, l...)
	}
	slices.Sort(all)
	r := result{
		connected:   connected,
		calls:       len(all),
		errors:      connectErrs + measuredErrs.Load(),
		callsPerSec: float64(len(all)) / duration.Seconds(),
		p50:         percentile(all, 0.50),
		p99:         percentile(all, 0.99),
	}
	if p := firstErr.Load(); p != nil {
		r.firstErr = *p
	}
	r.profileErr = pErr
	r.gatewayCores, r.backendCores, r.generatorCores = cpuTo.coresSince(cpuFrom)
	return r
}

// cpuSample is what the gateway, its descendants and this process had used
// of the CPU at one time.
type cpuSample struct {
	at                          time.Time
	gateway, backend, generator time.Duration
	ok                          bool // the gateway's were read
}

func (b *bench) sampleCPU() cpuSample {
	s := cpuSample{at: time.Now(), generator: selfCPU()}
	if b.watchPID > 0 {
		s.gateway, s.backend, s.ok = treeCPU(b.watchPID)
	}
	return s
}

// coresSince returns the cores (CPU seconds per second) each used between
// from and s, -1 for what was not measured.
func (s cpuSample) coresSince(from cpuSample) (gateway, backend, generator float64) {
	wall := s.at.Sub(from.at).Seconds()
	if wall <= 0 {
		return -1, -1, -1
	}
	gateway, backend = -1, -1
	if s.ok && from.ok {
		gateway = (s.gateway - from.gateway).Seconds() / wall
		// Descendants that exited and were not waited for by a live
		// descendant (reparented to init) take their CPU time with them:
		// with short-lived servers the sum can go down.
		if s.backend >= from.backend {
			backend = (s.backend - from.backend).Seconds() / wall
		}
	}
	generator = -1
	if s.generator > 0 {
		generator = (s.generator - from.generator).Seconds() / wall
	}
	return gateway, backend, generator
}

// fetch saves what url answers into file.
func fetch(url, file string) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// percentile returns the nearest-rank p-quantile of sorted, or 0 when empty.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

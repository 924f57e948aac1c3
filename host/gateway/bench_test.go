package gateway_test

// What a tool call through the gateway's Streamable HTTP endpoint costs, the
// same path as "mcphost serve --http" under scripts/bench-gateway.sh: many
// clients, each with its own stateful session, calling a backend's echo tool
// through the host's pipeline. The backend is the Go stdio test server
// (hosttest.BuildTestServer, a child process behind mcphost's stdio
// transport) or the same tools in process.
//
//	go test -run='^$' -bench=GatewayCall -benchtime=20000x -count=5 ./gateway/
//
// The clients are plain HTTP requests with prepared bodies, not go-sdk
// clients, so that the figures are the gateway's: allocs/op and B/op are
// (almost all) the gateway's, the host's and the transports'. cpu-ns/op is
// the CPU time this process used per call (the stdio backend's is its own
// process's). The heapfloor variant runs with the collector setting of
// "mcphost serve --http" (internal/gctune), the others with Go's default.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/gateway"
	"github.com/mcphost/mcphost/internal/gctune"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
)

func TestMain(m *testing.M) {
	code := m.Run()
	hosttest.CleanupTestServer()
	os.Exit(code)
}

// benchClients is how many sessions call at once (scripts/bench-gateway.sh
// runs 64).
const benchClients = 64

func BenchmarkGatewayCall(b *testing.B) {
	for _, v := range []struct {
		name, backend string
		heapFloor     bool
	}{
		{"stdio", "stdio", false},
		{"inprocess", "inprocess", false},
		// With the collector setting "mcphost serve --http" uses (see
		// internal/gctune; without GOGC or GOMEMLIMIT in the environment).
		{"stdio-heapfloor", "stdio", true},
	} {
		b.Run(v.name, func(b *testing.B) {
			if v.heapFloor {
				b.Cleanup(gctune.HeapFloor(gctune.DefaultHeapFloor))
			}
			url, tool := benchGateway(b, v.backend)
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * benchClients, MaxIdleConns: 2 * benchClients}}
			b.Cleanup(hc.CloseIdleConnections)
			sessions := make([]*rawSession, benchClients)
			for i := range sessions {
				s, err := openRawSession(hc, url)
				if err != nil {
					b.Fatal(err)
				}
				sessions[i] = s
			}
			// One call each, outside the measure (first-use costs).
			for _, s := range sessions {
				if err := s.call(tool, "warm"); err != nil {
					b.Fatal(err)
				}
			}
			var left atomic.Int64
			left.Store(int64(b.N))
			var wg sync.WaitGroup
			var failed atomic.Value
			b.ReportAllocs()
			b.ResetTimer()
			cpu := testenv.CPUTime()
			for i, s := range sessions {
				wg.Add(1)
				go func() {
					defer wg.Done()
					text := fmt.Sprintf("hello %d", i)
					for left.Add(-1) >= 0 {
						if err := s.call(tool, text); err != nil {
							failed.CompareAndSwap(nil, err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			if c := testenv.CPUTime() - cpu; c > 0 {
				b.ReportMetric(float64(c.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
			if err, _ := failed.Load().(error); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// benchGateway serves a gateway over HTTP in front of one backend and
// returns its /mcp URL and the public name of the backend's echo tool.
func benchGateway(b *testing.B, backend string) (string, string) {
	return benchGatewayWith(b, backend, gateway.HTTPOptions{})
}

func benchGatewayWith(b *testing.B, backend string, o gateway.HTTPOptions) (string, string) {
	sc := &config.Server{ID: "bench", Enabled: true, Source: "bench", StartupTimeout: time.Minute, RequestTimeout: time.Minute}
	relay := gateway.NewRelay()
	opts := relay.HostOptions()
	switch backend {
	case "stdio":
		sc.Transport, sc.Command = config.TransportStdio, hosttest.BuildTestServer(b)
	case "inprocess":
		sc.Transport = config.TransportInProcess
		opts = append(opts, host.WithInProcessServer("bench", hosttest.NewEchoServer()))
	}
	h, err := host.New(&config.Config{Servers: []*config.Server{sc}}, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close(context.Background()) })
	if err := h.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	if st := h.Status()[0]; st.State != host.StateReady {
		b.Fatalf("backend: %s (%s)", st.State, st.Error)
	}
	g := gateway.New(h, gateway.Options{Relay: relay})
	g.Sync(context.Background())
	handler, err := g.HTTPHandler(o)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	b.Cleanup(srv.Close)
	b.Cleanup(func() {
		for ss := range g.Server().Sessions() {
			ss.Close()
		}
	})
	for _, t := range h.Tools() {
		if t.Tool == "echo" {
			return srv.URL + "/mcp", t.Name
		}
	}
	b.Fatal("no echo tool")
	return "", ""
}

// rawSession is a Streamable HTTP session made of plain requests.
type rawSession struct {
	hc      *http.Client
	url, id string
	next    int
	buf     bytes.Buffer
}

const benchProtocol = "2025-11-25"

func openRawSession(hc *http.Client, url string) (*rawSession, error) {
	s := &rawSession{hc: hc, url: url}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + benchProtocol +
		`","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`
	resp, err := s.post(init)
	if err != nil {
		return nil, err
	}
	s.id = resp.Header.Get("Mcp-Session-Id")
	if s.id == "" {
		return nil, fmt.Errorf("initialize: no session id (%s): %s", resp.Status, s.buf.String())
	}
	if _, err := s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	return s, nil
}

// post sends one message and reads the whole answer into s.buf.
func (s *rawSession) post(body string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", benchProtocol)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	s.buf.Reset()
	if _, err := s.buf.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s: %s", resp.Status, s.buf.String())
	}
	return resp, nil
}

// call calls tool {text} and checks that the answer is its text.
func (s *rawSession) call(tool, text string) error {
	s.next++
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"text":%q}}}`, s.next, tool, text)
	if _, err := s.post(body); err != nil {
		return err
	}
	want := fmt.Sprintf(`"text":%q`, text)
	if !bytes.Contains(s.buf.Bytes(), []byte(want)) || bytes.Contains(s.buf.Bytes(), []byte(`"isError":true`)) {
		return fmt.Errorf("tools/call: unexpected answer %s", s.buf.String())
	}
	return nil
}

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/internal/testenv"
)

// serving is a "mcphost serve" running in-process.
type serving struct {
	cancel context.CancelFunc
	done   chan int
	stderr *testenv.Buffer
}

func (s *serving) stop(t *testing.T) int {
	t.Helper()
	s.cancel()
	select {
	case code := <-s.done:
		return code
	case <-time.After(failAfter):
		t.Fatalf("serve did not stop; stderr:\n%s", s.stderr.String())
		return -1
	}
}

func (e *testEnv) serve(stdin io.Reader, stdout io.Writer, args ...string) *serving {
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{cancel: cancel, done: make(chan int, 1), stderr: &testenv.Buffer{}}
	a := newApp(stdin, stdout, s.stderr)
	a.globalDir, a.stateDir, a.workDir, a.environ = e.global, e.state, e.work, e.environ
	a.managedDir = e.managed
	a.resultsDirOverride = e.results()
	a.hostOptions = e.hostOpts
	a.watchInterval = 20 * time.Millisecond
	go func() { s.done <- a.execute(ctx, append([]string{"serve"}, args...)) }()
	return s
}

var servingAddr = regexp.MustCompile(`serving http://([0-9.:\[\]]+)/mcp`)

// address waits for the line that names the address.
func (s *serving) address(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(failAfter)
	for time.Now().Before(deadline) {
		if m := servingAddr.FindStringSubmatch(s.stderr.String()); m != nil {
			return m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no address on stderr:\n%s", s.stderr.String())
	return ""
}

func gatewayEnv(t *testing.T) *testEnv {
	e := newEnv(t)
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{"local": testServer(t)}})
	writeFile(t, filepath.Join(e.global, "config.json"), string(cfg))
	return e
}

// Over stdio, stdout carries the MCP stream only, and a client lists and
// calls the backends' tools.
func TestServeStdio(t *testing.T) {
	e := gatewayEnv(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := e.serve(inR, outW)
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-client"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__local__echo", Arguments: map[string]any{"text": "over stdio"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "over stdio" {
		t.Fatalf("call: %+v %v", res, err)
	}
	cs.Close()
	inW.Close()
	if code := s.stop(t); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), "tools from 1 server") || strings.Contains(s.stderr.String(), "1 servers") {
		t.Errorf("stderr:\n%s", s.stderr.String())
	}
}

// Over HTTP with a token: no token is a 401 pointing at the protected
// resource metadata; the token lets a client in.
func TestServeHTTPWithToken(t *testing.T) {
	e := gatewayEnv(t)
	const token = "gateway-token-0123456789"
	e.environ = []string{"SRE_TOKEN=" + token}
	auditFile := filepath.Join(t.TempDir(), "audit.jsonl")
	s := e.serve(strings.NewReader(""), io.Discard, "--http", "127.0.0.1:0", "--auth-token-env", "SRE_TOKEN",
		"--metrics", "127.0.0.1:0", "--audit-log", auditFile)
	defer s.stop(t)
	base := "http://" + s.address(t)

	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "/.well-known/oauth-protected-resource/mcp") {
		t.Fatalf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	prm, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	json.NewDecoder(prm.Body).Decode(&meta)
	prm.Body.Close()
	if meta["resource"] != base+"/mcp" {
		t.Fatalf("metadata: %v", meta)
	}

	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	client := &http.Client{Transport: bearer{token}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: client}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr.String())
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__local__echo", Arguments: map[string]any{"text": "over http"}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "over http" {
		t.Fatalf("call: %+v %v", res, err)
	}
	if strings.Contains(s.stderr.String(), token) {
		t.Fatal("the token reached stderr")
	}

	// The call is counted and audited (without its arguments).
	m := regexp.MustCompile(`metrics at (http://\S+/metrics)`).FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no metrics address:\n%s", s.stderr.String())
	}
	mresp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	if !strings.Contains(string(body), `mcphost_gateway_calls_total{outcome="ok",server="local",tool="mcp__local__echo"} 1`) ||
		!strings.Contains(string(body), `mcphost_backend_state{server="local",state="ready"} 1`) {
		t.Fatalf("metrics:\n%s", body)
	}
	data, err := os.ReadFile(auditFile)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal(data, &rec); err != nil || rec["caller"] != "token:sre_token" || rec["tool"] != "mcp__local__echo" ||
		rec["outcome"] != "ok" || rec["decision"] != "allow" || strings.Contains(string(data), "over http") {
		t.Fatalf("audit log: %v %s", err, data)
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Serving beyond this machine needs incoming authentication, or saying
// that none is wanted.
func TestServeRefusesOpenNonLoopback(t *testing.T) {
	e := gatewayEnv(t)
	r := e.must(2, "serve", "--http", "0.0.0.0:0")
	if !strings.Contains(r.stderr, "--auth-token-env") {
		t.Fatalf("%s", r)
	}
	e.environ = []string{"SHORT=abc"}
	e.must(2, "serve", "--http", "127.0.0.1:0", "--auth-token-env", "SHORT")
}

// The session bounds must be positive: 0 would be no session at all.
func TestServeRefusesZeroSessionBounds(t *testing.T) {
	e := gatewayEnv(t)
	for _, flag := range []string{"--session-idle-timeout=0s", "--max-sessions-per-caller=0", "--max-sessions=0"} {
		if r := e.must(2, "serve", "--http", "127.0.0.1:0", flag); !strings.Contains(r.stderr, "must be positive") {
			t.Fatalf("%s: %s", flag, r)
		}
	}
}

// With --watch, a server added to the configuration reaches the clients of
// the running gateway, whose session goes on.
func TestServeWatchAddsServers(t *testing.T) {
	e := gatewayEnv(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := e.serve(inR, outW, "--watch")
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	changed := make(chan struct{}, 8)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "watching"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	}).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr.String())
	}
	cfg, _ := json.Marshal(map[string]any{"servers": map[string]any{"local": testServer(t), "other": testServer(t)}})
	writeFile(t, filepath.Join(e.global, "config.json"), string(cfg))
	for {
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tl := range tools.Tools {
			found = found || tl.Name == "mcp__other__echo"
		}
		if found {
			break
		}
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("the added server's tools never came; stderr:\n%s", s.stderr.String())
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__other__echo", Arguments: map[string]any{"text": "added live"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %+v %v", res, err)
	}
	// A server added together with a new policy is not started under the
	// old one: it waits for a restart, and stderr says so.
	cfg, _ = json.Marshal(map[string]any{
		"servers": map[string]any{"local": testServer(t), "other": testServer(t), "third": testServer(t)},
		"policy":  map[string]any{"deny": []string{"*third*"}},
	})
	writeFile(t, filepath.Join(e.global, "config.json"), string(cfg))
	for !strings.Contains(s.stderr.String(), "config: server third: host: not applied: the configuration's policy changed") {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("the held server was not reported; stderr:\n%s", s.stderr.String())
		}
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if strings.HasPrefix(tl.Name, "mcp__third__") {
			t.Fatalf("%s is offered: a server was started without the policy that came with it", tl.Name)
		}
	}
	cs.Close()
	inW.Close()
	if code := s.stop(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// --auth-token-env names the fix that applies: an unset variable is said
// to be unset (not "too short"), a short token to be short.
func TestServeTokenEnvSaysWhatIsWrong(t *testing.T) {
	e := gatewayEnv(t)
	r := e.run("serve", "--http", "127.0.0.1:0", "--auth-token-env", "UNSET_TOKEN_VAR")
	if r.code != exitUsage {
		t.Fatalf("unset variable: exit %d\n%s", r.code, r)
	}
	wantContains(t, "unset variable", r.stderr, "UNSET_TOKEN_VAR", "is not set", "export UNSET_TOKEN_VAR=")
	if strings.Contains(r.stderr, "at least 16") && !strings.Contains(r.stderr, "not set") {
		t.Errorf("an unset variable is reported as a short token:\n%s", r.stderr)
	}
	e.environ = []string{"SHORT_TOKEN=abc"}
	r = e.run("serve", "--http", "127.0.0.1:0", "--auth-token-env", "SHORT_TOKEN")
	if r.code != exitUsage {
		t.Fatalf("short token: exit %d\n%s", r.code, r)
	}
	wantContains(t, "short token", r.stderr, "SHORT_TOKEN", "at least 16 characters")
	if strings.Contains(r.stderr, "abc") {
		t.Errorf("the token's value was printed:\n%s", r.stderr)
	}
}

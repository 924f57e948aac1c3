package host_test

// End-to-end tests against real third-party MCP servers from npm
// (@modelcontextprotocol/server-everything in its stdio, sse and
// streamableHttp modes, server-filesystem and server-memory). They need the
// packages installed by scripts/npm-deps.sh; without them the tests skip (or
// fail when MCPHOST_REQUIRE_E2E or CI is set). Deadlines here are failure
// bounds only.

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
)

// e2eBound bounds every wait of the end-to-end tests (Node servers start
// slowly on a loaded machine, more so under -race).
const e2eBound = 90 * time.Second

func e2eContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eBound)
	t.Cleanup(cancel)
	return ctx
}

// testLogger sends the host's logs to the test log when MCPHOST_TEST_LOG is
// set (to a level: trace, debug, info...); it discards them otherwise.
func testLogger(t testing.TB) host.Option {
	level := os.Getenv("MCPHOST_TEST_LOG")
	if level == "" {
		return host.WithLogger(nil) // keeps the default, which discards
	}
	return host.WithLogger(hclog.New(&hclog.LoggerOptions{
		Name: t.Name(), Level: hclog.LevelFromString(level), Output: testWriter{t}, IncludeLocation: false,
	}))
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// startE2EHost starts a host and closes it when the test ends.
func startE2EHost(t *testing.T, cfg *config.Config, opts ...host.Option) *host.Host {
	t.Helper()
	h, err := host.New(cfg, append([]host.Option{testLogger(t)}, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), e2eBound)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := h.Start(e2eContext(t)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return h
}

// requireReady fails the test unless every server is ready, showing the
// error and stderr of those that are not.
func requireReady(t *testing.T, h *host.Host) {
	t.Helper()
	for _, st := range h.Status() {
		if st.State != host.StateReady {
			t.Fatalf("server %q: state %s, error %q, stderr:\n%s", st.ID, st.State, st.Error, strings.Join(st.Stderr, "\n"))
		}
	}
}

// publicName returns the public name of server's tool, failing the test when
// the host does not list it.
func publicName(t *testing.T, h *host.Host, server, tool string) string {
	t.Helper()
	for _, tl := range h.Tools() {
		if tl.Server == server && tl.Tool == tool {
			return tl.Name
		}
	}
	var names []string
	for _, tl := range h.Tools() {
		names = append(names, tl.Display)
	}
	t.Fatalf("no tool %s:%s; tools: %v", server, tool, names)
	return ""
}

// callText calls a tool, fails on a Go error or an IsError result, and
// returns the text content.
func callText(t *testing.T, h *host.Host, name string, args map[string]any) string {
	t.Helper()
	res, err := h.CallTool(e2eContext(t), name, args)
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	if res.IsError {
		t.Fatalf("CallTool(%s): tool error: %s", name, hosttest.Text(res))
	}
	return hosttest.Text(res)
}

// stdioNPMServer is the config of an npm server run over stdio with the npm
// folder first in PATH (their scripts start with "#!/usr/bin/env node").
func stdioNPMServer(t *testing.T, id, bin string, args []string, extraEnv ...string) *config.Server {
	t.Helper()
	return &config.Server{
		ID:             id,
		Transport:      config.TransportStdio,
		Command:        filepath.Join(testenv.NPMBin(t), bin),
		Args:           args,
		Env:            testenv.ServerEnv(t, extraEnv...),
		Enabled:        true,
		StartupTimeout: e2eBound,
		RequestTimeout: e2eBound,
	}
}

// everythingServer returns the config of server-everything in mode
// (stdio, sse or streamableHttp), starting the HTTP ones as child processes
// on a free 127.0.0.1 port. They listen on every interface (Express's
// app.listen(PORT)); the host only ever connects through 127.0.0.1.
func everythingServer(t *testing.T, id, mode string) *config.Server {
	t.Helper()
	switch mode {
	case "stdio":
		return stdioNPMServer(t, id, "mcp-server-everything", nil)
	case "sse":
		base, _ := testenv.StartNPMHTTPServer(t, "mcp-server-everything", "sse")
		return &config.Server{ID: id, Transport: config.TransportSSE, URL: base + "/sse", Enabled: true, StartupTimeout: e2eBound, RequestTimeout: e2eBound}
	case "streamableHttp":
		base, _ := testenv.StartNPMHTTPServer(t, "mcp-server-everything", "streamableHttp")
		return &config.Server{ID: id, Transport: config.TransportHTTP, URL: base + "/mcp", Enabled: true, StartupTimeout: e2eBound, RequestTimeout: e2eBound}
	}
	t.Fatalf("unknown mode %q", mode)
	return nil
}

func TestE2EEverything(t *testing.T) {
	testenv.NPMBin(t)
	for _, mode := range []string{"stdio", "sse", "streamableHttp"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			h := startE2EHost(t, &config.Config{Servers: []*config.Server{everythingServer(t, "everything", mode)}})
			requireReady(t, h)
			ctx := e2eContext(t)

			st := statusOf(t, h, "everything")
			if st.ServerName == "" || st.ServerVersion == "" || st.ProtocolVersion == "" || st.Tools == 0 {
				t.Errorf("status lacks server info: %+v", st)
			}
			t.Logf("%s: server %s %s, protocol %s, %d tools, connected in %s", mode, st.ServerName, st.ServerVersion, st.ProtocolVersion, st.Tools, st.ConnectDuration)
			wantTransport := map[string]string{"stdio": config.TransportStdio, "sse": config.TransportSSE, "streamableHttp": config.TransportHTTP}[mode]
			if st.Transport != wantTransport {
				t.Errorf("status transport = %q, want %q", st.Transport, wantTransport)
			}

			// Tools.
			for _, tool := range []string{"echo", "get-sum", "get-tiny-image", "get-structured-content", "get-resource-links", "trigger-long-running-operation"} {
				publicName(t, h, "everything", tool)
			}
			if got := callText(t, h, publicName(t, h, "everything", "echo"), map[string]any{"message": "hello e2e"}); got != "Echo: hello e2e" {
				t.Errorf("echo = %q", got)
			}
			if got := callText(t, h, "everything:get-sum", map[string]any{"a": 2, "b": 40}); !strings.Contains(got, "42") {
				t.Errorf("get-sum = %q, want the sum 42", got)
			}

			// Image content.
			res, err := h.CallTool(ctx, publicName(t, h, "everything", "get-tiny-image"), nil)
			if err != nil || res.IsError {
				t.Fatalf("get-tiny-image: %v %+v", err, res)
			}
			var img *mcp.ImageContent
			for _, c := range res.Content {
				if ic, ok := c.(*mcp.ImageContent); ok {
					img = ic
				}
			}
			if img == nil || img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("get-tiny-image: no PNG image content in %+v", res.Content)
			}

			// Resources: find a static document by listing, then read it.
			resources, err := h.Resources(ctx, "everything")
			if err != nil {
				t.Fatalf("Resources: %v", err)
			}
			var doc string
			for _, r := range resources {
				if strings.HasPrefix(r.URI, "demo://resource/static/document/") {
					doc = r.URI
					break
				}
			}
			if doc == "" {
				t.Fatalf("no demo://resource/static/document/ resource among %d", len(resources))
			}
			read, err := h.ReadResource(ctx, "", doc)
			if err != nil {
				t.Fatalf("ReadResource(%s): %v", doc, err)
			}
			if len(read.Contents) == 0 || read.Contents[0].URI != doc || (read.Contents[0].Text == "" && len(read.Contents[0].Blob) == 0) {
				t.Errorf("ReadResource(%s) = %+v", doc, read.Contents)
			}
			if tmpls, err := h.ResourceTemplates(ctx, "everything"); err != nil || len(tmpls) == 0 {
				t.Errorf("ResourceTemplates: %d, %v", len(tmpls), err)
			}

			// Prompts.
			prompts, err := h.Prompts(ctx, "everything")
			if err != nil {
				t.Fatalf("Prompts: %v", err)
			}
			var promptNames []string
			for _, p := range prompts {
				promptNames = append(promptNames, p.Name)
			}
			for _, want := range []string{"simple-prompt", "args-prompt"} {
				if !slices.Contains(promptNames, want) {
					t.Errorf("prompt %q not listed in %v", want, promptNames)
				}
			}
			pr, err := h.GetPrompt(ctx, "simple-prompt", nil)
			if err != nil || len(pr.Messages) == 0 {
				t.Fatalf("GetPrompt(simple-prompt): %v %+v", err, pr)
			}
			if tc, ok := pr.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text == "" {
				t.Errorf("simple-prompt message = %#v", pr.Messages[0].Content)
			}
			pr, err = h.GetPrompt(ctx, "everything:args-prompt", map[string]string{"city": "Lyon", "state": "Rhone"})
			if err != nil || len(pr.Messages) == 0 {
				t.Fatalf("GetPrompt(args-prompt): %v %+v", err, pr)
			}
			if tc, ok := pr.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "Lyon, Rhone") {
				t.Errorf("args-prompt message = %#v, want the arguments in it", pr.Messages[0].Content)
			}

			// Progress.
			var (
				mu      sync.Mutex
				updates []host.Progress
			)
			got := make(chan struct{}, 16)
			res, err = h.CallTool(ctx, publicName(t, h, "everything", "trigger-long-running-operation"),
				map[string]any{"duration": 0.3, "steps": 3},
				host.WithProgress(func(p host.Progress) {
					mu.Lock()
					updates = append(updates, p)
					mu.Unlock()
					got <- struct{}{}
				}))
			if err != nil || res.IsError {
				t.Fatalf("trigger-long-running-operation: %v %+v", err, res)
			}
			if !strings.Contains(hosttest.Text(res), "completed") {
				t.Errorf("trigger-long-running-operation = %q", hosttest.Text(res))
			}
			select {
			case <-got:
			case <-ctx.Done():
				t.Fatal("no progress notification arrived")
			}
			mu.Lock()
			first := updates[0]
			n := len(updates)
			mu.Unlock()
			if first.Server != "everything" || first.Total != 3 || first.Progress < 1 {
				t.Errorf("progress = %+v", first)
			}
			// Not all three need arrive: go-sdk hands notifications to their
			// handler asynchronously but delivers responses at once, and a
			// progress notification handled after CallTool returned finds its
			// token released and is dropped.
			t.Logf("%s: %d of 3 progress notifications delivered", mode, n)

			if err := h.Close(ctx); err != nil {
				t.Errorf("Close: %v", err)
			}
			if st := statusOf(t, h, "everything"); st.State != host.StateClosed {
				t.Errorf("state after Close = %s", st.State)
			}
		})
	}
}

func TestE2EFilesystem(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "existing.txt"), []byte("already here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := startE2EHost(t, &config.Config{Servers: []*config.Server{
		stdioNPMServer(t, "fs", "mcp-server-filesystem", []string{dir}),
	}})
	requireReady(t, h)

	newFile := filepath.Join(dir, "written.txt")
	if got := callText(t, h, publicName(t, h, "fs", "write_file"), map[string]any{"path": newFile, "content": "written by mcphost\nline 2\n"}); !strings.Contains(got, "Successfully wrote") {
		t.Errorf("write_file = %q", got)
	}
	data, err := os.ReadFile(newFile)
	if err != nil || string(data) != "written by mcphost\nline 2\n" {
		t.Fatalf("file on disk = %q, %v", data, err)
	}
	listing := callText(t, h, publicName(t, h, "fs", "list_directory"), map[string]any{"path": dir})
	for _, want := range []string{"[FILE] existing.txt", "[FILE] written.txt"} {
		if !strings.Contains(listing, want) {
			t.Errorf("list_directory = %q, want %q in it", listing, want)
		}
	}
	if got := callText(t, h, publicName(t, h, "fs", "read_file"), map[string]any{"path": newFile}); got != "written by mcphost\nline 2\n" {
		t.Errorf("read_file = %q", got)
	}
	// Outside the allowed directory: a tool error, not a Go error.
	res, err := h.CallTool(e2eContext(t), publicName(t, h, "fs", "read_file"), map[string]any{"path": filepath.Join(filepath.Dir(dir), "outside.txt")})
	if err != nil || !res.IsError {
		t.Errorf("read_file outside the root: err %v, result %+v; want IsError", err, res)
	}
}

func TestE2EMemory(t *testing.T) {
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	h := startE2EHost(t, &config.Config{Servers: []*config.Server{
		stdioNPMServer(t, "memory", "mcp-server-memory", nil, "MEMORY_FILE_PATH", memFile),
	}})
	requireReady(t, h)

	res, err := h.CallTool(e2eContext(t), publicName(t, h, "memory", "create_entities"), map[string]any{
		"entities": []map[string]any{
			{"name": "mcphost", "entityType": "project", "observations": []string{"written in Go"}},
			{"name": "server-memory", "entityType": "server", "observations": []string{"stores a knowledge graph"}},
		},
	})
	if err != nil || res.IsError {
		t.Fatalf("create_entities: %v %+v", err, res)
	}
	res, err = h.CallTool(e2eContext(t), publicName(t, h, "memory", "read_graph"), nil)
	if err != nil || res.IsError {
		t.Fatalf("read_graph: %v %+v", err, res)
	}
	var graph struct {
		Entities []struct {
			Name         string   `json:"name"`
			EntityType   string   `json:"entityType"`
			Observations []string `json:"observations"`
		} `json:"entities"`
	}
	if err := json.Unmarshal([]byte(hosttest.Text(res)), &graph); err != nil {
		t.Fatalf("read_graph text is not the graph JSON: %v\n%s", err, hosttest.Text(res))
	}
	var names []string
	for _, e := range graph.Entities {
		names = append(names, e.Name+"/"+e.EntityType)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "mcphost/project,server-memory/server" {
		t.Errorf("entities = %v", names)
	}
	if res.StructuredContent == nil {
		t.Error("read_graph: structuredContent lost")
	}
	if data, err := os.ReadFile(memFile); err != nil || !bytes.Contains(data, []byte("mcphost")) {
		t.Errorf("memory file %q: %v, %q", memFile, err, data)
	}
}

// TestE2ESeveralServers runs three real servers in one host: each keeps its
// tools, the public names are distinct, and they do not change when the
// host is built again.
func TestE2ESeveralServers(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	cfg := func() *config.Config {
		return &config.Config{Servers: []*config.Server{
			stdioNPMServer(t, "everything", "mcp-server-everything", nil),
			stdioNPMServer(t, "fs", "mcp-server-filesystem", []string{dir}),
			stdioNPMServer(t, "memory", "mcp-server-memory", nil, "MEMORY_FILE_PATH", memFile),
		}}
	}
	names := func(h *host.Host) []string {
		var out []string
		seen := map[string]bool{}
		perServer := map[string]int{}
		for _, tl := range h.Tools() {
			if seen[tl.Name] {
				t.Errorf("public name %q appears twice", tl.Name)
			}
			seen[tl.Name] = true
			perServer[tl.Server]++
			out = append(out, tl.Name+"="+tl.Display)
		}
		for _, id := range []string{"everything", "fs", "memory"} {
			if perServer[id] == 0 {
				t.Errorf("no tools from %q", id)
			}
		}
		return out
	}

	h1 := startE2EHost(t, cfg())
	requireReady(t, h1)
	first := names(h1)
	for _, st := range h1.Status() {
		if st.Tools == 0 || st.ServerName == "" {
			t.Errorf("status %+v", st)
		}
	}
	if got := callText(t, h1, publicName(t, h1, "everything", "echo"), map[string]any{"message": "x"}); got != "Echo: x" {
		t.Errorf("echo = %q", got)
	}
	callText(t, h1, publicName(t, h1, "fs", "list_directory"), map[string]any{"path": dir})
	callText(t, h1, publicName(t, h1, "memory", "read_graph"), nil)
	if err := h1.Close(e2eContext(t)); err != nil {
		t.Fatalf("Close: %v", err)
	}

	h2 := startE2EHost(t, cfg())
	requireReady(t, h2)
	if second := names(h2); !slices.Equal(first, second) {
		t.Errorf("public names changed between two hosts:\n%v\n%v", first, second)
	}
	t.Logf("%d tools from 3 servers", len(first))
}

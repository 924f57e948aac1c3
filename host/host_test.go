package host_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/demo"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// bound is a failure bound for waits, never a performance expectation.
const bound = 20 * time.Second

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	t.Cleanup(cancel)
	return ctx
}

func startHost(t *testing.T, cfg *config.Config, opts ...host.Option) *host.Host {
	t.Helper()
	if cfg == nil {
		cfg = &config.Config{}
	}
	h, err := host.New(cfg, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if err := h.Start(testContext(t)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return h
}

type textArgs struct {
	Text string `json:"text"`
}

// newToolServer returns a server with the named tools, each echoing its
// "text" argument prefixed with the tool name.
func newToolServer(name string, tools ...string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, nil)
	for _, tool := range tools {
		mcp.AddTool(s, &mcp.Tool{Name: tool, Description: "echoes " + tool}, func(_ context.Context, _ *mcp.CallToolRequest, in textArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tool + ":" + in.Text}}}, nil, nil
		})
	}
	return s
}

func statusOf(t *testing.T, h *host.Host, id string) host.ServerStatus {
	t.Helper()
	for _, st := range h.Status() {
		if st.ID == id {
			return st
		}
	}
	t.Fatalf("no status for %q", id)
	return host.ServerStatus{}
}

func TestToolsAreNamedAndCallableAcrossServers(t *testing.T) {
	h := startHost(t, nil,
		host.WithInProcessServer("alpha", newToolServer("alpha", "echo", "search")),
		host.WithInProcessServer("beta", newToolServer("beta", "echo")),
	)
	var names []string
	for _, tool := range h.Tools() {
		names = append(names, tool.Name+"="+tool.Display)
	}
	want := "mcp__alpha__echo=alpha:echo mcp__alpha__search=alpha:search mcp__beta__echo=beta:echo"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("tools:\n got %s\nwant %s", got, want)
	}
	ctx := testContext(t)
	for name, want := range map[string]string{
		"mcp__alpha__echo": "echo:hi",
		"beta:echo":        "echo:hi",
		"mcp__beta__echo":  "echo:hi",
	} {
		res, err := h.CallTool(ctx, name, map[string]any{"text": "hi"})
		if err != nil {
			t.Fatalf("CallTool(%s): %v", name, err)
		}
		if got := hosttest.Text(res); got != want {
			t.Errorf("CallTool(%s) = %q, want %q", name, got, want)
		}
	}
	if _, err := h.CallTool(ctx, "mcp__gamma__echo", nil); !errors.Is(err, host.ErrUnknownTool) {
		t.Errorf("unknown tool: err = %v, want 'no tool'", err)
	}
	st := statusOf(t, h, "alpha")
	if st.State != host.StateReady || st.Tools != 2 || st.ServerName != "alpha" || st.Transport != config.TransportInProcess || st.ProtocolVersion == "" {
		t.Errorf("status = %+v", st)
	}
}

func TestToolFilterAllowDeny(t *testing.T) {
	cfg := &config.Config{Servers: []*config.Server{{
		ID: "alpha", Enabled: true,
		Tools: config.ToolFilter{Allow: []string{"read_*", "list"}, Deny: []string{"read_secret*"}},
	}}}
	h := startHost(t, cfg, host.WithInProcessServer("alpha",
		newToolServer("alpha", "read_file", "read_secrets", "list", "delete")))
	var got []string
	for _, tool := range h.Tools() {
		got = append(got, tool.Tool)
	}
	if strings.Join(got, ",") != "list,read_file" {
		t.Fatalf("tools after filter = %v, want [list read_file]", got)
	}
	if _, err := h.CallTool(testContext(t), "alpha:delete", nil); err == nil {
		t.Fatal("a denied tool was callable")
	}
}

// tools.deny globs match across '/' and '.': a server cannot slip a tool
// named "fs/delete_file" past deny "*delete*".
func TestToolFilterStarCrossesSeparators(t *testing.T) {
	cfg := &config.Config{Servers: []*config.Server{{
		ID: "alpha", Enabled: true,
		Tools: config.ToolFilter{Deny: []string{"*delete*", "*.rm"}},
	}}}
	h := startHost(t, cfg, host.WithInProcessServer("alpha",
		newToolServer("alpha", "fs/delete_file", "a.b.rm", "read")))
	var got []string
	for _, tool := range h.Tools() {
		got = append(got, tool.Tool)
	}
	if strings.Join(got, ",") != "read" {
		t.Fatalf("tools after filter = %v, want [read]", got)
	}
}

func TestNameSchemes(t *testing.T) {
	for scheme, want := range map[string]string{
		config.SchemePrefixed: "mcp__alpha__echo,mcp__alpha__only_alpha,mcp__beta__echo",
		config.SchemeServer:   "alpha_echo,alpha_only_alpha,beta_echo",
		config.SchemeBare:     "alpha_echo,beta_echo,only_alpha",
	} {
		t.Run(scheme, func(t *testing.T) {
			cfg := &config.Config{Names: config.Names{Scheme: scheme}}
			h := startHost(t, cfg,
				host.WithInProcessServer("alpha", newToolServer("alpha", "echo", "only.alpha")),
				host.WithInProcessServer("beta", newToolServer("beta", "echo")),
			)
			var names []string
			for _, tool := range h.Tools() {
				names = append(names, tool.Name)
			}
			if got := strings.Join(names, ","); got != want {
				t.Errorf("names = %s, want %s", got, want)
			}
		})
	}
	if _, err := host.New(&config.Config{Names: config.Names{Scheme: "nope"}}); err == nil {
		t.Error("an unknown scheme was accepted")
	}
}

// blockingServer has a tool "block" that waits until its request is
// cancelled and reports that on cancelled.
func blockingServer(cancelled chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "blocking", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		<-ctx.Done()
		cancelled <- struct{}{}
		return nil, nil, ctx.Err()
	})
	return s
}

func TestCallDeadlineCancelsOnServer(t *testing.T) {
	cancelled := make(chan struct{}, 1)
	cfg := &config.Config{Servers: []*config.Server{{ID: "slow", Enabled: true, RequestTimeout: 100 * time.Millisecond}}}
	h := startHost(t, cfg, host.WithInProcessServer("slow", blockingServer(cancelled)))

	_, err := h.CallTool(testContext(t), "slow:block", nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `server "slow"`) || !strings.Contains(err.Error(), "100ms") {
		t.Fatalf("err = %v, want a deadline error naming the server and the timeout", err)
	}
	select {
	case <-cancelled:
	case <-time.After(bound):
		t.Fatal("the server never saw the cancellation")
	}

	// A per-call override, and cancellation by the caller.
	ctx, cancel := context.WithCancel(testContext(t))
	go func() { <-time.After(50 * time.Millisecond); cancel() }()
	_, err = h.CallTool(ctx, "slow:block", nil, host.WithTimeout(time.Hour))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	select {
	case <-cancelled:
	case <-time.After(bound):
		t.Fatal("the server never saw the caller's cancellation")
	}
}

func TestProgressReachesCallback(t *testing.T) {
	h := startHost(t, nil, host.WithInProcessServer("demo", demo.NewServer()))
	var (
		mu      sync.Mutex
		updates []host.Progress
	)
	res, err := h.CallTool(testContext(t), "demo:slow", map[string]any{"duration_ms": 300}, host.WithProgress(func(p host.Progress) {
		mu.Lock()
		updates = append(updates, p)
		mu.Unlock()
	}))
	if err != nil || res.IsError {
		t.Fatalf("CallTool: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(updates) == 0 {
		t.Fatal("no progress notification arrived")
	}
	if updates[0].Server != "demo" {
		t.Errorf("progress server = %q", updates[0].Server)
	}
}

func TestContentKindsAndStructuredContent(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "kinds", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "all"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{
			Content: []mcp.Content{
				&mcp.TextContent{Text: "t"},
				&mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"},
				&mcp.AudioContent{Data: []byte{3}, MIMEType: "audio/wav"},
				&mcp.ResourceLink{URI: "file:///x", Name: "x"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://y", Text: "y"}},
			},
			StructuredContent: map[string]any{"ok": true},
			IsError:           true,
		}, nil, nil
	})
	h := startHost(t, nil, host.WithInProcessServer("kinds", s))
	res, err := h.CallTool(testContext(t), "kinds:all", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 5 || !res.IsError || res.StructuredContent == nil {
		t.Fatalf("result lost content: %+v", res)
	}
	for i, want := range []string{"*mcp.TextContent", "*mcp.ImageContent", "*mcp.AudioContent", "*mcp.ResourceLink", "*mcp.EmbeddedResource"} {
		if got := typeName(res.Content[i]); got != want {
			t.Errorf("content[%d] = %s, want %s", i, got, want)
		}
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

func TestToolListChangedUpdatesRegistry(t *testing.T) {
	srv := newToolServer("alpha", "echo")
	var (
		mu     sync.Mutex
		events []host.Event
	)
	h := startHost(t, nil, host.WithInProcessServer("alpha", srv), host.WithEvents(func(e host.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}))
	mcp.AddTool(srv, &mcp.Tool{Name: "added"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "new"}}}, nil, nil
	})
	deadline := time.Now().Add(bound)
	for {
		if _, ok := h.Resolve("mcp__alpha__added"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("tools/list_changed did not add the new tool")
		}
		time.Sleep(10 * time.Millisecond)
	}
	res, err := h.CallTool(testContext(t), "mcp__alpha__added", nil)
	if err != nil || hosttest.Text(res) != "new" {
		t.Fatalf("calling the added tool: %v", err)
	}
	srv.RemoveTools("echo")
	for {
		if _, ok := h.Resolve("mcp__alpha__echo"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("tools/list_changed did not remove the tool")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestElicitationAndCapabilities(t *testing.T) {
	var gotCaps *mcp.ClientCapabilities
	s := mcp.NewServer(&mcp.Implementation{Name: "asker", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		gotCaps = req.Session.InitializeParams().Capabilities
		if gotCaps.Elicitation == nil {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no elicitation"}}}, nil, nil
		}
		r, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
			Message:         "name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Action + ":" + r.Content["name"].(string)}}}, nil, nil
	})

	// Server-initiated elicitation inside a request is a pre-2026-07-28 flow
	// (later versions use multi round-trip requests, which go-sdk's client
	// answers through the same handler).
	cfg := &config.Config{Servers: []*config.Server{{ID: "asker", Enabled: true, ProtocolVersion: "2025-11-25"}}}
	t.Run("without handler", func(t *testing.T) {
		h := startHost(t, cfg, host.WithInProcessServer("asker", s))
		res, err := h.CallTool(testContext(t), "asker:ask", nil)
		if err != nil || hosttest.Text(res) != "no elicitation" {
			t.Fatalf("got %v %v", res, err)
		}
		if gotCaps.Roots.ListChanged || gotCaps.Sampling != nil {
			t.Errorf("undeclared capabilities sent: %+v", gotCaps)
		}
	})
	t.Run("with handler", func(t *testing.T) {
		var askedBy string
		h := startHost(t, cfg, host.WithInProcessServer("asker", s), host.WithElicitationHandler(
			func(_ context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				askedBy = server
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			}))
		res, err := h.CallTool(testContext(t), "asker:ask", nil)
		if err != nil || hosttest.Text(res) != "accept:Ada" || askedBy != "asker" {
			t.Fatalf("got %v %v (asked by %q)", hosttest.Text(res), err, askedBy)
		}
	})
}

func TestResourcesPromptsAndCompletion(t *testing.T) {
	h := startHost(t, nil,
		host.WithInProcessServer("demo", demo.NewServer()),
		host.WithInProcessServer("other", newToolServer("other", "x")),
	)
	ctx := testContext(t)
	res, err := h.Resources(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range res {
		uris = append(uris, r.Server+" "+r.URI)
	}
	if !strings.Contains(strings.Join(uris, "|"), "demo demo://readme") {
		t.Fatalf("resources = %v", uris)
	}
	read, err := h.ReadResource(ctx, "", "demo://readme")
	if err != nil || len(read.Contents) == 0 || read.Contents[0].Text == "" {
		t.Fatalf("ReadResource: %v %+v", err, read)
	}
	// Found by template.
	if _, err := h.ReadResource(ctx, "", "demo://notes/welcome"); err != nil {
		t.Fatalf("ReadResource by template: %v", err)
	}
	if _, err := h.ReadResource(ctx, "", "nowhere://x"); !errors.Is(err, host.ErrUnknownResource) {
		t.Fatalf("unknown resource: %v", err)
	}
	prompts, err := h.Prompts(ctx, "")
	if err != nil || len(prompts) == 0 || prompts[0].Display != "demo:summarize" {
		t.Fatalf("Prompts: %v %+v", err, prompts)
	}
	for _, name := range []string{"summarize", "demo:summarize"} {
		pr, err := h.GetPrompt(ctx, name, map[string]string{"topic": "hosts"})
		if err != nil || len(pr.Messages) == 0 {
			t.Fatalf("GetPrompt(%s): %v", name, err)
		}
		// The listing GetPrompt would use, with the arguments to check.
		listed, ok := h.ListedPrompt(name)
		if !ok || listed.Server != "demo" || listed.Name != "summarize" || len(listed.Arguments) == 0 || listed.Arguments[0].Name != "topic" {
			t.Fatalf("ListedPrompt(%s) = %+v, %v", name, listed, ok)
		}
	}
	for _, name := range []string{"nothing", "demo:nothing", "other:summarize"} {
		if p, ok := h.ListedPrompt(name); ok {
			t.Errorf("ListedPrompt(%s) = %+v, want none", name, p)
		}
	}
	comp, err := h.Complete(ctx, "demo", &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "summarize"},
		Argument: mcp.CompleteParamsArgument{Name: "topic", Value: ""},
	})
	if err != nil || len(comp.Completion.Values) == 0 {
		t.Fatalf("Complete: %v %+v", err, comp)
	}
}

func TestStatusOfUnstartableServers(t *testing.T) {
	cfg := &config.Config{Servers: []*config.Server{
		{ID: "bad", Transport: config.TransportStdio, Enabled: true, Source: "x.yaml", Err: errors.New(`config: x.yaml: server "bad": command is missing`)},
		{ID: "off", Transport: config.TransportStdio, Command: "true", Enabled: false},
		{ID: "stranger", Transport: config.TransportStdio, Command: "true", Enabled: true, Untrusted: true, Source: "proj/.mcp.json"},
	}}
	h := startHost(t, cfg, host.WithInProcessServer("good", newToolServer("good", "echo")))
	want := map[string]host.State{"bad": host.StateError, "off": host.StateDisabled, "stranger": host.StateUntrusted, "good": host.StateReady}
	for id, state := range want {
		st := statusOf(t, h, id)
		if st.State != state {
			t.Errorf("%s: state %s, want %s (%s)", id, st.State, state, st.Error)
		}
	}
	if st := statusOf(t, h, "stranger"); !strings.Contains(st.Error, "mcphost trust") {
		t.Errorf("untrusted status does not say how to trust: %q", st.Error)
	}
	_, err := h.CallTool(testContext(t), "off:anything", nil)
	if err == nil {
		t.Error("call to a disabled server succeeded")
	}
}

func TestCloseIsIdempotentAndFailsLaterCalls(t *testing.T) {
	h, err := host.New(&config.Config{}, host.WithInProcessServer("a", newToolServer("a", "echo")))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.CallTool(ctx, "a:echo", nil); !errors.Is(err, host.ErrClosed) {
		t.Fatalf("call after Close: %v", err)
	}
}

func TestRootsAndSamplingReachHandlers(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "needy", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		caps := req.Session.InitializeParams().Capabilities
		if caps.RootsV2 == nil && !caps.Roots.ListChanged {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no roots capability"}}}, nil, nil
		}
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return nil, nil, err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(uris, ",")}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sample"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if req.Session.InitializeParams().Capabilities.Sampling == nil {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no sampling capability"}}}, nil, nil
		}
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			MaxTokens: 10,
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "2+2?"}}},
		})
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{res.Content}}, nil, nil
	})
	cfg := &config.Config{Servers: []*config.Server{{ID: "needy", Enabled: true, ProtocolVersion: "2025-11-25"}}}

	t.Run("not declared without handlers", func(t *testing.T) {
		h := startHost(t, cfg, host.WithInProcessServer("needy", s))
		for tool, want := range map[string]string{"needy:roots": "no roots capability", "needy:sample": "no sampling capability"} {
			res, err := h.CallTool(testContext(t), tool, nil)
			if err != nil || hosttest.Text(res) != want {
				t.Errorf("%s: %q %v, want %q", tool, hosttest.Text(res), err, want)
			}
		}
	})
	t.Run("handlers answer", func(t *testing.T) {
		var sampledFor string
		h := startHost(t, cfg, host.WithInProcessServer("needy", s),
			host.WithRoots(&mcp.Root{URI: "file:///project", Name: "project"}),
			host.WithSamplingHandler(func(_ context.Context, server string, req *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
				sampledFor = server
				return &mcp.CreateMessageResult{Role: "assistant", Model: "test", Content: &mcp.TextContent{Text: "4"}}, nil
			}))
		res, err := h.CallTool(testContext(t), "needy:roots", nil)
		if err != nil || hosttest.Text(res) != "file:///project" {
			t.Errorf("roots: %q %v", hosttest.Text(res), err)
		}
		res, err = h.CallTool(testContext(t), "needy:sample", nil)
		if err != nil || hosttest.Text(res) != "4" || sampledFor != "needy" {
			t.Errorf("sampling: %q %v (asked by %q)", hosttest.Text(res), err, sampledFor)
		}
	})
}

// A disabled server in an untrusted project shows disabled: it would not
// start even if the project were trusted.
func TestDisabledUntrustedShowsDisabled(t *testing.T) {
	cfg := &config.Config{Servers: []*config.Server{{ID: "off", Transport: config.TransportStdio, Command: "x", Enabled: false, Untrusted: true, Source: "/p/.mcphost.yaml"}}}
	h := startHost(t, cfg)
	if st := statusOf(t, h, "off"); st.State != host.StateDisabled {
		t.Fatalf("off: %s (%s), want disabled", st.State, st.Error)
	}
}

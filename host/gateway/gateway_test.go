package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/gateway"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
	"github.com/mcphost/mcphost/pdk/abi"
)

const bound = 20 * time.Second

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	t.Cleanup(cancel)
	return ctx
}

// backend is a test server with a tool that reports progress, one that
// asks the user (elicitation), a resource and a prompt.
// backendSubscribed hears of the backend's subscriptions (one test uses it).
var backendSubscribed = make(chan string, 1)

func backend() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1.0.0"}, &mcp.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *mcp.SubscribeRequest) error {
			select {
			case backendSubscribed <- req.Params.URI:
			default:
			}
			return nil
		},
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns its text argument."},
		func(_ context.Context, _ *mcp.CallToolRequest, in hosttest.EchoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds a and b."},
		func(_ context.Context, _ *mcp.CallToolRequest, in hosttest.AddIn) (*mcp.CallToolResult, hosttest.AddOut, error) {
			return nil, hosttest.AddOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Reports progress."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				for i := 1; i <= 3; i++ {
					req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3})
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "choose", Description: "Asks the user to pick colours (a titled multi-select), in the middle of the call."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "colours?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"colours": map[string]any{
					"type": "array", "items": map[string]any{"type": "string", "anyOf": []any{
						map[string]any{"const": "r", "title": "Red"}, map[string]any{"const": "g", "title": "Green"}}}}}}})
			if err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(res.Action, res.Content["colours"])}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Asks the user for a name."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			// Protocol 2026-07-28: ask in the result, get the answer in
			// the retried call (go-sdk adapts it for older clients).
			if r, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult); ok {
				name, _ := r.Content["name"].(string)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Action + ":" + name}}}, nil, nil
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "your name?", RequestedSchema: map[string]any{
				"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}}}, nil, nil
		})
	s.AddResource(&mcp.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "read me"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"]}}}}, nil
		})
	return s
}

type fixture struct {
	relay   *gateway.Relay
	h       *host.Host
	g       *gateway.Gateway
	backend *mcp.Server
	client  *mcp.ClientSession
	changed atomic.Int64 // tools/list_changed the client saw
}

func start(t *testing.T, stages []host.StageConfig, clientOpts *mcp.ClientOptions) *fixture {
	t.Helper()
	return startPinned(t, "", stages, clientOpts)
}

// startPinned is start with the backend's protocol version pinned.
func startPinned(t *testing.T, version string, stages []host.StageConfig, clientOpts *mcp.ClientOptions) *fixture {
	t.Helper()
	return startWith(t, version, stages, clientOpts, gateway.Options{})
}

func startWith(t *testing.T, version string, stages []host.StageConfig, clientOpts *mcp.ClientOptions, gwOpts gateway.Options) *fixture {
	t.Helper()
	return startClient(t, version, "", stages, clientOpts, gwOpts)
}

// startClient is startWith with the client's protocol version chosen too.
func startClient(t *testing.T, version, clientVersion string, stages []host.StageConfig, clientOpts *mcp.ClientOptions, gwOpts gateway.Options) *fixture {
	t.Helper()
	testenv.CheckGoroutines(t)
	f := &fixture{backend: backend()}
	ctx := ctxFor(t)
	cfg := &config.Config{Servers: []*config.Server{{ID: "b", Transport: config.TransportInProcess, Enabled: true,
		StartupTimeout: bound, RequestTimeout: bound, Source: "test", ProtocolVersion: version}}}
	relay := gateway.NewRelay()
	f.relay = relay
	sink, events := gateway.EventSink()
	opts := append(relay.HostOptions(), host.WithInProcessServer("b", f.backend), host.WithEvents(sink), host.WithStages(stages...))
	h, err := host.New(cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	f.h = h
	gwOpts.Relay = relay
	f.g = gateway.New(h, gwOpts)
	wctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.g.Watch(wctx, events); close(done) }()
	f.g.Sync(ctx)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := f.g.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	if clientOpts == nil {
		clientOpts = &mcp.ClientOptions{}
	}
	clientOpts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { f.changed.Add(1) }
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client"}, clientOpts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: clientVersion})
	if err != nil {
		t.Fatal(err)
	}
	f.client = cs
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		stop()
		<-done
		cctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		h.Close(cctx)
	})
	return f
}

func TestToolsPassThrough(t *testing.T) {
	f := start(t, nil, nil)
	ctx := ctxFor(t)
	tools, err := f.client.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"mcp__b__echo", "mcp__b__add", "mcp__b__slow"} {
		if !names[want] {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__echo", Arguments: map[string]any{"text": "through the gateway"}})
	if err != nil || hosttest.Text(res) != "through the gateway" {
		t.Fatalf("echo: %v %v", res, err)
	}
	res, err = f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__add", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || res.StructuredContent == nil || !strings.Contains(hosttest.Text(res), "5") {
		t.Fatalf("add: %+v %v", res, err)
	}
	// Progress reaches the caller.
	var progress atomic.Int64
	f.client.Close()
	f2 := start(t, nil, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) }})
	params := &mcp.CallToolParams{Name: "mcp__b__slow"}
	params.SetProgressToken("p1")
	if res, err := f2.client.CallTool(ctx, params); err != nil || hosttest.Text(res) != "done" {
		t.Fatalf("slow: %v %v", res, err)
	}
	waitFor(t, "3 progress notifications", func() bool { return progress.Load() == 3 })
}

// A tool the backend adds reaches the client with list_changed.
func TestListChangedReachesClients(t *testing.T) {
	f := start(t, nil, nil)
	ctx := ctxFor(t)
	before := f.changed.Load()
	mcp.AddTool(f.backend, &mcp.Tool{Name: "late"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late"}}}, nil, nil
	})
	waitFor(t, "the new tool", func() bool {
		tools, err := f.client.ListTools(ctx, nil)
		if err != nil {
			return false
		}
		for _, tl := range tools.Tools {
			if tl.Name == "mcp__b__late" {
				return true
			}
		}
		return false
	})
	waitFor(t, "list_changed", func() bool { return f.changed.Load() > before })
}

func TestResourcesAndPrompts(t *testing.T) {
	f := start(t, nil, nil)
	ctx := ctxFor(t)
	rr, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://readme"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "read me" {
		t.Fatalf("read: %+v %v", rr, err)
	}
	pr, err := f.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "gateway"}})
	if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != "hello gateway" {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
}

// A backend's elicitation reaches the client whose call waits on it.
func TestElicitationIsRelayed(t *testing.T) {
	var asked atomic.Value
	f := start(t, nil, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Store(req.Params.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}, nil
	}})
	res, err := f.client.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "mcp__b__ask"})
	if err != nil || hosttest.Text(res) != "accept:ada" || asked.Load() != "your name?" {
		t.Fatalf("ask: %q %v (asked %v)", hosttest.Text(res), err, asked.Load())
	}
}

// A form the specification allows and go-sdk's own checks refuse (a titled
// multi-select whose items say "type": "string") reaches the client, and
// its answer the backend.
func TestTitledMultiSelectIsRelayed(t *testing.T) {
	for _, clientVersion := range []string{"2025-11-25", "2026-07-28"} {
		var asked atomic.Value
		f := startClient(t, "2025-11-25", clientVersion, nil, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Store(req.Params.Message)
			// go-sdk's backend would refuse an accepted answer to this
			// form (its own check): decline.
			return &mcp.ElicitResult{Action: "decline"}, nil
		}}, gateway.Options{})
		res, err := f.client.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "mcp__b__choose"})
		if err != nil || hosttest.Text(res) != "decline<nil>" || asked.Load() != "colours?" {
			t.Fatalf("client %s: choose: %q %v (asked %v)", clientVersion, hosttest.Text(res), err, asked.Load())
		}
	}
}

// When a client fails the elicitation go-sdk sends it on the gateway's
// behalf, the call ends with the request: nothing is left waiting for an
// answer that cannot come.
func TestFailedElicitationEndsTheCall(t *testing.T) {
	f := startClient(t, "2025-11-25", "2025-11-25", nil, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, errors.New("no form here")
	}}, gateway.Options{})
	if res, err := f.client.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "mcp__b__choose"}); err == nil && !res.IsError {
		t.Fatalf("choose with a failing client: %q; want an error", hosttest.Text(res))
	}
	if !gateway.WaitIdle(f.relay, ctxFor(t)) {
		t.Fatal("the call is still pending after its request ended")
	}
}

// A policy's confirm is an elicitation to the caller; a client that cannot
// elicit gets a denial the model can read.
func TestConfirmBecomesElicitation(t *testing.T) {
	stages := []host.StageConfig{{Stage: confirmAll{}}}
	var confirmations atomic.Int64
	f := start(t, stages, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		confirmations.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
	}})
	res, err := f.client.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "mcp__b__echo", Arguments: map[string]any{"text": "ok"}})
	if err != nil || res.IsError || hosttest.Text(res) != "ok" || confirmations.Load() != 1 {
		t.Fatalf("confirmed call: %q %v (%d confirmations)", hosttest.Text(res), err, confirmations.Load())
	}
	f2 := start(t, stages, nil)
	res, err = f2.client.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "mcp__b__echo", Arguments: map[string]any{"text": "ok"}})
	if err != nil || !res.IsError {
		t.Fatalf("a client that cannot confirm: %+v %v; want a tool error", res, err)
	}
	// Nobody said no: the refusal says the client cannot be asked, and
	// what the operator can change.
	text := hosttest.Text(res)
	for _, want := range []string{"every call is confirmed", "confirmation required, but no one can be asked: the client did not declare the elicitation capability",
		"use a client that supports elicitation, or the gateway's operator can change the policy of stage test:confirm"} {
		if !strings.Contains(text, want) {
			t.Errorf("refusal %q; want %q", text, want)
		}
	}
	if strings.Contains(text, "declined") {
		t.Errorf("refusal %q says declined, as if a person had said no", text)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %s", what, bound)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type confirmAll struct{}

func (confirmAll) StageName() string { return "test:confirm" }

func (confirmAll) Policy(context.Context, *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	return &abi.PolicyDecision{Decision: abi.Confirm, Reason: "every call is confirmed"}, nil
}

// A backend's log message reaches the gateway's clients, its logger named
// after the backend (protocols before 2026-07-28, which deprecates logging).
func TestLogMessagesReachClients(t *testing.T) {
	got := make(chan *mcp.LoggingMessageParams, 1)
	f := startWith(t, "2025-06-18", nil, &mcp.ClientOptions{LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
		select {
		case got <- req.Params:
		default:
		}
	}}, gateway.Options{ForwardLogs: true})
	ctx := ctxFor(t)
	if err := f.client.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	for ss := range f.backend.Sessions() {
		ss.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "db", Data: "disk almost full"})
	}
	select {
	case p := <-got:
		if p.Logger != "b/db" || p.Data != "disk almost full" {
			t.Fatalf("log message %+v", p)
		}
	case <-ctx.Done():
		t.Fatal("no log message reached the client")
	}
}

type allowAll struct{}

func (allowAll) StageName() string { return "test:allow" }

func (allowAll) Policy(context.Context, *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	return &abi.PolicyDecision{Decision: abi.Allow}, nil
}

// A call through the gateway is one span, with a child span per pipeline
// stage.
func TestTraces(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	f := startWith(t, "", []host.StageConfig{{Stage: allowAll{}}}, nil, gateway.Options{Tracer: tp.Tracer("test")})
	if _, err := f.client.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "mcp__b__echo", Arguments: map[string]any{"text": "traced"}}); err != nil {
		t.Fatal(err)
	}
	var call, stage tracetest.SpanStub
	for _, s := range exp.GetSpans() {
		switch s.Name {
		case "tools/call mcp__b__echo":
			call = s
		case "stage test:allow policy":
			stage = s
		}
	}
	if call.Name == "" || stage.Name == "" || stage.Parent.SpanID() != call.SpanContext.SpanID() {
		t.Fatalf("spans: %+v", exp.GetSpans())
	}
}

// A request state the gateway did not hand out is an invalid request.
func TestForgedRequestStateIsRefused(t *testing.T) {
	f := start(t, nil, nil)
	_, err := f.client.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "mcp__b__echo", Arguments: map[string]any{"text": "x"}, RequestState: "forged"})
	if err == nil || !strings.Contains(err.Error(), "invalid requestState") {
		t.Fatalf("a forged state: %v", err)
	}
}

// A client's subscription reaches the backend, and the backend's updates
// reach the client. The backend is on 2025-11-25: go-sdk's client turns a
// subscription on 2026-07-28 into a subscriptions/listen stream, which
// this path does not carry yet.
func TestResourceSubscriptions(t *testing.T) {
	updated := make(chan string, 64)
	f := startPinned(t, "2025-11-25", nil, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}})
	ctx := ctxFor(t)
	if err := f.client.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://readme"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-backendSubscribed:
	case <-ctx.Done():
		t.Fatal("the subscription did not reach the backend")
	}
	updateReaches(ctx, t, f, updated)
	if err := f.client.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "test://readme"}); err != nil {
		t.Fatal(err)
	}
}

// Shutdown stops accepting but lets a call in flight finish.
func TestShutdownFinishesCallsInFlight(t *testing.T) {
	f := start(t, nil, nil)
	started, release := make(chan struct{}), make(chan struct{})
	mcp.AddTool(f.backend, &mcp.Tool{Name: "hold"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		close(started)
		<-release
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "finished"}}}, nil, nil
	})
	waitFor(t, "the new tool", func() bool { _, ok := f.h.Resolve("mcp__b__hold"); return ok })
	ctx := ctxFor(t)
	f.g.Sync(ctx)
	handler, err := f.g.HTTPHandler(gateway.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- f.g.Serve(serveCtx, ln, handler, bound) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	result := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__hold"})
		if err != nil {
			result <- err.Error()
			return
		}
		result <- hosttest.Text(res)
	}()
	<-started
	stop() // SIGTERM: stop accepting, let the call finish
	close(release)
	if got := <-result; got != "finished" {
		t.Fatalf("the call in flight got %q", got)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	cs.Close()
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
}

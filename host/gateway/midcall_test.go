package gateway_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/gateway"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// A backend written the way most servers are (it logs, samples and elicits
// in the middle of a call, as protocols up to 2025-11-25 let it), with no
// protocol_version in its entry, fronted by a gateway with default options.

// consult logs, asks for a sample and for a name in the middle of the call,
// and returns what it got.
func consult(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "consult", Data: "consulting"}); err != nil {
		return nil, nil, err
	}
	sample, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
		Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "capital of France?"}}}})
	if err != nil {
		return nil, nil, fmt.Errorf("sampling: %w", err)
	}
	answer, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "your name?", RequestedSchema: nameForm()})
	if err != nil {
		return nil, nil, fmt.Errorf("elicitation: %w", err)
	}
	text, _ := sample.Content.(*mcp.TextContent)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s/%s:%v", text.Text, answer.Action, answer.Content["name"])}}}, nil, nil
}

// logLines collects the log messages a client receives.
type logLines struct {
	mu   sync.Mutex
	seen []string
}

func (l *logLines) handler(_ context.Context, req *mcp.LoggingMessageRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = append(l.seen, fmt.Sprint(req.Params.Logger, ": ", req.Params.Data))
}

func (l *logLines) has(line string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.seen {
		if s == line {
			return true
		}
	}
	return false
}

func answeringClient(logs *logLines) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		LoggingMessageHandler: logs.handler,
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}}, nil
		},
	}
}

// The backend's sampling and elicitation reach the caller, and so does the
// log line it wrote during the call, whatever the caller's protocol: with
// default options, not only with a pinned backend and --forward-logs.
func TestMidCallRequestsAndLogsReachTheCaller(t *testing.T) {
	for _, clientVersion := range []string{"2025-11-25", "2025-06-18", ""} {
		t.Run("client "+clientVersion, func(t *testing.T) {
			logs := &logLines{}
			f := startClient(t, "", clientVersion, nil, answeringClient(logs), gateway.Options{})
			addBackendTool(t, f, "consult", consult)
			ctx := ctxFor(t)
			params := &mcp.CallToolParams{Name: "mcp__b__consult"}
			if clientVersion == "" {
				// Protocol 2026-07-28 asks for log messages per request.
				params.SetMeta(map[string]any{mcp.MetaKeyLogLevel: "info"})
			} else if err := f.client.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
				t.Fatal(err)
			}
			res, err := f.client.CallTool(ctx, params)
			if err != nil || res.IsError || hosttest.Text(res) != "Paris/accept:ada" {
				t.Fatalf("consult: %q %v", hosttest.Text(res), err)
			}
			if !logs.has("b/consult: consulting") {
				t.Fatalf("the caller did not get the backend's log line (got %q)", logs.seen)
			}
		})
	}
}

// A log line the backend writes during one caller's call reaches that
// caller only, with --forward-logs or without.
func TestLogLinesGoOnlyToTheirCaller(t *testing.T) {
	for _, forward := range []bool{false, true} {
		t.Run(fmt.Sprint("forward-logs=", forward), func(t *testing.T) {
			aliceLogs, bobLogs := &logLines{}, &logLines{}
			f := startClient(t, "", "2025-11-25", nil, answeringClient(aliceLogs), gateway.Options{ForwardLogs: forward})
			mcp.AddTool(f.backend, &mcp.Tool{Name: "note"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{ Who string }) (*mcp.CallToolResult, any, error) {
				err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "about " + in.Who})
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "noted"}}}, nil, err
			})
			waitFor(t, "tool note", func() bool { _, ok := f.h.Resolve("mcp__b__note"); return ok })
			f.g.Sync(ctxFor(t))
			ctx := ctxFor(t)
			bob := connectClient(t, f, "2025-11-25", answeringClient(bobLogs))
			for _, cs := range []*mcp.ClientSession{f.client, bob} {
				if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
					t.Fatal(err)
				}
			}
			note := func(cs *mcp.ClientSession, who string) {
				params := &mcp.CallToolParams{Name: "mcp__b__note", Arguments: map[string]any{"Who": who}}
				if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
					t.Fatalf("note for %s: %v %v", who, hosttest.Text(res), err)
				}
			}
			note(f.client, "alice")
			note(bob, "bob")
			waitFor(t, "each caller's own line", func() bool { return aliceLogs.has("b: about alice") && bobLogs.has("b: about bob") })
			if bobLogs.has("b: about alice") || aliceLogs.has("b: about bob") {
				t.Fatalf("a log line reached another caller: alice got %q, bob got %q", aliceLogs.seen, bobLogs.seen)
			}

			// A line written while calls of both wait on the backend could
			// be either's: it reaches neither.
			started, release := make(chan struct{}, 2), make(chan struct{})
			addBackendTool(t, f, "hold", func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				started <- struct{}{}
				select {
				case <-release:
				case <-ctx.Done():
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil, nil
			})
			var calls sync.WaitGroup
			for _, cs := range []*mcp.ClientSession{f.client, bob} {
				calls.Go(func() { _, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__hold"}) })
			}
			<-started
			<-started
			for ss := range f.backend.Sessions() {
				if err := ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "about someone"}); err != nil {
					t.Fatal(err)
				}
			}
			close(release)
			calls.Wait()
			note(f.client, "alice again")
			note(bob, "bob again")
			waitFor(t, "each caller's own line", func() bool { return aliceLogs.has("b: about alice again") && bobLogs.has("b: about bob again") })
			if aliceLogs.has("b: about someone") || bobLogs.has("b: about someone") {
				t.Fatalf("a line of two callers' calls was forwarded: alice got %q, bob got %q", aliceLogs.seen, bobLogs.seen)
			}
		})
	}
}

// connectClient connects one more client to the fixture's gateway.
func connectClient(t *testing.T, f *fixture, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := ctxFor(t)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := f.g.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "another-client"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// A gateway whose clients hold sessions speaks 2025-11-25 to a backend that
// pins no protocol; one whose clients hold none (stateless HTTP, where only
// 2026-07-28's input requests can ask them anything) negotiates, and a pin
// wins either way.
func TestBackendProtocolFollowsTheClients(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     []gateway.RelayOption
		pin      string
		protocol string
	}{
		{"sessions", nil, "", "2025-11-25"},
		{"stateless", []gateway.RelayOption{gateway.StatelessClients()}, "", "2026-07-28"},
		{"sessions, pinned", nil, "2026-07-28", "2026-07-28"},
		{"stateless, pinned", []gateway.RelayOption{gateway.StatelessClients()}, "2025-06-18", "2025-06-18"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := ctxFor(t)
			cfg := &config.Config{Servers: []*config.Server{{ID: "b", Transport: config.TransportInProcess, Enabled: true,
				StartupTimeout: bound, RequestTimeout: bound, Source: "test", ProtocolVersion: c.pin}}}
			opts := append(gateway.NewRelay(c.opts...).HostOptions(), host.WithInProcessServer("b", backend()))
			h, err := host.New(cfg, opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close(context.WithoutCancel(ctx))
			if err := h.Start(ctx); err != nil {
				t.Fatal(err)
			}
			if st := h.Status(); len(st) != 1 || st[0].ProtocolVersion != c.protocol {
				t.Fatalf("status %+v; want protocol %s", st, c.protocol)
			}
		})
	}
}

// A 2026-07-28 backend sends log lines only when a request asks for them
// (per request, in _meta): the caller's level goes with its call, and the
// lines come back to it.
func TestCallerLogLevelReachesA2026Backend(t *testing.T) {
	logs := &logLines{}
	f := startClient(t, mrtrBackend, "", nil, answeringClient(logs), gateway.Options{})
	addBackendTool(t, f, "chatty", func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Data: "too fine"})
		err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Data: "worth saying"})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "said"}}}, nil, err
	})
	params := &mcp.CallToolParams{Name: "mcp__b__chatty"}
	params.SetMeta(map[string]any{mcp.MetaKeyLogLevel: "info"})
	if res, err := f.client.CallTool(ctxFor(t), params); err != nil || res.IsError {
		t.Fatalf("chatty: %q %v", hosttest.Text(res), err)
	}
	waitFor(t, "the backend's line", func() bool { return logs.has("b: worth saying") })
	if logs.has("b: too fine") {
		t.Fatalf("a line below the caller's level: %q", logs.seen)
	}
}

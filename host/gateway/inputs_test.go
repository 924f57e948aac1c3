package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/gateway"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// Input requests in backends' results (protocol 2026-07-28, SEP-2322) as
// the gateway's clients see them.

// mrtrBackend pins the backend's protocol to 2026-07-28, where it returns
// its input requests in results: without a pin a gateway whose clients
// hold sessions speaks 2025-11-25 to its backends.
const mrtrBackend = "2026-07-28"

// manualClient is a client that sees input requests itself (go-sdk's loop
// off) and declares every kind of input.
func manualClient() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{},
			Sampling: &mcp.SamplingCapabilities{}, RootsV2: &mcp.RootCapabilities{}},
	}
}

func nameForm() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}
}

// addBackendTool adds a tool to the backend and waits until the gateway
// serves it.
func addBackendTool(t *testing.T, f *fixture, name string, h mcp.ToolHandlerFor[struct{}, any]) {
	t.Helper()
	mcp.AddTool(f.backend, &mcp.Tool{Name: name}, h)
	waitFor(t, "tool "+name, func() bool { _, ok := f.h.Resolve("mcp__b__" + name); return ok })
	f.g.Sync(ctxFor(t))
}

func keys[M ~map[string]V, V any](m M) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A backend's input requests reach the client in one round under the
// backend's keys, elicitation, sampling and roots alike; the answers reach
// the backend under its keys, with its request state.
func TestBackendInputRequestsKeepTheirKeys(t *testing.T) {
	f := startClient(t, mrtrBackend, "", nil, manualClient(), gateway.Options{})
	addBackendTool(t, f, "gather", func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		in := req.Params.InputResponses
		if len(in) == 0 {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				"user_name":    &mcp.ElicitParams{Message: "your name?", RequestedSchema: nameForm()},
				"greeting":     &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "greet"}}}},
				"client_roots": &mcp.ListRootsParams{},
			}, RequestState: "backend-state"}, nil, nil
		}
		name, _ := in["user_name"].(*mcp.ElicitResult)
		greeting, _ := in["greeting"].(*mcp.CreateMessageWithToolsResult)
		roots, _ := in["client_roots"].(*mcp.ListRootsResult)
		if name == nil || greeting == nil || roots == nil || len(greeting.Content) != 1 || len(roots.Roots) != 1 {
			return nil, nil, fmt.Errorf("answers: %v", keys(in))
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s %v %s %s",
			req.Params.RequestState, name.Content["name"], greeting.Content[0].(*mcp.TextContent).Text, roots.Roots[0].URI)}}}, nil, nil
	})
	ctx := ctxFor(t)
	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__gather"})
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(res.InputRequests); !slices.Equal(got, []string{"client_roots", "greeting", "user_name"}) || res.RequestState == "" {
		t.Fatalf("first round: keys %v, state %q; want the backend's three keys", got, res.RequestState)
	}
	if res.RequestState == "backend-state" {
		t.Fatal("the backend's request state reached the client: the gateway hands out its own")
	}
	res, err = f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__gather", RequestState: res.RequestState, InputResponses: mcp.InputResponseMap{
		"user_name":    &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}},
		"greeting":     &mcp.CreateMessageResult{Role: "assistant", Model: "m", Content: &mcp.TextContent{Text: "hello"}},
		"client_roots": &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///work", Name: "work"}}},
	}})
	if err != nil || res.IsError || hosttest.Text(res) != "backend-state ada hello file:///work" {
		t.Fatalf("second round: %q %v", hosttest.Text(res), err)
	}
}

// An input request the client leaves unanswered is asked again; a request
// state answers only the request it was handed out for.
func TestUnansweredInputRequestsAreAskedAgain(t *testing.T) {
	f := startClient(t, mrtrBackend, "", nil, manualClient(), gateway.Options{})
	addBackendTool(t, f, "two", func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		a, _ := req.Params.InputResponses["a"].(*mcp.ElicitResult)
		b, _ := req.Params.InputResponses["b"].(*mcp.ElicitResult)
		if a == nil || b == nil {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{
				"a": &mcp.ElicitParams{Message: "a?", RequestedSchema: nameForm()},
				"b": &mcp.ElicitParams{Message: "b?", RequestedSchema: nameForm()},
			}}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(a.Content["name"], b.Content["name"])}}}, nil, nil
	})
	ctx := ctxFor(t)
	res, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__two"})
	if err != nil || !slices.Equal(keys(res.InputRequests), []string{"a", "b"}) {
		t.Fatalf("first round: %v %v", keys(res.InputRequests), err)
	}
	if _, err := f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__echo", Arguments: map[string]any{"text": "x"}, RequestState: res.RequestState}); err == nil || !strings.Contains(err.Error(), "invalid requestState") {
		t.Fatalf("another tool's request state: %v; want it refused", err)
	}
	accept := func(name string) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}
	}
	res, err = f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__two", RequestState: res.RequestState, InputResponses: mcp.InputResponseMap{"a": accept("x")}})
	if err != nil || !slices.Equal(keys(res.InputRequests), []string{"b"}) {
		t.Fatalf("after answering a only: %v %v; want b asked again", keys(res.InputRequests), err)
	}
	res, err = f.client.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__two", RequestState: res.RequestState, InputResponses: mcp.InputResponseMap{"b": accept("y")}})
	if err != nil || hosttest.Text(res) != "xy" {
		t.Fatalf("after answering b: %q %v", hosttest.Text(res), err)
	}
}

// The backend sees the caller's capabilities, not the gateway's: what needs
// one the caller lacks is refused as the backend refuses it, error data and
// all, and runs for a caller that has it.
func TestBackendSeesCallerCapabilities(t *testing.T) {
	needsSampling := func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
			data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}})
			return nil, nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: "sampling required", Data: data}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	}
	// The gateway itself can sample (the relay's handler): only the
	// caller's capabilities tell the backend it cannot.
	f := startClient(t, mrtrBackend, "", nil, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}, gateway.Options{})
	addBackendTool(t, f, "needs_sampling", needsSampling)
	_, err := f.client.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "mcp__b__needs_sampling"})
	var jerr *jsonrpc.Error
	if !errors.As(err, &jerr) || jerr.Code != mcp.CodeMissingRequiredClientCapabilities || !strings.Contains(string(jerr.Data), `"sampling"`) {
		t.Fatalf("a caller without sampling: %v; want the backend's -32021 with its data", err)
	}
	f2 := startClient(t, mrtrBackend, "", nil, manualClient(), gateway.Options{})
	addBackendTool(t, f2, "needs_sampling", needsSampling)
	res, err := f2.client.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "mcp__b__needs_sampling"})
	if err != nil || hosttest.Text(res) != "ran" {
		t.Fatalf("a caller with sampling: %q %v", hosttest.Text(res), err)
	}
}

// prompts/get and resources/read ask the client through the relay as
// tools/call does, for clients of either protocol.
func TestPromptAndResourceInputRequests(t *testing.T) {
	for _, clientVersion := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(clientVersion, func(t *testing.T) {
			f := startClient(t, mrtrBackend, clientVersion, nil, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "answer to " + req.Params.Message}}, nil
			}}, gateway.Options{})
			asked := func(in mcp.InputResponseMap, key string) string {
				if r, ok := in[key].(*mcp.ElicitResult); ok && r.Action == "accept" {
					s, _ := r.Content["name"].(string)
					return s
				}
				return ""
			}
			f.backend.AddPrompt(&mcp.Prompt{Name: "contextual"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				if a := asked(req.Params.InputResponses, "user_context"); a != "" {
					return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: a}}}}, nil
				}
				return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": &mcp.ElicitParams{Message: "context?", RequestedSchema: nameForm()}}}, nil
			})
			f.backend.AddResource(&mcp.Resource{URI: "test://guarded", Name: "guarded"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				if a := asked(req.Params.InputResponses, "pin"); a != "" {
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: a}}}, nil
				}
				return &mcp.ReadResourceResult{InputRequests: mcp.InputRequestMap{"pin": &mcp.ElicitParams{Message: "pin?", RequestedSchema: nameForm()}}}, nil
			})
			ctx := ctxFor(t)
			waitFor(t, "the prompt and the resource", func() bool {
				pr, err := f.client.ListPrompts(ctx, nil)
				if err != nil || !slices.ContainsFunc(pr.Prompts, func(p *mcp.Prompt) bool { return p.Name == "contextual" }) {
					return false
				}
				rs, err := f.client.ListResources(ctx, nil)
				return err == nil && slices.ContainsFunc(rs.Resources, func(r *mcp.Resource) bool { return r.URI == "test://guarded" })
			})
			pr, err := f.client.GetPrompt(ctx, &mcp.GetPromptParams{Name: "contextual"})
			if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != "answer to context?" {
				t.Fatalf("prompt: %+v %v", pr, err)
			}
			rr, err := f.client.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://guarded"})
			if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "answer to pin?" {
				t.Fatalf("resource: %+v %v", rr, err)
			}
		})
	}
}

// Answers a client gives before it is asked reach the backend, which takes
// those it recognises and ignores the rest, as it would called directly.
func TestUnaskedAnswersReachBackend(t *testing.T) {
	f := startClient(t, mrtrBackend, "", nil, manualClient(), gateway.Options{})
	res, err := f.client.CallTool(ctxFor(t), &mcp.CallToolParams{Name: "mcp__b__ask", InputResponses: mcp.InputResponseMap{
		"name":  &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "ada"}},
		"extra": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"foo": "bar"}},
	}})
	if err != nil || res.NeedsInput() || hosttest.Text(res) != "accept:ada" {
		t.Fatalf("a call with answers given unasked: %q %v (input requests %v)", hosttest.Text(res), err, keys(res.InputRequests))
	}
}

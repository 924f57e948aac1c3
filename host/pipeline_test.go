package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/pdk/abi"
)

// recordingServer has tools "echo" (returns the JSON of its arguments) and
// "delete" (annotated destructive), and counts calls.
type recordingServer struct {
	mu    sync.Mutex
	calls int
	srv   *mcp.Server
}

func newRecordingServer() *recordingServer {
	r := &recordingServer{srv: mcp.NewServer(&mcp.Implementation{Name: "rec", Version: "1"}, nil)}
	handler := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r.mu.Lock()
		r.calls++
		r.mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
	}
	schema := json.RawMessage(`{"type":"object"}`)
	r.srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, handler)
	yes := true
	r.srv.AddTool(&mcp.Tool{Name: "delete", InputSchema: schema, Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, handler)
	return r
}

func (r *recordingServer) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls
}

// fakeStage implements every hook with functions a test sets.
type fakeStage struct {
	name      string
	policy    func(*abi.PolicyRequest) (*abi.PolicyDecision, error)
	filter    func(*abi.FilterToolsRequest) (*abi.FilterToolsResponse, error)
	names     func(*abi.MapNamesRequest) (*abi.MapNamesResponse, error)
	transform func(*abi.TransformResultRequest) (*abi.TransformResultResponse, error)
}

func (f *fakeStage) StageName() string { return f.name }

// Hooks a test did not set pass everything through.
func (f *fakeStage) Policy(_ context.Context, r *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	if f.policy == nil {
		return &abi.PolicyDecision{Decision: abi.Allow}, nil
	}
	return f.policy(r)
}
func (f *fakeStage) FilterTools(_ context.Context, r *abi.FilterToolsRequest) (*abi.FilterToolsResponse, error) {
	if f.filter == nil {
		resp := &abi.FilterToolsResponse{}
		for _, t := range r.Tools {
			resp.Tools = append(resp.Tools, t.Name)
		}
		return resp, nil
	}
	return f.filter(r)
}
func (f *fakeStage) MapNames(_ context.Context, r *abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
	if f.names == nil {
		return nil, errors.New("not a name stage")
	}
	return f.names(r)
}
func (f *fakeStage) TransformResult(_ context.Context, r *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
	if f.transform == nil {
		return &abi.TransformResultResponse{Result: r.Result}, nil
	}
	return f.transform(r)
}

type auditLog struct {
	mu     sync.Mutex
	events []host.AuditEvent
}

func (a *auditLog) add(e host.AuditEvent) {
	a.mu.Lock()
	a.events = append(a.events, e)
	a.mu.Unlock()
}

func (a *auditLog) outcomes() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var s []string
	for _, e := range a.events {
		s = append(s, e.Stage+"="+e.Outcome)
	}
	return strings.Join(s, " ")
}

func TestPolicyChain(t *testing.T) {
	deny := host.StageConfig{Stage: builtin.GlobPolicy{Deny: []string{"rec:delete"}}}
	confirm := host.StageConfig{Stage: builtin.ConfirmDestructive{}}
	failing := &fakeStage{name: "failing", policy: func(*abi.PolicyRequest) (*abi.PolicyDecision, error) {
		return nil, errors.New("boom")
	}}
	rewrite := &fakeStage{name: "rewrite", policy: func(r *abi.PolicyRequest) (*abi.PolicyDecision, error) {
		return &abi.PolicyDecision{Decision: abi.Allow, Arguments: map[string]any{"rewritten": true}}, nil
	}}
	cases := []struct {
		name      string
		stages    []host.StageConfig
		confirmer host.Confirmer
		tool      string
		denied    string // substring of the error; "" means the call goes through
		serverArg string // substring of what the server received
		audit     string
	}{
		{name: "no stages", tool: "rec:delete", serverArg: "{}"},
		{name: "glob deny", stages: []host.StageConfig{deny}, tool: "rec:delete", denied: `matches deny "rec:delete"`, audit: "builtin:glob-policy=deny"},
		{name: "glob allows others", stages: []host.StageConfig{deny}, tool: "rec:echo", serverArg: "{}", audit: "builtin:glob-policy=allow"},
		{name: "confirm without confirmer", stages: []host.StageConfig{confirm}, tool: "rec:delete", denied: "no confirmer"},
		{name: "confirm approved", stages: []host.StageConfig{confirm}, tool: "rec:delete", serverArg: "{}",
			confirmer: func(context.Context, host.ConfirmRequest) (bool, error) { return true, nil }, audit: "builtin:confirm-destructive=confirmed"},
		{name: "confirm declined", stages: []host.StageConfig{confirm}, tool: "rec:delete", denied: "declined",
			confirmer: func(context.Context, host.ConfirmRequest) (bool, error) { return false, nil }},
		{name: "read-only needs no confirm", stages: []host.StageConfig{confirm}, tool: "rec:echo", serverArg: "{}"},
		{name: "first deny wins", stages: []host.StageConfig{deny, {Stage: rewrite}}, tool: "rec:delete", denied: "glob-policy", audit: "builtin:glob-policy=deny"},
		{name: "rewrite", stages: []host.StageConfig{{Stage: rewrite}}, tool: "rec:echo", serverArg: `"rewritten":true`, audit: "rewrite=allow+rewrite"},
		{name: "shadow deny changes nothing", stages: []host.StageConfig{{Stage: deny.Stage, Mode: host.ModeShadow}}, tool: "rec:delete", serverArg: "{}", audit: "builtin:glob-policy=would-deny"},
		{name: "failing stage denies", stages: []host.StageConfig{{Stage: failing}}, tool: "rec:echo", denied: "the policy failed: boom"},
		{name: "failing stage with on_error allow", stages: []host.StageConfig{{Stage: failing, OnError: host.OnErrorAllow}}, tool: "rec:echo", serverArg: "{}", audit: "failing=error-ignored"},
		{name: "stage for other servers only", stages: []host.StageConfig{{Stage: deny.Stage, Servers: []string{"other*"}}}, tool: "rec:delete", serverArg: "{}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecordingServer()
			var audit auditLog
			opts := []host.Option{host.WithInProcessServer("rec", rec.srv), host.WithStages(tc.stages...), host.WithAudit(audit.add)}
			if tc.confirmer != nil {
				opts = append(opts, host.WithConfirmer(tc.confirmer))
			}
			h := startHost(t, nil, opts...)
			res, err := h.CallTool(testContext(t), tc.tool, nil)
			if tc.denied != "" {
				if !errors.Is(err, host.ErrDenied) || !strings.Contains(err.Error(), tc.denied) {
					t.Fatalf("err = %v, want a denial containing %q", err, tc.denied)
				}
				if rec.count() != 0 {
					t.Fatal("a denied call reached the server")
				}
			} else {
				if err != nil {
					t.Fatalf("CallTool: %v", err)
				}
				if got := hosttest.Text(res); !strings.Contains(got, tc.serverArg) {
					t.Errorf("server received %s, want %s", got, tc.serverArg)
				}
			}
			if tc.audit != "" && !strings.Contains(audit.outcomes(), tc.audit) {
				t.Errorf("audit = %q, want %q", audit.outcomes(), tc.audit)
			}
		})
	}
}

// A rewrite cannot carry a call past a policy: every policy decides again
// on the rewritten arguments, and a confirmation shows the final ones.
func TestPoliciesDecideOnFinalArguments(t *testing.T) {
	// guard runs first and denies a command of "rm"; a later stage turns
	// "ls" into "rm".
	guard := host.StageConfig{Stage: &fakeStage{name: "guard", policy: func(r *abi.PolicyRequest) (*abi.PolicyDecision, error) {
		if r.Arguments["cmd"] == "rm" {
			return &abi.PolicyDecision{Decision: abi.Deny, Reason: "no rm"}, nil
		}
		return &abi.PolicyDecision{Decision: abi.Allow}, nil
	}}}
	toRM := host.StageConfig{Stage: &fakeStage{name: "to-rm", policy: func(r *abi.PolicyRequest) (*abi.PolicyDecision, error) {
		return &abi.PolicyDecision{Decision: abi.Allow, Arguments: map[string]any{"cmd": "rm"}}, nil
	}}}
	rec := newRecordingServer()
	h := startHost(t, nil, host.WithInProcessServer("rec", rec.srv), host.WithStages(guard, toRM))
	_, err := h.CallTool(testContext(t), "rec:echo", map[string]any{"cmd": "ls"})
	if !errors.Is(err, host.ErrDenied) || !strings.Contains(err.Error(), "no rm") {
		t.Fatalf("err = %v, want guard's denial of the rewritten arguments", err)
	}
	if rec.count() != 0 {
		t.Fatal("the rewritten call reached the server")
	}

	// The confirmation (asked by an earlier stage) shows the arguments as
	// a later stage rewrote them, which are the ones sent.
	var shown map[string]any
	confirmFirst := host.StageConfig{Stage: &fakeStage{name: "ask", policy: func(*abi.PolicyRequest) (*abi.PolicyDecision, error) {
		return &abi.PolicyDecision{Decision: abi.Confirm, Reason: "sure?"}, nil
	}}}
	addLimit := host.StageConfig{Stage: &fakeStage{name: "limit", policy: func(r *abi.PolicyRequest) (*abi.PolicyDecision, error) {
		out := map[string]any{"limit": 10.0}
		for k, v := range r.Arguments {
			out[k] = v
		}
		return &abi.PolicyDecision{Decision: abi.Allow, Arguments: out}, nil
	}}}
	asks := 0
	rec = newRecordingServer()
	h = startHost(t, nil, host.WithInProcessServer("rec", rec.srv), host.WithStages(confirmFirst, addLimit),
		host.WithConfirmer(func(_ context.Context, req host.ConfirmRequest) (bool, error) {
			asks++
			shown = req.Arguments
			return true, nil
		}))
	res, err := h.CallTool(testContext(t), "rec:echo", map[string]any{"q": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if asks != 1 || shown["limit"] != 10.0 || shown["q"] != "x" {
		t.Errorf("asked %d times, showing %v; want once, with the final arguments", asks, shown)
	}
	if got := hosttest.Text(res); got != `{"limit":10,"q":"x"}` {
		t.Errorf("server received %s", got)
	}

	// A stage that never settles is denied, not looped for ever.
	grow := host.StageConfig{Stage: &fakeStage{name: "grow", policy: func(r *abi.PolicyRequest) (*abi.PolicyDecision, error) {
		n, _ := r.Arguments["n"].(float64)
		return &abi.PolicyDecision{Decision: abi.Allow, Arguments: map[string]any{"n": n + 1}}, nil
	}}}
	rec = newRecordingServer()
	h = startHost(t, nil, host.WithInProcessServer("rec", rec.srv), host.WithStages(grow))
	if _, err := h.CallTool(testContext(t), "rec:echo", nil); !errors.Is(err, host.ErrDenied) || !strings.Contains(err.Error(), "rounds") {
		t.Fatalf("err = %v, want a denial for arguments that never settle", err)
	}
}

func TestTransformsComposeAndTruncationKeepsFullResult(t *testing.T) {
	appendText := func(name, suffix string) *fakeStage {
		return &fakeStage{name: name, transform: func(r *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
			var res mcp.CallToolResult
			if err := json.Unmarshal(r.Result, &res); err != nil {
				return nil, err
			}
			res.Content[0].(*mcp.TextContent).Text += suffix
			b, _ := json.Marshal(&res)
			return &abi.TransformResultResponse{Result: b}, nil
		}}
	}
	store := builtin.NewResultStore(0)
	rec := newRecordingServer()
	h := startHost(t, nil, host.WithInProcessServer("rec", rec.srv), host.WithResultStore(store), host.WithStages(
		host.StageConfig{Stage: appendText("a", "-A")},
		host.StageConfig{Stage: appendText("b", "-B")},
		host.StageConfig{Stage: builtin.Truncate{MaxBytes: 150, Store: store}},
	))
	ctx := testContext(t)
	res, err := h.CallTool(ctx, "rec:echo", map[string]any{"text": "0123456789"})
	if err != nil {
		t.Fatal(err)
	}
	full := `{"text":"0123456789"}-A-B`
	text := hosttest.Text(res)
	// 150 bytes of JSON hold the _meta and resultType the result comes
	// with, the text item's frame, the comma after it and some of the
	// text: how much is the marker's to say.
	m := regexp.MustCompile(`(?s)^(.*)\n\[truncated by mcphost: showing (\d+) of (\d+) bytes`).FindStringSubmatch(text)
	if m == nil || m[1] == "" || m[2] != strconv.Itoa(len(m[1])) || m[3] != strconv.Itoa(len(full)) || !strings.HasPrefix(full, m[1]) {
		t.Fatalf("truncated text = %q", text)
	}
	link, ok := res.Content[len(res.Content)-1].(*mcp.ResourceLink)
	if !ok || !strings.HasPrefix(link.URI, builtin.ResultURIPrefix) || !strings.Contains(text, link.URI) {
		t.Fatalf("no resource link to the full result: %+v", res.Content)
	}
	read, err := h.ReadResource(ctx, "", link.URI)
	if err != nil {
		t.Fatal(err)
	}
	var stored mcp.CallToolResult
	if err := json.Unmarshal([]byte(read.Contents[0].Text), &stored); err != nil || hosttest.Text(&stored) != full {
		t.Fatalf("stored result = %s (%v)", read.Contents[0].Text, err)
	}
	listed, err := h.Resources(ctx, "")
	if err != nil || !strings.Contains(func() string {
		var s []string
		for _, r := range listed {
			s = append(s, r.Server+" "+r.URI)
		}
		return strings.Join(s, "|")
	}(), "mcphost "+link.URI) {
		t.Errorf("stored result not listed: %v %v", listed, err)
	}
	if _, err := h.ReadResource(ctx, "", builtin.ResultURIPrefix+"nope"); !errors.Is(err, host.ErrUnknownResource) {
		t.Errorf("unknown stored result: %v", err)
	}
}

func TestFailingTransformWithholdsResult(t *testing.T) {
	failing := &fakeStage{name: "bad", transform: func(*abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
		return nil, errors.New("trapped")
	}}
	rec := newRecordingServer()
	h := startHost(t, nil, host.WithInProcessServer("rec", rec.srv), host.WithStages(host.StageConfig{Stage: failing}))
	if _, err := h.CallTool(testContext(t), "rec:echo", nil); err == nil || !strings.Contains(err.Error(), "result withheld") {
		t.Fatalf("err = %v", err)
	}
	h2 := startHost(t, nil, host.WithInProcessServer("rec", rec.srv), host.WithStages(host.StageConfig{Stage: failing, OnError: host.OnErrorAllow}))
	if _, err := h2.CallTool(testContext(t), "rec:echo", nil); err != nil {
		t.Fatalf("on_error allow: %v", err)
	}
}

// A chain whose output is not a CallToolResult withholds the result; the
// error names the stage that returned it last.
func TestMalformedTransformOutputWithholdsResult(t *testing.T) {
	bad := &fakeStage{name: "mangler", transform: func(*abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
		return &abi.TransformResultResponse{Result: json.RawMessage(`{"content":"not a list"}`)}, nil
	}}
	rec := newRecordingServer()
	h := startHost(t, nil, host.WithInProcessServer("rec", rec.srv), host.WithStages(host.StageConfig{Stage: bad}, host.StageConfig{Stage: &fakeStage{name: "pass"}}))
	_, err := h.CallTool(testContext(t), "rec:echo", nil)
	if err == nil || !strings.Contains(err.Error(), "result withheld: transform pass returned something that is not a CallToolResult") {
		t.Fatalf("err = %v", err)
	}
}

func TestFiltersIntersectAndNameStage(t *testing.T) {
	keep := func(name string, keep ...string) *fakeStage {
		return &fakeStage{name: name, filter: func(r *abi.FilterToolsRequest) (*abi.FilterToolsResponse, error) {
			return &abi.FilterToolsResponse{Tools: keep}, nil
		}}
	}
	srv := newToolServer("alpha", "a", "b", "c")
	h := startHost(t, nil, host.WithInProcessServer("alpha", srv), host.WithStages(
		host.StageConfig{Stage: keep("f1", "a", "b")},
		host.StageConfig{Stage: keep("f2", "b", "c")},
		host.StageConfig{Stage: keep("f3", "a"), Mode: host.ModeShadow},
	))
	var got []string
	for _, tool := range h.Tools() {
		got = append(got, tool.Tool)
	}
	if strings.Join(got, ",") != "b" {
		t.Fatalf("tools after filters = %v, want [b]", got)
	}

	team := &fakeStage{name: "team", names: func(r *abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
		var out []string
		for _, k := range r.Tools {
			out = append(out, "red_"+k.Server+"_"+k.Tool)
		}
		return &abi.MapNamesResponse{Names: out}, nil
	}}
	h = startHost(t, nil, host.WithInProcessServer("alpha", srv), host.WithStages(host.StageConfig{Stage: team}))
	if _, ok := h.Resolve("red_alpha_a"); !ok {
		t.Fatalf("name stage not used: %v", h.Tools())
	}
	broken := &fakeStage{name: "broken", names: func(r *abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
		return &abi.MapNamesResponse{Names: make([]string, len(r.Tools))}, nil // empty names are invalid
	}}
	var audit auditLog
	h = startHost(t, nil, host.WithInProcessServer("alpha", srv), host.WithStages(host.StageConfig{Stage: broken}), host.WithAudit(audit.add))
	if _, ok := h.Resolve("mcp__alpha__a"); !ok {
		t.Fatalf("invalid names did not fall back to the built-in mapping: %v", h.Tools())
	}
	if !strings.Contains(audit.outcomes(), "broken=fallback") {
		t.Errorf("audit = %s", audit.outcomes())
	}

	failing := &fakeStage{name: "failing", filter: func(*abi.FilterToolsRequest) (*abi.FilterToolsResponse, error) {
		return nil, errors.New("trap")
	}}
	h = startHost(t, nil, host.WithInProcessServer("alpha", srv), host.WithStages(host.StageConfig{Stage: failing}))
	if n := len(h.Tools()); n != 0 {
		t.Errorf("a failing filter (on_error deny) left %d tools", n)
	}
	// Said where a person looks (servers, doctor), not only in the audit:
	// an empty list alone says nothing.
	if st := h.Status(); len(st) != 1 || !strings.Contains(strings.Join(st[0].Warnings, "\n"), "tools hidden: the filter_tools stage failing failed (on_error: deny): trap") {
		t.Errorf("the server's warnings do not say its tools are hidden: %+v", st)
	}
}

func TestStageConfigErrors(t *testing.T) {
	for _, sc := range []host.StageConfig{
		{},
		{Stage: builtin.GlobPolicy{}, Mode: "loud"},
		{Stage: builtin.GlobPolicy{}, OnError: "explode"},
		{Stage: builtin.GlobPolicy{}, Hooks: []abi.Hook{abi.HookTransformResult}},
		{Stage: builtin.GlobPolicy{}, Servers: []string{"["}},
	} {
		if _, err := host.New(nil, host.WithStages(sc)); err == nil {
			t.Errorf("%+v was accepted", sc)
		}
	}
}

type authStage struct{ token string }

func (authStage) StageName() string { return "test-auth" }
func (a authStage) Auth(_ context.Context, r *abi.AuthRequest) (*abi.AuthResponse, error) {
	if a.token == "" {
		return nil, errors.New("secret not granted")
	}
	return &abi.AuthResponse{Headers: map[string]string{"Authorization": "Bearer " + a.token}}, nil
}

func TestAuthStageSuppliesHeaders(t *testing.T) {
	requireToken := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	url := hosttest.ServeHTTP(t, newToolServer("remote", "echo"), requireToken)
	cfg := &config.Config{Servers: []*config.Server{{ID: "remote", Transport: config.TransportHTTP, URL: url, Enabled: true}}}

	var audit auditLog
	h := startHost(t, cfg, host.WithStages(host.StageConfig{Stage: authStage{token: "s3cret"}}), host.WithAudit(audit.add))
	if st := statusOf(t, h, "remote"); st.State != host.StateReady {
		t.Fatalf("with auth: %s %s", st.State, st.Error)
	}
	if !strings.Contains(audit.outcomes(), "test-auth=headers") {
		t.Errorf("audit = %s", audit.outcomes())
	}
	h = startHost(t, cfg, host.WithStages(host.StageConfig{Stage: authStage{}}))
	st := statusOf(t, h, "remote")
	if st.State == host.StateReady || !strings.Contains(st.Error, "secret not granted") {
		t.Fatalf("failing auth: %s %s", st.State, st.Error)
	}
	h = startHost(t, cfg)
	if st := statusOf(t, h, "remote"); st.State == host.StateReady {
		t.Fatal("connected without credentials")
	}
}

// TestNameStageServersAndOnError pins that a name stage is asked only about
// the servers its globs select, that its names must not collide with the
// other tools' names, and that on_error deny hides the tools it names while
// fallback keeps their previous names.
func TestNameStageServersAndOnError(t *testing.T) {
	servers := []host.Option{
		host.WithInProcessServer("alpha", newToolServer("alpha", "a")),
		host.WithInProcessServer("beta", newToolServer("beta", "b")),
	}
	var asked []string
	var mu sync.Mutex
	prefix := func(p string) *fakeStage {
		return &fakeStage{name: "prefix-" + p, names: func(r *abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
			var out []string
			for _, k := range r.Tools {
				mu.Lock()
				asked = append(asked, k.Server+":"+k.Tool)
				mu.Unlock()
				out = append(out, p+"_"+k.Tool)
			}
			return &abi.MapNamesResponse{Names: out}, nil
		}}
	}
	names := func(h *host.Host) string {
		var got []string
		for _, tool := range h.Tools() {
			got = append(got, tool.Server+":"+tool.Tool+"="+tool.Name)
		}
		slices.Sort(got)
		return strings.Join(got, " ")
	}

	h := startHost(t, nil, append(servers, host.WithStages(host.StageConfig{Stage: prefix("red"), Servers: []string{"al*"}}))...)
	if got, want := names(h), "alpha:a=red_a beta:b=mcp__beta__b"; got != want {
		t.Errorf("servers glob: names = %q, want %q", got, want)
	}
	mu.Lock()
	// The registry is rebuilt as each server becomes ready: the stage may
	// be asked more than once, but only ever about alpha.
	for _, a := range asked {
		if a != "alpha:a" {
			t.Errorf("the stage was asked about %q, want only alpha:a (asked: %v)", a, asked)
		}
	}
	mu.Unlock()

	// A name already held by another server's tool is a failed answer.
	clash := &fakeStage{name: "clash", names: func(r *abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
		return &abi.MapNamesResponse{Names: []string{"mcp__beta__b"}}, nil
	}}
	for _, tc := range []struct {
		onError string
		want    string
		outcome string
	}{
		{"", "alpha:a=mcp__alpha__a beta:b=mcp__beta__b", "clash=fallback"},
		{host.OnErrorFallback, "alpha:a=mcp__alpha__a beta:b=mcp__beta__b", "clash=fallback"},
		{host.OnErrorAllow, "alpha:a=mcp__alpha__a beta:b=mcp__beta__b", "clash=fallback"},
		{host.OnErrorDeny, "beta:b=mcp__beta__b", "clash=hid 1"},
	} {
		var audit auditLog
		h := startHost(t, nil, append(servers, host.WithAudit(audit.add),
			host.WithStages(host.StageConfig{Stage: clash, Servers: []string{"alpha"}, OnError: tc.onError}))...)
		if got := names(h); got != tc.want {
			t.Errorf("on_error %q: names = %q, want %q", tc.onError, got, tc.want)
		}
		if !strings.Contains(audit.outcomes(), tc.outcome) {
			t.Errorf("on_error %q: audit = %s, want %s", tc.onError, audit.outcomes(), tc.outcome)
		}
		if tc.onError == host.OnErrorDeny {
			if _, err := h.CallTool(testContext(t), "alpha:a", nil); err == nil {
				t.Errorf("on_error deny: a hidden tool was callable")
			}
		}
	}
}

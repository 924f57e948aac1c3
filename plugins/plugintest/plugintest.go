// Package plugintest is the conformance kit of the plugin ABI: a table of
// checks, per hook, that any stage must pass, whether it is a WebAssembly
// plugin (package plugins) or a native Go stage of the host. Every example
// plugin and every built-in stage runs it:
//
//	p, err := plugins.Open(ctx, plugins.SpecForFile("deny-destructive.wasm"), plugins.Options{})
//	...
//	plugintest.Run(t, p)                      // every hook p implements
//	plugintest.Run(t, builtin.NewTruncate(4096), abi.HookTransformResult)
//
// The checks are about the contract, not about what a stage decides: a
// policy may allow or deny anything, but it must answer allow, deny or
// confirm, leave the request as it was, answer the same way twice, and keep
// doing so under concurrent calls.
//
// It imports only the host's interfaces and the ABI, so that it can be used
// from any package's tests (package plugins included).
package plugintest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/pdk/abi"
)

// Options tune a run. The zero value is the standard run.
type Options struct {
	// Hooks to check; empty means every hook interface the stage implements.
	Hooks []abi.Hook
	// Concurrency is the number of parallel calls of the concurrency check
	// (default 16); negative skips it.
	Concurrency int
	// Timeout bounds each call (default 10 s): a stage that blocks fails.
	Timeout time.Duration
	// NonDeterministic skips the "same answer twice" checks, for a stage
	// that legitimately varies (one that fetches fresh tokens, say).
	NonDeterministic bool
}

// Violation is one failed check.
type Violation struct {
	Hook abi.Hook
	Case string
	Msg  string
}

func (v Violation) Error() string {
	return fmt.Sprintf("%s: %s: %s", v.Hook, v.Case, v.Msg)
}

// HookLister is implemented by a stage that implements more hook
// interfaces than it serves (a Wasm plugin's adapter implements all five;
// its plugin describes which it has).
type HookLister interface {
	Hooks() []abi.Hook
}

// Hooks lists the hooks stage serves, in pipeline order: its Hooks() if it
// is a HookLister, else every hook interface it implements.
func Hooks(stage host.Stage) []abi.Hook {
	if l, ok := stage.(HookLister); ok {
		var out []abi.Hook
		for _, h := range abi.Hooks {
			for _, k := range l.Hooks() {
				if k == h && implements(stage, h) {
					out = append(out, h)
				}
			}
		}
		return out
	}
	var out []abi.Hook
	for _, h := range abi.Hooks {
		if implements(stage, h) {
			out = append(out, h)
		}
	}
	return out
}

func implements(stage host.Stage, h abi.Hook) bool {
	var ok bool
	switch h {
	case abi.HookPolicy:
		_, ok = stage.(host.PolicyStage)
	case abi.HookFilterTools:
		_, ok = stage.(host.FilterStage)
	case abi.HookMapNames:
		_, ok = stage.(host.NameStage)
	case abi.HookTransformResult:
		_, ok = stage.(host.TransformStage)
	case abi.HookAuth:
		_, ok = stage.(host.AuthStage)
	}
	return ok
}

// Run runs the checks for hooks (default: every hook the stage implements)
// as subtests of t, one per hook.
func Run(t *testing.T, stage host.Stage, hooks ...abi.Hook) {
	t.Helper()
	RunWith(t, stage, Options{Hooks: hooks})
}

// RunWith is Run with options.
func RunWith(t *testing.T, stage host.Stage, opts Options) {
	t.Helper()
	hooks := opts.Hooks
	if len(hooks) == 0 {
		hooks = Hooks(stage)
	}
	if len(hooks) == 0 {
		t.Fatalf("stage %q implements no hook interface", stage.StageName())
	}
	for _, h := range hooks {
		t.Run(string(h), func(t *testing.T) {
			o := opts
			o.Hooks = []abi.Hook{h}
			for _, v := range Check(context.Background(), stage, o) {
				t.Error(v.Error())
			}
		})
	}
}

// Check runs the checks and returns the violations (none: the stage
// conforms). For use outside `go test`, and to test the kit itself.
func Check(ctx context.Context, stage host.Stage, opts Options) []Violation {
	c := &checker{ctx: ctx, stage: stage, opts: opts}
	if c.opts.Timeout <= 0 {
		c.opts.Timeout = 10 * time.Second
	}
	if c.opts.Concurrency == 0 {
		c.opts.Concurrency = 16
	}
	hooks := opts.Hooks
	if len(hooks) == 0 {
		hooks = Hooks(stage)
	}
	if strings.TrimSpace(stage.StageName()) == "" {
		c.fail("", "stage", "StageName is empty")
	}
	for _, h := range hooks {
		if !implements(stage, h) {
			c.fail(h, "interface", fmt.Sprintf("the stage does not implement the %s hook's interface", h))
			continue
		}
		switch h {
		case abi.HookPolicy:
			c.policy()
		case abi.HookFilterTools:
			c.filterTools()
		case abi.HookMapNames:
			c.mapNames()
		case abi.HookTransformResult:
			c.transformResult()
		case abi.HookAuth:
			c.auth()
		default:
			c.fail(h, "hook", "not a hook of ABI v1")
		}
		c.canceled(h)
	}
	return c.violations
}

type checker struct {
	ctx        context.Context
	stage      host.Stage
	opts       Options
	mu         sync.Mutex
	violations []Violation
}

func (c *checker) fail(h abi.Hook, name, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations = append(c.violations, Violation{Hook: h, Case: name, Msg: msg})
}

func (c *checker) callCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, c.opts.Timeout)
}

// call runs f under the per-call timeout and reports a stage that does not
// return in time (the call itself may go on: a native stage cannot be
// stopped).
func call[T any](c *checker, h abi.Hook, name string, f func(context.Context) (T, error)) (T, error, bool) {
	ctx, cancel := c.callCtx()
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(ctx)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err, true
	case <-time.After(c.opts.Timeout + 2*time.Second):
		c.fail(h, name, fmt.Sprintf("did not return within %s of its context's deadline", c.opts.Timeout))
		var zero T
		return zero, nil, false
	}
}

// parallel calls f for every case index from Concurrency goroutines and
// reports any answer that differs from want(i).
func (c *checker) parallel(h abi.Hook, n int, run func(ctx context.Context, i int) (any, error), want func(i int) any) {
	if c.opts.Concurrency < 0 || c.opts.NonDeterministic || n == 0 {
		return
	}
	c.mu.Lock()
	for _, v := range c.violations {
		if v.Hook == h {
			// The sequential answers are not a reference then.
			c.mu.Unlock()
			return
		}
	}
	c.mu.Unlock()
	var wg sync.WaitGroup
	for g := range c.opts.Concurrency {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := range n {
				i := (g + k) % n
				ctx, cancel := c.callCtx()
				got, err := run(ctx, i)
				cancel()
				if err != nil {
					c.fail(h, fmt.Sprintf("concurrent/%d", i), "error under concurrent calls: "+err.Error())
					return
				}
				if !reflect.DeepEqual(got, want(i)) {
					c.fail(h, fmt.Sprintf("concurrent/%d", i), fmt.Sprintf("answer under concurrent calls differs from the sequential one: %s, want %s", show(got), show(want(i))))
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func show(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	if len(data) > 300 {
		return string(data[:300]) + "…"
	}
	return string(data)
}

// clone deep-copies a request through JSON, to detect a stage that changes
// the request it was given.
func clone[T any](v *T) *T {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(data, &out); err != nil {
		panic(err)
	}
	return &out
}

func same(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// canceled checks that a stage handed an already-canceled context returns
// (an error or an answer) rather than blocking.
func (c *checker) canceled(h abi.Hook) {
	ctx, cancel := context.WithCancel(c.ctx)
	cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		switch h {
		case abi.HookPolicy:
			c.stage.(host.PolicyStage).Policy(ctx, PolicyRequests()[0])
		case abi.HookFilterTools:
			c.stage.(host.FilterStage).FilterTools(ctx, FilterRequests()[0])
		case abi.HookMapNames:
			c.stage.(host.NameStage).MapNames(ctx, MapNamesRequests()[0])
		case abi.HookTransformResult:
			c.stage.(host.TransformStage).TransformResult(ctx, TransformRequests()[0])
		case abi.HookAuth:
			c.stage.(host.AuthStage).Auth(ctx, AuthRequests()[0])
		}
	}()
	select {
	case <-done:
	case <-time.After(c.opts.Timeout):
		c.fail(h, "canceled context", "blocked on an already-canceled context")
	}
}

func boolp(b bool) *bool { return &b }

// PolicyRequests are the requests the policy checks use.
func PolicyRequests() []*abi.PolicyRequest {
	return []*abi.PolicyRequest{
		{Server: "files", Tool: "read_file", Name: "mcp__files__read_file", Arguments: map[string]any{"path": "notes/a.txt"},
			Annotations: &abi.ToolAnnotations{ReadOnlyHint: true}, Caller: &abi.Caller{Kind: "cli"}},
		{Server: "files", Tool: "delete_file", Name: "mcp__files__delete_file", Arguments: map[string]any{"path": "/etc/passwd"},
			Annotations: &abi.ToolAnnotations{DestructiveHint: boolp(true)}},
		{Server: "web", Tool: "fetch", Name: "web_fetch", Arguments: map[string]any{"url": "https://example.com", "n": 3.5, "deep": []any{1, "x", nil}},
			Annotations: &abi.ToolAnnotations{OpenWorldHint: boolp(true), DestructiveHint: boolp(false)}, Meta: map[string]any{"progressToken": 7}},
		{Server: "github", Tool: "create_issue", Name: "github_create_issue", Arguments: map[string]any{},
			Caller: &abi.Caller{Kind: "gateway", ID: "user@example.com", Session: "s1"}},
		{Server: "x", Tool: "no_args", Name: "no_args"},
		{Server: "ünï", Tool: "ツール", Name: "tool_1", Arguments: map[string]any{"text": "línea\nnext \"quoted\" \u2028"}},
	}
}

func (c *checker) policy() {
	const h = abi.HookPolicy
	st := c.stage.(host.PolicyStage)
	reqs := PolicyRequests()
	answers := make([]any, len(reqs))
	for i, req := range reqs {
		name := fmt.Sprintf("request %d (%s/%s)", i, req.Server, req.Tool)
		before := clone(req)
		d, err, ok := call(c, h, name, func(ctx context.Context) (*abi.PolicyDecision, error) { return st.Policy(ctx, req) })
		if !ok {
			return
		}
		if err != nil {
			c.fail(h, name, "error on a valid request: "+err.Error())
			continue
		}
		if d == nil {
			c.fail(h, name, "nil decision without an error")
			continue
		}
		switch d.Decision {
		case abi.Allow, abi.Deny, abi.Confirm:
		default:
			c.fail(h, name, fmt.Sprintf("decision %q is not allow, deny or confirm", d.Decision))
		}
		if d.Arguments != nil {
			data, err := json.Marshal(d.Arguments)
			if err != nil || len(data) == 0 || data[0] != '{' {
				c.fail(h, name, "rewritten arguments are not a JSON object")
			}
		}
		if !same(req, before) {
			c.fail(h, name, "the stage changed the request it was given")
		}
		answers[i] = d
		if !c.opts.NonDeterministic {
			again, err, ok := call(c, h, name, func(ctx context.Context) (*abi.PolicyDecision, error) { return st.Policy(ctx, clone(req)) })
			if ok && (err != nil || !same(again, d)) {
				c.fail(h, name, fmt.Sprintf("not deterministic: %s then %s (%v)", show(d), show(again), err))
			}
		}
	}
	c.parallel(h, len(reqs), func(ctx context.Context, i int) (any, error) {
		d, err := st.Policy(ctx, clone(reqs[i]))
		return normalize(d), err
	}, func(i int) any { return normalize(answers[i]) })
}

// normalize makes two answers comparable with DeepEqual whatever their
// number types (a rewrite through JSON turns ints into float64).
func normalize(v any) any {
	data, _ := json.Marshal(v)
	var out any
	json.Unmarshal(data, &out)
	return out
}

// FilterRequests are the requests the filter_tools checks use.
func FilterRequests() []*abi.FilterToolsRequest {
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
	return []*abi.FilterToolsRequest{
		{Server: "files", Tools: []abi.ToolInfo{
			{Name: "read_file", Description: "Read a file", Annotations: &abi.ToolAnnotations{ReadOnlyHint: true}, InputSchema: schema},
			{Name: "delete_file", Title: "Delete", Annotations: &abi.ToolAnnotations{DestructiveHint: boolp(true)}, InputSchema: schema},
			{Name: "write_file"},
		}},
		{Server: "empty", Tools: []abi.ToolInfo{}},
		{Server: "web", Tools: []abi.ToolInfo{{Name: "fetch", Annotations: &abi.ToolAnnotations{OpenWorldHint: boolp(true)}}}},
	}
}

func (c *checker) filterTools() {
	const h = abi.HookFilterTools
	st := c.stage.(host.FilterStage)
	reqs := FilterRequests()
	answers := make([]any, len(reqs))
	for i, req := range reqs {
		name := fmt.Sprintf("request %d (%s, %d tools)", i, req.Server, len(req.Tools))
		before := clone(req)
		r, err, ok := call(c, h, name, func(ctx context.Context) (*abi.FilterToolsResponse, error) { return st.FilterTools(ctx, req) })
		if !ok {
			return
		}
		if err != nil {
			c.fail(h, name, "error on a valid request: "+err.Error())
			continue
		}
		if r == nil {
			c.fail(h, name, "nil response without an error")
			continue
		}
		known := map[string]bool{}
		for _, t := range req.Tools {
			known[t.Name] = true
		}
		seen := map[string]bool{}
		for _, n := range r.Tools {
			if !known[n] {
				c.fail(h, name, fmt.Sprintf("keeps %q, which is not one of the tools it was given", n))
			}
			if seen[n] {
				c.fail(h, name, fmt.Sprintf("keeps %q twice", n))
			}
			seen[n] = true
		}
		if !same(req, before) {
			c.fail(h, name, "the stage changed the request it was given")
		}
		answers[i] = normalize(r)
		if !c.opts.NonDeterministic {
			again, err, ok := call(c, h, name, func(ctx context.Context) (*abi.FilterToolsResponse, error) { return st.FilterTools(ctx, clone(req)) })
			if ok && (err != nil || !same(again, r)) {
				c.fail(h, name, fmt.Sprintf("not deterministic: %s then %s (%v)", show(r), show(again), err))
			}
		}
	}
	c.parallel(h, len(reqs), func(ctx context.Context, i int) (any, error) {
		r, err := st.FilterTools(ctx, clone(reqs[i]))
		return normalize(r), err
	}, func(i int) any { return answers[i] })
}

// DefaultConstraints are the name constraints of the map_names checks: those
// of the strictest model providers.
var DefaultConstraints = abi.NameConstraints{MaxLength: 64, Pattern: "^[a-zA-Z0-9_-]{1,64}$"}

// MapNamesRequests are the requests the map_names checks use.
func MapNamesRequests() []*abi.MapNamesRequest {
	long := strings.Repeat("very_long_tool_name_", 6)
	return []*abi.MapNamesRequest{
		{Tools: []abi.NameKey{{Server: "files", Tool: "read_file"}, {Server: "files", Tool: "write_file", Title: "Write"}}, Constraints: DefaultConstraints},
		{Tools: []abi.NameKey{{Server: "a", Tool: "search"}, {Server: "b", Tool: "search"}, {Server: "c", Tool: "search"}}, Constraints: DefaultConstraints},
		{Tools: []abi.NameKey{{Server: "srv", Tool: long}, {Server: "srv", Tool: long + "2"}, {Server: "ü-ni", Tool: "ツール.name/with spaces"}}, Constraints: DefaultConstraints},
		{Tools: []abi.NameKey{}, Constraints: DefaultConstraints},
		{Tools: []abi.NameKey{{Server: "x", Tool: "t"}}, Constraints: abi.NameConstraints{MaxLength: 32, Pattern: "^[a-zA-Z0-9_-]{1,32}$"}},
	}
}

func (c *checker) mapNames() {
	const h = abi.HookMapNames
	st := c.stage.(host.NameStage)
	reqs := MapNamesRequests()
	answers := make([]any, len(reqs))
	for i, req := range reqs {
		name := fmt.Sprintf("request %d (%d tools)", i, len(req.Tools))
		before := clone(req)
		r, err, ok := call(c, h, name, func(ctx context.Context) (*abi.MapNamesResponse, error) { return st.MapNames(ctx, req) })
		if !ok {
			return
		}
		if err != nil {
			c.fail(h, name, "error on a valid request: "+err.Error())
			continue
		}
		if r == nil {
			c.fail(h, name, "nil response without an error")
			continue
		}
		if len(r.Names) != len(req.Tools) {
			c.fail(h, name, fmt.Sprintf("%d names for %d tools", len(r.Names), len(req.Tools)))
			continue
		}
		pat, err := regexp.Compile(req.Constraints.Pattern)
		if err != nil {
			panic(err)
		}
		seen := map[string]bool{}
		for j, n := range r.Names {
			if !pat.MatchString(n) || len(n) > req.Constraints.MaxLength {
				c.fail(h, name, fmt.Sprintf("name %q (for %s/%s) breaks the constraints %s, max %d", n, req.Tools[j].Server, req.Tools[j].Tool, req.Constraints.Pattern, req.Constraints.MaxLength))
			}
			if seen[n] {
				c.fail(h, name, fmt.Sprintf("name %q given twice", n))
			}
			seen[n] = true
		}
		if !same(req, before) {
			c.fail(h, name, "the stage changed the request it was given")
		}
		answers[i] = normalize(r)
		if !c.opts.NonDeterministic {
			again, err, ok := call(c, h, name, func(ctx context.Context) (*abi.MapNamesResponse, error) { return st.MapNames(ctx, clone(req)) })
			if ok && (err != nil || !same(again, r)) {
				c.fail(h, name, fmt.Sprintf("not deterministic: %s then %s (%v)", show(r), show(again), err))
			}
		}
	}
	c.parallel(h, len(reqs), func(ctx context.Context, i int) (any, error) {
		r, err := st.MapNames(ctx, clone(reqs[i]))
		return normalize(r), err
	}, func(i int) any { return answers[i] })
}

// TransformRequests are the requests the transform_result checks use.
func TransformRequests() []*abi.TransformResultRequest {
	res := func(s string) json.RawMessage { return json.RawMessage(s) }
	return []*abi.TransformResultRequest{
		{Server: "files", Tool: "read_file", Name: "files_read_file", Arguments: map[string]any{"path": "a"},
			Result: res(`{"content":[{"type":"text","text":"hello world"}]}`)},
		{Server: "x", Tool: "secret", Name: "x_secret",
			Result: res(`{"content":[{"type":"text","text":"key AKIAIOSFODNN7EXAMPLE and Bearer abc.def.ghi, mail me@example.com\n` + strings.Repeat(`line of text\n`, 200) + `"}]}`)},
		{Server: "x", Tool: "img", Name: "x_img",
			Result: res(`{"content":[{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"text","text":"caption"}]}`)},
		{Server: "x", Tool: "structured", Name: "x_structured",
			Result: res(`{"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a":1}}`)},
		{Server: "x", Tool: "fails", Name: "x_fails", Result: res(`{"content":[{"type":"text","text":"boom"}],"isError":true}`)},
		{Server: "x", Tool: "empty", Name: "x_empty", Result: res(`{"content":[]}`)},
	}
}

func (c *checker) transformResult() {
	const h = abi.HookTransformResult
	st := c.stage.(host.TransformStage)
	reqs := TransformRequests()
	answers := make([]any, len(reqs))
	for i, req := range reqs {
		name := fmt.Sprintf("request %d (%s)", i, req.Tool)
		before := clone(req)
		r, err, ok := call(c, h, name, func(ctx context.Context) (*abi.TransformResultResponse, error) { return st.TransformResult(ctx, req) })
		if !ok {
			return
		}
		if err != nil {
			c.fail(h, name, "error on a valid request: "+err.Error())
			continue
		}
		if r == nil {
			c.fail(h, name, "nil response without an error")
			continue
		}
		if t := strings.TrimSpace(string(r.Result)); t == "" || t[0] != '{' {
			c.fail(h, name, "result is not a JSON object")
		} else {
			var res mcp.CallToolResult
			if err := json.Unmarshal(r.Result, &res); err != nil {
				c.fail(h, name, "result is not a CallToolResult: "+err.Error())
			}
		}
		if !same(req, before) {
			c.fail(h, name, "the stage changed the request it was given")
		}
		answers[i] = normalize(r)
		if !c.opts.NonDeterministic {
			again, err, ok := call(c, h, name, func(ctx context.Context) (*abi.TransformResultResponse, error) {
				return st.TransformResult(ctx, clone(req))
			})
			if ok && (err != nil || !same(normalize(again), normalize(r))) {
				c.fail(h, name, fmt.Sprintf("not deterministic: %s then %s (%v)", show(r), show(again), err))
			}
		}
	}
	c.parallel(h, len(reqs), func(ctx context.Context, i int) (any, error) {
		r, err := st.TransformResult(ctx, clone(reqs[i]))
		return normalize(r), err
	}, func(i int) any { return answers[i] })
}

// AuthRequests are the requests the auth checks use.
func AuthRequests() []*abi.AuthRequest {
	return []*abi.AuthRequest{
		{Server: "api", URL: "https://api.example.com/mcp"},
		{Server: "api", URL: "https://api.example.com/mcp", Challenge: &abi.Challenge{Status: 401, WWWAuthenticate: `Bearer realm="api", error="invalid_token"`}},
		{Server: "api", URL: "https://api.example.com/mcp", Challenge: &abi.Challenge{Status: 403, WWWAuthenticate: `Bearer error="insufficient_scope", scope="write"`}},
	}
}

var token = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

func (c *checker) auth() {
	const h = abi.HookAuth
	st := c.stage.(host.AuthStage)
	for i, req := range AuthRequests() {
		name := fmt.Sprintf("request %d (status %d)", i, statusOf(req))
		before := clone(req)
		r, err, ok := call(c, h, name, func(ctx context.Context) (*abi.AuthResponse, error) { return st.Auth(ctx, req) })
		if !ok {
			return
		}
		if err != nil {
			c.fail(h, name, "error on a valid request: "+err.Error())
			continue
		}
		if r == nil || r.Headers == nil {
			c.fail(h, name, "no headers map (an empty map adds none)")
			continue
		}
		for k, v := range r.Headers {
			if !token.MatchString(k) {
				c.fail(h, name, fmt.Sprintf("header name %q is not an HTTP token", k))
			}
			if strings.ContainsAny(v, "\r\n\x00") {
				// Never print the value: it is a credential.
				c.fail(h, name, fmt.Sprintf("header %s: the value holds CR, LF or NUL", k))
			}
		}
		if r.ExpiresIn < 0 {
			c.fail(h, name, fmt.Sprintf("expires_in %d is negative", r.ExpiresIn))
		}
		if !same(req, before) {
			c.fail(h, name, "the stage changed the request it was given")
		}
	}
}

func statusOf(r *abi.AuthRequest) int {
	if r.Challenge == nil {
		return 0
	}
	return r.Challenge.Status
}

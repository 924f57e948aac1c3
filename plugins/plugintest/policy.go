package plugintest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The checks of the policy hook and the requests they use.

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
	st := c.stage.(abi.PolicyStage)
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

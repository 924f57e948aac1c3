package plugintest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The checks of the filter_tools hook and the requests they use.

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
	st := c.stage.(abi.FilterStage)
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

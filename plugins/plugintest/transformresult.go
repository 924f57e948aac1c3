package plugintest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The checks of the transform_result hook and the requests they use.

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
	st := c.stage.(abi.TransformStage)
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

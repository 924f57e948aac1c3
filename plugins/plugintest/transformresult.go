package plugintest

import (
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
	check(c, hookCheck[abi.TransformResultRequest, abi.TransformResultResponse]{
		hook: h,
		reqs: TransformRequests(),
		label: func(i int, req *abi.TransformResultRequest) string {
			return fmt.Sprintf("request %d (%s)", i, req.Tool)
		},
		call:       st.TransformResult,
		nilMsg:     "nil response without an error",
		repeatable: true,
		valid: func(name string, _ *abi.TransformResultRequest, r *abi.TransformResultResponse) bool {
			if t := strings.TrimSpace(string(r.Result)); t == "" || t[0] != '{' {
				c.fail(h, name, "result is not a JSON object")
			} else {
				var res mcp.CallToolResult
				if err := json.Unmarshal(r.Result, &res); err != nil {
					c.fail(h, name, "result is not a CallToolResult: "+err.Error())
				}
			}
			return true
		},
	})
}

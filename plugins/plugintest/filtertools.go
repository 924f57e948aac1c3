package plugintest

import (
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
	st := c.stage.(abi.FilterStage)
	check(c, hookCheck[abi.FilterToolsRequest, abi.FilterToolsResponse]{
		hook: abi.HookFilterTools,
		reqs: FilterRequests(),
		label: func(i int, req *abi.FilterToolsRequest) string {
			return fmt.Sprintf("request %d (%s, %d tools)", i, req.Server, len(req.Tools))
		},
		call:       st.FilterTools,
		nilMsg:     "nil response without an error",
		repeatable: true,
		valid: func(name string, req *abi.FilterToolsRequest, r *abi.FilterToolsResponse) bool {
			known := map[string]bool{}
			for _, t := range req.Tools {
				known[t.Name] = true
			}
			seen := map[string]bool{}
			for _, n := range r.Tools {
				if !known[n] {
					c.fail(abi.HookFilterTools, name, fmt.Sprintf("keeps %q, which is not one of the tools it was given", n))
				}
				if seen[n] {
					c.fail(abi.HookFilterTools, name, fmt.Sprintf("keeps %q twice", n))
				}
				seen[n] = true
			}
			return true
		},
	})
}

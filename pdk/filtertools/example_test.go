package filtertools_test

import (
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/filtertools"
	"github.com/mcphost/mcphost/pdk/glob"
)

func init() {
	pdk.Describe("read-only-tools", "1.0.0")
	filtertools.Handle(keepReadOnly)
}

// keepReadOnly keeps the tools that declare readOnlyHint, plus those the
// "keep" config names (comma-separated globs). A tool without annotations
// is dropped: MCP's default for an unannotated tool is "may write".
func keepReadOnly(req *abi.FilterToolsRequest) (*abi.FilterToolsResponse, error) {
	var extra []string
	if v, ok := pdk.Config("keep"); ok {
		extra = strings.Split(v, ",")
	}
	var keep []string // none kept is still an answer; Handle sends []
	for _, t := range req.Tools {
		if (t.Annotations != nil && t.Annotations.ReadOnlyHint) || glob.MatchAny(extra, t.Name) {
			keep = append(keep, t.Name)
		}
	}
	pdk.Logf(abi.LogDebug, "%s: kept %d of %d tools", req.Server, len(keep), len(req.Tools))
	return &abi.FilterToolsResponse{Tools: keep}, nil
}

// The "keep" config lets an operator re-admit a writing tool the hints would hide.
func ExampleHandle() {
	mock := &pdk.Mock{Config: map[string]string{"keep": "create_*"}}
	defer pdk.UseMock(mock)()

	readOnly := &abi.ToolAnnotations{ReadOnlyHint: true}
	for _, req := range []abi.FilterToolsRequest{
		{Server: "gh", Tools: []abi.ToolInfo{
			{Name: "list_issues", Annotations: readOnly},
			{Name: "create_issue", Annotations: &abi.ToolAnnotations{Title: "Create issue"}},
			{Name: "delete_repo"},
			{Name: "get_file", Annotations: readOnly},
		}},
		{Server: "shell", Tools: []abi.ToolInfo{{Name: "exec"}}},
	} {
		var resp abi.FilterToolsResponse
		if err := pdk.CallJSON(abi.HookFilterTools, req, &resp); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %q\n", req.Server, resp.Tools)
	}
	for _, l := range mock.Logs() {
		fmt.Println("log:", l.Message)
	}
	// Output:
	// gh: ["list_issues" "create_issue" "get_file"]
	// shell: []
	// log: gh: kept 3 of 4 tools
	// log: shell: kept 0 of 1 tools
}

package policy_test

import (
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/policy"
)

// A policy plugin registers in init, as its main package would: the same
// code builds to WebAssembly (GOOS=wasip1 GOARCH=wasm go build
// -buildmode=c-shared) and runs natively under go test.
func init() {
	pdk.Describe("no-deletes", "1.0.0")
	policy.Handle(decide)
}

// decide denies the tools whose name starts with a prefix from the config
// ("delete_" if none is set) and allows the rest.
func decide(req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	prefix := pdk.ConfigOr("deny_prefix", "delete_")
	if strings.HasPrefix(req.Tool, prefix) {
		pdk.Log(abi.LogInfo, "denied "+req.Server+":"+req.Tool)
		return &abi.PolicyDecision{Decision: abi.Deny, Reason: req.Tool + " starts with " + prefix}, nil
	}
	return &abi.PolicyDecision{Decision: abi.Allow}, nil
}

// Testing the plugin natively: pdk.UseMock stands in for the host (config,
// secrets, logs) and pdk.CallJSON runs the hook through the same path as
// the WebAssembly export.
func ExampleHandle() {
	mock := &pdk.Mock{Config: map[string]string{"deny_prefix": "drop_"}}
	defer pdk.UseMock(mock)()

	for _, req := range []abi.PolicyRequest{
		{Server: "db", Tool: "query", Name: "mcp__db__query"},
		{Server: "db", Tool: "drop_table", Name: "mcp__db__drop_table"},
	} {
		var d abi.PolicyDecision
		if err := pdk.CallJSON(abi.HookPolicy, req, &d); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s %q\n", req.Name, d.Decision, d.Reason)
	}
	for _, l := range mock.Logs() {
		fmt.Println("log:", l.Message)
	}
	// Output:
	// mcp__db__query: allow ""
	// mcp__db__drop_table: deny "drop_table starts with drop_"
	// log: denied db:drop_table
}

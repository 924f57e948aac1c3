package abi_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/pdk/abi"
)

// A hook named in a configuration is checked once, and gives the export a
// plugin must have for it.
func ExampleParseHook() {
	for _, name := range []string{"policy", "transform_result", "polcy"} {
		h, err := abi.ParseHook(name)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(h, "->", h.Export())
	}
	// Output:
	// policy -> mcphost_policy_v1
	// transform_result -> mcphost_transform_result_v1
	// abi: unknown hook "polcy" (known: policy, filter_tools, map_names, transform_result, auth)
}

// noShell is a native stage: Go code that takes the same documents as a
// policy plugin, so the host's chain can hold it beside Wasm plugins.
type noShell struct{}

func (noShell) StageName() string { return "no-shell" }

func (noShell) Policy(_ context.Context, req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	if strings.Contains(req.Tool, "shell") {
		return &abi.PolicyDecision{Decision: abi.Deny, Reason: "no shells"}, nil
	}
	return &abi.PolicyDecision{Decision: abi.Allow}, nil
}

// A stage implements the interface of each hook it serves.
func ExamplePolicyStage() {
	var stage abi.PolicyStage = noShell{}
	for _, tool := range []string{"read_file", "run_shell"} {
		d, _ := stage.Policy(context.Background(), &abi.PolicyRequest{Server: "box", Tool: tool})
		fmt.Printf("%s %s: %s %q\n", stage.StageName(), tool, d.Decision, d.Reason)
	}
	// Output:
	// no-shell read_file: allow ""
	// no-shell run_shell: deny "no shells"
}

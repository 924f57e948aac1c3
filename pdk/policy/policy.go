// Package policy is the policy hook of the Go PDK: importing it exports
// mcphost_policy_v1 from the plugin (see package pdk for why each hook has
// its own package).
package policy

import (
	"fmt"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/internal/wire"
)

// Handle registers fn as the plugin's policy hook. Call it once, in init.
// fn decides one tool call: allow, deny or confirm, with a reason, and may
// rewrite the arguments. A deny is an outcome, not an error: return an error
// only when the plugin cannot decide (the host then applies the entry's
// on_error, deny by default).
func Handle(fn func(*abi.PolicyRequest) (*abi.PolicyDecision, error)) {
	if fn == nil {
		pdk.Register(abi.HookPolicy, nil) // reports the mistake
		return
	}
	checked := func(req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
		d, err := fn(req)
		if err == nil && d != nil {
			switch d.Decision {
			case abi.Allow, abi.Deny, abi.Confirm:
			default:
				// Caught here so that the plugin's own tests see it; the host
				// would refuse the document anyway.
				return nil, fmt.Errorf("pdk: the policy hook answered the decision %q (want allow, deny or confirm)", d.Decision)
			}
		}
		return d, err
	}
	pdk.Register(abi.HookPolicy, wire.Handler(abi.HookPolicy, wire.DecodePolicyRequest, wire.EncodePolicyDecision, checked))
}

//go:build wasip1 || tinygo.wasm

package policy

import (
	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
)

//go:wasmexport mcphost_policy_v1
func export() int32 { return pdk.Run(abi.HookPolicy) }

//go:build wasip1 || tinygo.wasm

package filtertools

import (
	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
)

//go:wasmexport mcphost_filter_tools_v1
func export() int32 { return pdk.Run(abi.HookFilterTools) }

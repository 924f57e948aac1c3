//go:build wasip1 || tinygo.wasm

package transformresult

import (
	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
)

//go:wasmexport mcphost_transform_result_v1
func export() int32 { return pdk.Run(abi.HookTransformResult) }

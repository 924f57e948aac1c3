//go:build wasip1 || tinygo.wasm

package mapnames

import (
	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
)

//go:wasmexport mcphost_map_names_v1
func export() int32 { return pdk.Run(abi.HookMapNames) }

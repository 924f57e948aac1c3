//go:build wasip1 || tinygo.wasm

package auth

import (
	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
)

//go:wasmexport mcphost_auth_v1
func export() int32 { return pdk.Run(abi.HookAuth) }

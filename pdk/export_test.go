package pdk

import "github.com/mcphost/mcphost/pdk/abi"

// Reset forgets every registration, so that each test starts from a plugin
// that has not initialised yet. Only this package's tests can reach it.
func Reset() {
	name, version, described = "", "", false
	handlers = map[abi.Hook]Handler{}
	initErr = nil
}

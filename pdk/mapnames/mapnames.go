// Package mapnames is the map_names hook of the Go PDK: importing it exports
// mcphost_map_names_v1 from the plugin (see package pdk for why each hook
// has its own package).
package mapnames

import (
	"fmt"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/internal/wire"
)

// Handle registers fn as the plugin's map_names hook. Call it once, in
// init. fn gets every tool of every server at once and returns one public
// name per tool, in the same order; the names must match the request's
// constraints and be unique, or the host falls back to its built-in mapping.
func Handle(fn func(*abi.MapNamesRequest) (*abi.MapNamesResponse, error)) {
	if fn == nil {
		pdk.Register(abi.HookMapNames, nil) // reports the mistake
		return
	}
	checked := func(req *abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
		r, err := fn(req)
		if err == nil && r != nil && len(r.Names) != len(req.Tools) {
			// Caught here so that the plugin's own tests see it.
			return nil, fmt.Errorf("pdk: the map_names hook answered %d names for %d tools", len(r.Names), len(req.Tools))
		}
		if err == nil && r != nil && r.Names == nil {
			r.Names = []string{} // no tools: [] rather than null
		}
		return r, err
	}
	pdk.Register(abi.HookMapNames, wire.Handler(abi.HookMapNames, wire.DecodeMapNamesRequest, wire.EncodeMapNamesResponse, checked))
}

// Package filtertools is the filter_tools hook of the Go PDK: importing it
// exports mcphost_filter_tools_v1 from the plugin (see package pdk for why
// each hook has its own package).
package filtertools

import (
	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/internal/wire"
)

// Handle registers fn as the plugin's filter_tools hook. Call it once, in
// init. fn gets one server's tool list and names the tools to keep; the
// others are neither listed nor callable. Keeping none is an answer
// (an empty list), not an error.
func Handle(fn func(*abi.FilterToolsRequest) (*abi.FilterToolsResponse, error)) {
	if fn == nil {
		pdk.Register(abi.HookFilterTools, nil) // reports the mistake
		return
	}
	checked := func(req *abi.FilterToolsRequest) (*abi.FilterToolsResponse, error) {
		r, err := fn(req)
		if err == nil && r != nil && r.Tools == nil {
			// A nil slice would encode as null; the document says a list.
			r.Tools = []string{}
		}
		return r, err
	}
	pdk.Register(abi.HookFilterTools, wire.Handler(abi.HookFilterTools, wire.DecodeFilterToolsRequest, wire.EncodeFilterToolsResponse, checked))
}

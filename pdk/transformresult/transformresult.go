// Package transformresult is the transform_result hook of the Go PDK:
// importing it exports mcphost_transform_result_v1 from the plugin (see
// package pdk for why each hook has its own package).
package transformresult

import (
	"errors"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/internal/wire"
)

// Handle registers fn as the plugin's transform_result hook. Call it once,
// in init. fn gets a tool's CallToolResult (raw JSON, as the server or the
// previous transform produced it) and returns the result to pass on; return
// the request's Result unchanged to leave it alone.
func Handle(fn func(*abi.TransformResultRequest) (*abi.TransformResultResponse, error)) {
	if fn == nil {
		pdk.Register(abi.HookTransformResult, nil) // reports the mistake
		return
	}
	checked := func(req *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
		r, err := fn(req)
		if err == nil && r != nil && len(r.Result) == 0 {
			// An empty RawMessage cannot even be encoded; say what is wrong.
			return nil, errors.New("pdk: the transform_result hook answered no result")
		}
		return r, err
	}
	pdk.Register(abi.HookTransformResult, wire.Handler(abi.HookTransformResult, wire.DecodeTransformResultRequest, wire.EncodeTransformResultResponse, checked))
}

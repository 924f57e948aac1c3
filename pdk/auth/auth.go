// Package auth is the auth hook of the Go PDK: importing it exports
// mcphost_auth_v1 from the plugin (see package pdk for why each hook has its
// own package). Only auth plugins may use pdk.HTTP.
package auth

import (
	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/internal/wire"
)

// Handle registers fn as the plugin's auth hook. Call it once, in init. fn
// gets the server, its URL and the challenge (status 0 on the first
// connect) and returns the headers to send. Never put a credential into an
// error or a log message: the host logs both.
func Handle(fn func(*abi.AuthRequest) (*abi.AuthResponse, error)) {
	if fn == nil {
		pdk.Register(abi.HookAuth, nil) // reports the mistake
		return
	}
	checked := func(req *abi.AuthRequest) (*abi.AuthResponse, error) {
		r, err := fn(req)
		if err == nil && r != nil && r.Headers == nil {
			r.Headers = map[string]string{} // {} rather than null
		}
		return r, err
	}
	pdk.Register(abi.HookAuth, wire.Handler(abi.HookAuth, wire.DecodeAuthRequest, wire.EncodeAuthResponse, checked))
}

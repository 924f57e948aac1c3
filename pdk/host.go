package pdk

import (
	"errors"
	"fmt"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/internal/wire"
)

// host is what a plugin can ask of mcphost besides its input and output.
// Inside WebAssembly it is the Extism kernel and mcphost's host functions;
// natively, and whenever a test installs one, it is a Mock.
type host interface {
	config(key string) (string, bool)
	secret(name string) (string, bool)
	log(level int32, msg string)
	// http takes and returns the JSON documents of abi.HTTPRequest and
	// abi.HTTPResponse.
	http(request []byte) []byte
}

// current is the host in use: defaultHost() (per build) unless UseMock
// replaced it.
var current = defaultHost()

// Config returns the value of a key of the plugin entry's config map (Extism
// config_get) and whether it is set. The host gives strings only; a value
// set to the empty string reads as not set, because Extism cannot hand an
// empty block to the guest. Inside WebAssembly each key is fetched from the
// host once and then cached: an instance's config never changes (ABI.md).
func Config(key string) (string, bool) { return current.config(key) }

// ConfigOr returns the config value of key, or def when it is not set.
func ConfigOr(key, def string) string {
	if v, ok := Config(key); ok {
		return v
	}
	return def
}

// Secret returns the secret of that name if the plugin entry's `secrets`
// list grants it and it has a value. Not granted, not set and empty all read
// as ("", false). Never log a secret or put it into an error: the host logs
// both.
func Secret(name string) (string, bool) { return current.secret(name) }

// Log writes msg into the host's log at level (abi.LogTrace to abi.LogError),
// tagged with the plugin.
func Log(level int32, msg string) { current.log(level, msg) }

// Logf is Log with fmt.Sprintf formatting.
func Logf(level int32, format string, args ...any) { current.log(level, fmt.Sprintf(format, args...)) }

// HTTP makes a request through the host's mcphost_http function, which only
// auth plugins get: to hosts the plugin entry allows, re-checking every
// redirect, refusing private addresses unless allowed. The time it takes
// counts against the hook's timeout. A refused or failed request returns
// the response (with Error set) and an error; a response with any HTTP
// status, 4xx and 5xx included, is not an error.
func HTTP(req abi.HTTPRequest) (abi.HTTPResponse, error) {
	in, err := wire.EncodeHTTPRequest(&req)
	if err != nil {
		return abi.HTTPResponse{}, fmt.Errorf("pdk.HTTP: encoding the request: %w", err)
	}
	resp, err := wire.DecodeHTTPResponse(current.http(in))
	if err != nil {
		return abi.HTTPResponse{}, fmt.Errorf("pdk.HTTP: decoding the host's response: %w", err)
	}
	if resp.Error != "" {
		return *resp, errors.New("pdk.HTTP: " + resp.Error)
	}
	return *resp, nil
}

// Command testplugin is a plugin that exercises every part of the Go PDK
// inside WebAssembly: config, secrets, logs, HTTP, errors and panics, and
// payloads of every size. The tests of package pdk (wasm_test.go) build it
// and run it through mcphost's runtime; it is not an example to copy.
package main

import (
	"errors"
	"strconv"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/auth"
	"github.com/mcphost/mcphost/pdk/policy"
	"github.com/mcphost/mcphost/pdk/transformresult"
)

func init() {
	pdk.Describe("testplugin", "0.0.1")
	policy.Handle(decide)
	transformresult.Handle(func(req *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
		return &abi.TransformResultResponse{Result: req.Result}, nil
	})
	auth.Handle(func(req *abi.AuthRequest) (*abi.AuthResponse, error) {
		resp, err := pdk.HTTP(abi.HTTPRequest{Method: "POST", URL: req.URL, Body: []byte("ping")})
		if err != nil {
			return nil, err
		}
		return &abi.AuthResponse{Headers: map[string]string{
			"X-Status": strconv.Itoa(resp.Status),
			"X-Body":   string(resp.Body),
		}}, nil
	})
}

// decide answers by tool name, so that one export covers every case.
func decide(req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	switch req.Tool {
	case "panic":
		var m map[string]int
		m[req.Name]++ // a nil map: a runtime panic
	case "error":
		return nil, errors.New("testplugin: asked to fail")
	case "log":
		pdk.Logf(abi.LogWarn, "testplugin: log for %s", req.Name)
	}
	k, kok := pdk.Config("k")
	_, eok := pdk.Config("empty")
	s, sok := pdk.Secret("s")
	_, nok := pdk.Secret("not-granted")
	return &abi.PolicyDecision{Decision: abi.Allow, Reason: req.Server + ":" + req.Tool, Arguments: map[string]any{
		"k": k, "k_ok": kok, "empty_ok": eok, "s": s, "s_ok": sok, "not_granted_ok": nok, "echo": req.Arguments, "pin": req.Pin,
	}}, nil
}

func main() {}

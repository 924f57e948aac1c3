// Package pdk is the Go guest library for mcphost plugins: a plugin written
// with it is an ordinary Go program compiled to WebAssembly that mcphost
// loads through Extism (see abi/ABI.md for the contract it implements).
//
// A plugin is a main package with an empty main, a Describe call and one
// Handle call per hook, all in init:
//
//	package main
//
//	import (
//		"github.com/mcphost/mcphost/pdk"
//		"github.com/mcphost/mcphost/pdk/abi"
//		"github.com/mcphost/mcphost/pdk/policy"
//	)
//
//	func init() {
//		pdk.Describe("my-policy", "1.0.0")
//		policy.Handle(decide)
//	}
//
//	func decide(req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
//		return &abi.PolicyDecision{Decision: abi.Allow}, nil
//	}
//
//	func main() {}
//
// Registration must happen in init (or a package variable initialiser): a
// plugin is a WASI reactor, so package initialisation runs when the host
// instantiates it, and main never runs.
//
// # Building
//
// Standard Go (1.24 or later):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -trimpath -buildvcs=false -o plugin.wasm .
//
// TinyGo (a release with //go:wasmexport and -buildmode=c-shared for
// wasip1, 0.34 or later):
//
//	tinygo build -target=wasip1 -buildmode=c-shared -o plugin.wasm .
//
// The host must be started with WASI enabled (mcphost always does); the guest
// gets no files, environment, arguments, sockets or real clock through it.
// TinyGo cannot recover panics on WebAssembly: a panicking hook traps there
// (a plugin fault), while with standard Go the PDK turns the panic into a
// plugin error. TinyGo support is by construction (no goroutines, no
// reflection beyond encoding/json, plain //go:wasmimport and
// //go:wasmexport); it is not tested by mcphost's own test suite.
//
// # Why one package per hook
//
// A //go:wasmexport directive cannot be conditional: every function carrying
// it in a package that is linked in becomes an export of the module. The
// hook exports therefore live in one small package per hook (policy,
// filtertools, mapnames, transformresult, auth), each with a Handle function
// and the single export of its hook. A plugin imports exactly the hooks it
// implements, so its exports are exactly its hooks and match what describe
// reports: `mcphost plugin inspect` shows an operator the real surface of
// the module, and the host can check describe against the exports both
// ways. Package pdk itself exports only mcphost_describe, which every plugin
// needs.
//
// # What a plugin can use
//
//   - Describe(name, version): the plugin's description.
//   - policy.Handle, filtertools.Handle, mapnames.Handle,
//     transformresult.Handle, auth.Handle: the hooks, typed with package abi.
//   - Config(key) and ConfigOr(key, def): the entry's config map.
//   - Secret(name): a secret the entry grants.
//   - Log(level, msg) and Logf: the host's log.
//   - HTTP(req): an HTTP request through the host (auth plugins only; using
//     it anywhere else makes the host refuse the plugin, because the module
//     then imports mcphost_http).
//   - Register, JSON and Run (Run in WebAssembly builds only): the byte
//     level under the hook packages.
//
// # Cost
//
// A call into a Go guest costs about 40–60 µs before the hook does anything
// (Extism's per-call work and the kernel crossings), and under a timeout,
// which mcphost always sets, Go's WebAssembly code runs several times slower
// than without (wazero checks for the deadline at every loop, and Go's
// WebAssembly code is loops throughout). So the hook packages decode and
// encode their documents without reflection (package internal/wire:
// encoding/json took ~150 µs for one small policy request), Config values
// are fetched from the host once per instance, and a transform's result
// crosses as raw bytes, never decoded. In a hook, prefer plain string
// concatenation and strconv to fmt, and avoid encoding/json on hot paths.
//
// # Testing natively
//
// Outside WebAssembly the host side is an in-memory Mock (no config, no
// secrets, logs kept), so plain `go test` of a plugin works: install a Mock
// with UseMock to give config, secrets and an HTTP function, and run a hook
// through the same path as the export with Call or CallJSON (input decoding,
// the handler, panic recovery and output encoding).
package pdk

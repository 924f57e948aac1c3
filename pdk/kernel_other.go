//go:build !(wasip1 || tinygo.wasm)

package pdk

// Outside WebAssembly there is no Extism kernel: the host is an empty Mock
// (no config, no secrets, no HTTP, logs kept), so that a plugin's code runs
// in plain `go test`. UseMock installs one with content.
func defaultHost() host { return &Mock{} }

// Package plugins is mcphost's WebAssembly plugin runtime: it loads the
// sandboxed plugins that own steps of the call pipeline (policy, tool
// filtering, name mapping, result transforms, auth) and runs their hooks
// under limits (time, memory, output size) in a bounded pool of instances.
//
// A plugin is described by a Spec (SpecForFile makes one for a file on its
// own); Open loads one plugin and Load loads the plugins of a configuration
// as a Set, in parallel:
//
//	spec := plugins.SpecForFile("/path/to/deny-destructive.wasm")
//	p, err := plugins.Open(ctx, spec, plugins.Options{})
//	...
//	defer p.Close(ctx)
//	decision, err := p.Policy(ctx, &abi.PolicyRequest{Server: "fs", Tool: "delete_file"})
//
// The package knows nothing of configuration files or of package host: a
// *Plugin implements the stage interfaces (abi.PolicyStage, abi.FilterStage,
// abi.NameStage, abi.TransformStage, abi.AuthStage), which host's stage
// types are. Package
// host/chain turns a configuration's plugin entries into specs and loaded
// plugins into host stages. The contract a plugin implements is package
// pdk/abi; package pdk is the Go library for writing one, and
// plugins/plugintest checks that a plugin keeps the contract.
package plugins

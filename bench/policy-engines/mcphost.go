package policyengines

import (
	"context"
	"os"
	"path/filepath"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// BuiltPluginsEnv names the directory of the built example plugins
// (scripts/build-plugins.sh DIR writes read-only.wasm, deny-destructive.wasm,
// redact-secrets.wasm, ... there).
const BuiltPluginsEnv = "MCPHOST_BUILT_PLUGINS"

// PluginPath is the path of a built example plugin; ok is false when
// BuiltPluginsEnv is not set.
func PluginPath(name string) (path string, ok bool) {
	dir := os.Getenv(BuiltPluginsEnv)
	if dir == "" {
		return "", false
	}
	return filepath.Join(dir, name+".wasm"), true
}

// Plugin is an mcphost Wasm plugin loaded through the host's own API, as
// mcphost runs it: plugins.Open on a spec, then a typed hook call per
// decision (marshal the request, call the export in a pooled instance under
// the timeout, decode the answer strictly).
type Plugin struct {
	p *plugins.Plugin
}

// OpenPlugin loads the plugin at path with config (the guest's config
// keys) and limits (nil: the defaults of a config entry). cacheDir is the
// compilation cache; sharing one between benchmarks compiles each module
// once.
func OpenPlugin(ctx context.Context, path string, cfg map[string]string, limits *plugins.Limits, cacheDir string) (*Plugin, error) {
	spec := plugins.SpecForFile(path)
	spec.Config = cfg
	if limits != nil {
		spec.Limits = *limits
	}
	p, err := plugins.Open(ctx, spec, plugins.Options{CacheDir: cacheDir})
	if err != nil {
		return nil, err
	}
	return &Plugin{p: p}, nil
}

// Decide implements Decider.
func (p *Plugin) Decide(ctx context.Context, req *abi.PolicyRequest) (abi.Decision, error) {
	d, err := p.p.Policy(ctx, req)
	if err != nil {
		return "", err
	}
	return d.Decision, nil
}

// Transform runs the transform_result hook through the host's adapter
// (which also checks that the answer is a CallToolResult).
func (p *Plugin) Transform(ctx context.Context, req *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
	return p.p.TransformResult(ctx, req)
}

// Close releases the plugin's instances; a failure to close does not
// matter to a benchmark.
func (p *Plugin) Close() { _ = p.p.Close(context.Background()) }

// ReadOnlyConfig is the read-only plugin's config: the allow list.
func ReadOnlyConfig() map[string]string { return map[string]string{"allow": AllowList} }

// DenyDestructiveConfig is deny-destructive's config for the benchmark.
// Its rule differs: it denies destructive tools (MCP's default for a tool
// that does not say otherwise) unless a glob allows them, asks to confirm
// open-world tools, and allows the rest. With the same allow list and
// confirm_open_world off it decides the benchmark's requests as read-only
// does (delete_repository: denied as destructive); it still differs on a
// tool annotated destructiveHint: false without readOnlyHint, which it
// allows. Its globs are mcphost's pdk/glob, whose '*' crosses '/'.
func DenyDestructiveConfig() map[string]string {
	return map[string]string{"allow": AllowList, "confirm_open_world": "false"}
}

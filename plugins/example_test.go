package plugins_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// Open a policy plugin and ask it about calls, as the host does before each
// call. The plugin is examples/plugins/deny-destructive, built to
// WebAssembly (the copy that `mcphost demo` embeds).
func ExampleOpen() {
	ctx := context.Background()
	path, _ := filepath.Abs("../internal/demo/plugins/deny-destructive.wasm")
	cacheDir, _ := os.MkdirTemp("", "mcphost-example-cache-")
	defer os.RemoveAll(cacheDir)

	spec := plugins.SpecForFile(path)
	spec.Config = map[string]string{"allow": "fs:delete_tmp", "confirm_open_world": "false"}
	// Generous, so that a busy machine does not fail the example; the
	// default is 100 ms per call.
	spec.Limits.Timeout = 5 * time.Second
	p, err := plugins.Open(ctx, spec, plugins.Options{CacheDir: cacheDir})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close(ctx)
	d := p.Description()
	fmt.Println(d.Name, d.Version, p.Hooks())

	yes, no := true, false
	readOnly := &abi.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &no, OpenWorldHint: &no}
	destructive := &abi.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}
	for _, req := range []*abi.PolicyRequest{
		{Server: "fs", Tool: "read_file", Name: "fs_read_file", Annotations: readOnly},
		{Server: "fs", Tool: "delete_file", Name: "fs_delete_file", Annotations: destructive},
		{Server: "fs", Tool: "delete_tmp", Name: "fs_delete_tmp", Annotations: destructive},
	} {
		dec, err := p.Policy(ctx, req)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s\n", req.Name, dec.Decision)
	}
	// Output:
	// deny-destructive 1.0.0 [policy]
	// fs_read_file: allow
	// fs_delete_file: deny
	// fs_delete_tmp: allow
}

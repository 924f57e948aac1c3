package config_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcphost/mcphost/host/config"
)

func ExampleAddPlugin() {
	global, _ := os.MkdirTemp("", "mcphost-example-global-")
	project, _ := os.MkdirTemp("", "mcphost-example-project-")
	defer os.RemoveAll(global)
	defer os.RemoveAll(project)
	opts := config.LoadOptions{GlobalDir: global, WorkDir: project, Environ: []string{}}

	file, err := config.AddPlugin(opts, config.ScopeUser, config.PluginEntry{
		Name:    "org-policy",
		Path:    "/opt/mcphost/deny-destructive.wasm",
		SHA256:  "0b1e2c0ffee0b1e2c0ffee0b1e2c0ffee0b1e2c0ffee0b1e2c0ffee0b1e2c0ff",
		Hooks:   []string{"policy"},
		Config:  map[string]string{"allow": "fs:read_*"},
		Secrets: map[string]string{"token": "${POLICY_TOKEN}"},
	}, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := os.ReadFile(file)
	fmt.Printf("%s:\n%s", filepath.Base(file), data)
	// Output:
	// config.yaml:
	// plugins:
	//   - name: org-policy
	//     path: /opt/mcphost/deny-destructive.wasm
	//     sha256: 0b1e2c0ffee0b1e2c0ffee0b1e2c0ffee0b1e2c0ffee0b1e2c0ffee0b1e2c0ff
	//     hooks:
	//       - policy
	//     config:
	//       allow: fs:read_*
	//     secrets:
	//       token: ${POLICY_TOKEN}
}

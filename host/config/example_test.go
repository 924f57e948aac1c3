package config_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcphost/mcphost/host/config"
)

func ExampleLoad() {
	global, _ := os.MkdirTemp("", "mcphost-example-global-")
	project, _ := os.MkdirTemp("", "mcphost-example-project-")
	defer os.RemoveAll(global)
	defer os.RemoveAll(project)

	os.WriteFile(filepath.Join(global, "config.yaml"), []byte(`
servers:
  memory:
    command: npx
    args: [-y, "@modelcontextprotocol/server-memory"]
  github:
    url: https://api.githubcopilot.com/mcp/
    headers:
      Authorization: Bearer ${GITHUB_TOKEN}
    request_timeout: 2m
    tools:
      deny: ["delete_*"]
`), 0o600)

	cfg, err := config.Load(config.LoadOptions{
		GlobalDir: global,
		WorkDir:   project,
		Environ:   []string{"GITHUB_TOKEN=example-token"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range cfg.Servers {
		fmt.Printf("%s: %s %s%s%v timeout=%s deny=%v from %s\n", s.ID, s.Transport, s.Command, s.URL, s.Args,
			s.RequestTimeout, s.Tools.Deny, filepath.Base(s.Source))
	}
	// Output:
	// github: http https://api.githubcopilot.com/mcp/[] timeout=2m0s deny=[delete_*] from config.yaml
	// memory: stdio npx[-y @modelcontextprotocol/server-memory] timeout=1m0s deny=[] from config.yaml
}

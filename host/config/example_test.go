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

// A server added to the local scope is private to the user and to one
// project directory: it lives in the user's config directory, keyed by the
// directory, and needs no "mcphost trust".
func ExampleAddServer_local() {
	global, _ := os.MkdirTemp("", "mcphost-example-global-")
	project, _ := os.MkdirTemp("", "mcphost-example-project-")
	defer os.RemoveAll(global)
	defer os.RemoveAll(project)
	opts := config.LoadOptions{GlobalDir: global, WorkDir: project, Environ: []string{}}

	path, err := config.AddServer(opts, config.ScopeLocal, config.ServerEntry{
		ID: "memory", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"},
	}, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, _ := config.Load(opts)
	s := cfg.Servers[0]
	fmt.Println(filepath.Base(filepath.Dir(path)), s.ID, s.Scope, s.Untrusted, s.Source == path)
	// Output:
	// local memory local false true
}

// ${secret:NAME} takes a value from a secret store (the mcphost command
// passes the OS keychain as LoadOptions.Secret).
func ExampleExpandSecrets() {
	keychain := map[string]string{"github": "ghp_example"}
	get := func(name string) (string, error) {
		if v, ok := keychain[name]; ok {
			return v, nil
		}
		return "", fmt.Errorf("not in the keychain (mcphost secret set %s)", name)
	}
	env := func(name string) (string, bool) { return "", false }
	out, _ := config.ExpandSecrets("Bearer ${secret:github}", env, get)
	fmt.Println(out)
	_, err := config.ExpandSecrets("${secret:gitlab}", env, get)
	fmt.Println(err)
	// Output:
	// Bearer ghp_example
	// ${secret:gitlab}: not in the keychain (mcphost secret set gitlab)
}

func ExampleParseEnvFile() {
	vars, err := config.ParseEnvFile([]byte(`# written by hand
export API_URL=https://api.example.com
TOKEN="abc \"def\""   # quoted
EMPTY=
`))
	fmt.Println(vars["API_URL"], vars["TOKEN"], len(vars), err)
	// Output:
	// https://api.example.com abc "def" 3 <nil>
}

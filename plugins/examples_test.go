package plugins_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcphost/mcphost/plugins"
	"github.com/mcphost/mcphost/plugins/plugintest"
)

// Every example plugin, as the test command builds it
// (scripts/build-plugins.sh DIR; MCPHOST_BUILT_PLUGINS=DIR), loads and passes
// the conformance kit.
func TestExamplePluginsConform(t *testing.T) {
	dir := os.Getenv("MCPHOST_BUILT_PLUGINS")
	if dir == "" {
		if os.Getenv("CI") != "" || os.Getenv("MCPHOST_REQUIRE_E2E") != "" {
			t.Fatal("MCPHOST_BUILT_PLUGINS is not set: scripts/test.sh builds the examples and sets it")
		}
		t.Skip("set MCPHOST_BUILT_PLUGINS to a directory built by scripts/build-plugins.sh")
	}
	t.Setenv("MCPHOST_TEST_TOKEN", "s3cret-token")
	for _, ex := range []struct {
		name   string
		config map[string]string
		secret bool
	}{
		{name: "deny-destructive", config: map[string]string{"allow": "fs:read_*"}},
		{name: "redact-secrets"},
		{name: "truncate", config: map[string]string{"max_bytes": "256"}},
		{name: "read-only", config: map[string]string{"allow": "fs:stat_*"}},
		{name: "description-guard", config: map[string]string{"known_tools": "mail:send_email"}},
		{name: "header-auth", secret: true},
		{name: "team-names", config: map[string]string{"team": "red"}},
		{name: "caller-rules", config: map[string]string{"rules": `[{"tools": ["fs:*"], "scopes": ["sre"]}]`}},
	} {
		t.Run(ex.name, func(t *testing.T) {
			spec := plugins.SpecForFile(filepath.Join(dir, ex.name+".wasm"))
			spec.Config = ex.config
			// Generous: the kit's concurrency check runs many calls at once
			// on a small machine; the limit is not what is tested here.
			spec.Limits.Timeout = 10 * time.Second
			if ex.secret {
				spec.Secrets = map[string]string{"token": "s3cret-token"}
			}
			p, err := plugins.Open(context.Background(), spec, plugins.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close(context.Background())
			plugintest.Run(t, p)
		})
	}
}

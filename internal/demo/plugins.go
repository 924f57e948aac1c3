package demo

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// The demo's plugins, built from examples/plugins and embedded so that
// `mcphost demo` needs nothing but Go. TestEmbeddedPluginsMatchSource checks
// that they are what the sources build to (scripts/build-plugins.sh
// internal/demo/plugins refreshes them).
//
//go:embed plugins/*.wasm
var embeddedPlugins embed.FS

// PluginNames lists the embedded plugins.
var PluginNames = []string{"deny-destructive", "redact-secrets"}

// PluginSHA256 returns the sha256 of an embedded plugin.
func PluginSHA256(name string) (string, error) {
	b, err := embeddedPlugins.ReadFile("plugins/" + name + ".wasm")
	if err != nil {
		return "", fmt.Errorf("demo: no embedded plugin %q", name)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// WritePlugins writes the embedded plugins into dir and returns their paths
// by name.
func WritePlugins(dir string) (map[string]string, error) {
	paths := map[string]string{}
	for _, name := range PluginNames {
		b, err := embeddedPlugins.ReadFile("plugins/" + name + ".wasm")
		if err != nil {
			return nil, fmt.Errorf("demo: no embedded plugin %q", name)
		}
		p := filepath.Join(dir, name+".wasm")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return nil, fmt.Errorf("demo: writing plugin %s: %w", name, err)
		}
		paths[name] = p
	}
	return paths, nil
}

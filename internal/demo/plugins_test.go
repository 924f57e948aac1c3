package demo

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The embedded plugins must be what their sources build to. The Go plugin
// is built here; the Rust one is compared with the build that the test
// command makes (MCPHOST_BUILT_PLUGINS), since building Rust needs a
// toolchain Go tests cannot assume.
func TestEmbeddedPluginsMatchSource(t *testing.T) {
	built := os.Getenv("MCPHOST_BUILT_PLUGINS")
	for _, name := range PluginNames {
		t.Run(name, func(t *testing.T) {
			want, err := PluginSHA256(name)
			if err != nil {
				t.Fatal(err)
			}
			var path string
			switch {
			case built != "":
				path = filepath.Join(built, name+".wasm")
			case name == "deny-destructive":
				path = filepath.Join(t.TempDir(), name+".wasm")
				cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false", "-o", path, "../../examples/plugins/"+name)
				cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("building %s: %v\n%s", name, err, out)
				}
			case os.Getenv("CI") != "" || os.Getenv("MCPHOST_REQUIRE_E2E") != "":
				t.Fatalf("MCPHOST_BUILT_PLUGINS is not set: run scripts/build-plugins.sh DIR and point it there")
			default:
				t.Skip("set MCPHOST_BUILT_PLUGINS to a directory built by scripts/build-plugins.sh to compare")
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			if got := hex.EncodeToString(sum[:]); got != want {
				t.Fatalf("embedded %s.wasm (sha256 %s) is not what its source builds to (%s): run scripts/build-plugins.sh internal/demo/plugins", name, want[:12], got[:12])
			}
		})
	}
}

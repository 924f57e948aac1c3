package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcphost/mcphost/plugins"
	"github.com/mcphost/mcphost/plugins/plugintest"
)

// The embedded plugins must be what their sources build to. The Go plugin
// is built here and must be byte-identical. The Rust one is compared with
// the build that the test command makes (MCPHOST_BUILT_PLUGINS), since
// building Rust needs a toolchain Go tests cannot assume; cargo's build is
// not byte-reproducible across checkout directories (its crate metadata
// hashes include the path), so a Rust plugin whose bytes differ must give
// the same answers as the fresh build on every request of the conformance
// kit.
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
			got := hex.EncodeToString(sum[:])
			if got == want {
				return
			}
			if name == "deny-destructive" {
				t.Fatalf("embedded %s.wasm (sha256 %s) is not what its source builds to (%s): run scripts/build-plugins.sh internal/demo/plugins", name, want[:12], got[:12])
			}
			sameAnswers(t, name, path)
		})
	}
}

// sameAnswers checks that the embedded transform plugin answers every
// request of the conformance kit exactly as the fresh build at path does.
func sameAnswers(t *testing.T, name, path string) {
	ctx := context.Background()
	dir := t.TempDir()
	embedded, err := WritePlugins(dir)
	if err != nil {
		t.Fatal(err)
	}
	open := func(p string) *plugins.Plugin {
		spec := plugins.SpecForFile(p)
		spec.Limits.Timeout = 10 * time.Second
		pl, err := plugins.Open(ctx, spec, plugins.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pl.Close(ctx) })
		return pl
	}
	a, b := open(embedded[name]), open(path)
	for i, req := range plugintest.TransformRequests() {
		ra, erra := a.TransformResult(ctx, req)
		rb, errb := b.TransformResult(ctx, req)
		if (erra == nil) != (errb == nil) || (erra == nil && string(ra.Result) != string(rb.Result)) {
			t.Fatalf("embedded %s.wasm answers request %d differently from its source: %v / %v: run scripts/build-plugins.sh internal/demo/plugins", name, i, erra, errb)
		}
	}
}

package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/plugins/internal/wasmbin"
)

func fixtureSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*.wasm"))
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Add([]byte("\x00asm\x0d\x00\x01\x00"))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\xff\xff\xff\xff\x0f"))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x07\x05\x01\x01a\x09\x00"))
	f.Add([]byte("not wasm at all"))
}

// FuzzParseModule: the import/export reader never panics and only reports
// imports and exports of known kinds.
func FuzzParseModule(f *testing.F) {
	fixtureSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := parseModule(data)
		if err != nil {
			return
		}
		for _, i := range info.Imports {
			if !contains(wasmbin.ExternKinds, i.Kind) {
				t.Fatalf("import kind %q", i.Kind)
			}
		}
		for _, e := range info.Exports {
			if !contains(wasmbin.ExternKinds, e.Kind) {
				t.Fatalf("export kind %q", e.Kind)
			}
		}
	})
}

// FuzzOpen: arbitrary bytes as a plugin file give a clear load error (or,
// rarely, a plugin), never a panic or a hang.
func FuzzOpen(f *testing.F) {
	fixtureSeeds(f)
	old := minInitTimeout
	minInitTimeout = 200 * time.Millisecond
	f.Cleanup(func() { minInitTimeout = old })
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.wasm")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s := spec("fuzz", "allow-all")
		s.Path = path
		s.Limits.Timeout = 20 * time.Millisecond
		s.Limits.MemoryMB = 4
		opts, _ := testOptions(t)
		p, err := Open(ctx(t), s, opts)
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Kind != KindLoad || !strings.HasPrefix(err.Error(), `plugins: plugin "fuzz": `) {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		defer p.Close(ctx(t))
		for _, h := range p.Hooks() {
			p.Invoke(ctx(t), h, []byte(`{"server":"s"}`))
		}
	})
}

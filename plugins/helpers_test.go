package plugins

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mcphost/mcphost/internal/testenv"
	"github.com/mcphost/mcphost/pdk/abi"
)

// fixtureDir holds the hostile and good .wat plugins and their .wasm.
var fixtureDir = filepath.Join("..", "testdata", "plugins")

func fixture(name string) string {
	p, err := filepath.Abs(filepath.Join(fixtureDir, name+".wasm"))
	if err != nil {
		panic(err)
	}
	return p
}

// testCache is one in-memory compilation cache for the package's tests, so
// that each fixture is compiled once.
var testCache *Cache

func TestMain(m *testing.M) {
	c, err := NewCache("")
	if err != nil {
		panic(err)
	}
	testCache = c
	code := m.Run()
	c.Close()
	os.Exit(code)
}

func testOptions(t testing.TB) (Options, *testenv.Buffer) {
	lb := &testenv.Buffer{}
	return Options{
		Cache:  testCache,
		Logger: hclog.New(&hclog.LoggerOptions{Name: "mcphost", Level: hclog.Trace, Output: lb}),
	}, lb
}

// spec is the configuration of a fixture under the given name.
func spec(name, file string) *Spec {
	s := SpecForFile(fixture(file))
	s.Name = name
	return s
}

// open loads a fixture; edit adjusts its configuration first.
func open(t testing.TB, file string, edit func(*Spec)) *Plugin {
	t.Helper()
	s := spec(file, file)
	if edit != nil {
		edit(s)
	}
	opts, _ := testOptions(t)
	p, err := Open(context.Background(), s, opts)
	if err != nil {
		t.Fatalf("open %s: %v", file, err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// ctx is a context for one test call: generous, so that a slow machine
// never hits it (the plugins' own limits are what the tests exercise).
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// shortReq and longReq are policy requests under and over the 256 bytes at
// which the hostile fixtures turn hostile.
var (
	shortReq = &abi.PolicyRequest{Server: "s", Tool: "t", Name: "s_t", Arguments: map[string]any{}}
	longReq  = &abi.PolicyRequest{Server: "s", Tool: "t", Name: "s_t", Arguments: map[string]any{"pad": strings.Repeat("x", 400)}}
)

func wantError(t testing.TB, err error, kind Kind, parts ...string) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want a %s error containing %q", kind, parts)
	}
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %T %v is not an *Error", err, err)
	}
	if e.Kind != kind {
		t.Errorf("kind = %s, want %s (%v)", e.Kind, kind, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err.Error(), p)
		}
	}
	return e
}

// requireTools says whether a missing tool fails the test: in CI and in the
// full test run (scripts/test.sh sets MCPHOST_REQUIRE_E2E) it does.
func requireTools() bool {
	return os.Getenv("CI") != "" || os.Getenv("MCPHOST_REQUIRE_E2E") != ""
}

// TestFixturesMatchWAT re-assembles every .wat fixture with wabt's wat2wasm
// and compares it with the committed .wasm, so that the binaries the tests
// load are the sources they claim to be.
func TestFixturesMatchWAT(t *testing.T) {
	wat2wasm, err := exec.LookPath("wat2wasm")
	if err != nil {
		if requireTools() {
			t.Fatal("wat2wasm not found: install Debian's wabt package (apt-get install -y wabt)")
		}
		t.Skip("wat2wasm not found (apt-get install -y wabt)")
	}
	wats, _ := filepath.Glob(filepath.Join(fixtureDir, "*.wat"))
	if len(wats) < 10 {
		t.Fatalf("found %d .wat fixtures", len(wats))
	}
	for _, w := range wats {
		name := strings.TrimSuffix(filepath.Base(w), ".wat")
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), name+".wasm")
			if msg, err := exec.Command(wat2wasm, w, "-o", out).CombinedOutput(); err != nil {
				t.Fatalf("wat2wasm %s: %v\n%s", w, err, msg)
			}
			got, _ := os.ReadFile(out)
			want, err := os.ReadFile(filepath.Join(fixtureDir, name+".wasm"))
			if err != nil {
				t.Fatalf("%v (assemble it: wat2wasm %s.wat -o %s.wasm)", err, name, name)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s.wasm is not %s.wat assembled: run wat2wasm %s.wat -o %s.wasm in testdata/plugins", name, name, name, name)
			}
		})
	}
}

func newLogger(w *testenv.Buffer) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{Name: "mcphost", Level: hclog.Trace, Output: w})
}

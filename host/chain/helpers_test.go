package chain

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mcphost/mcphost/internal/testenv"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

var fixtureDir = filepath.Join("..", "..", "testdata", "plugins")

func fixture(name string) string {
	p, err := filepath.Abs(filepath.Join(fixtureDir, name+".wasm"))
	if err != nil {
		panic(err)
	}
	return p
}

func testOptions(t testing.TB) (plugins.Options, *testenv.Buffer) {
	lb := &testenv.Buffer{}
	return plugins.Options{
		CacheDir: t.TempDir(),
		Logger:   hclog.New(&hclog.LoggerOptions{Name: "mcphost", Level: hclog.Trace, Output: lb}),
	}, lb
}

// open loads a fixture; edit adjusts its spec first.
func open(t testing.TB, file string, edit func(*plugins.Spec)) *plugins.Plugin {
	t.Helper()
	s := plugins.SpecForFile(fixture(file))
	if edit != nil {
		edit(s)
	}
	opts, _ := testOptions(t)
	p, err := plugins.Open(context.Background(), s, opts)
	if err != nil {
		t.Fatalf("open %s: %v", file, err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

var shortReq = &abi.PolicyRequest{Server: "s", Tool: "t", Name: "s_t", Arguments: map[string]any{}}

func wantError(t testing.TB, err error, kind plugins.Kind, parts ...string) {
	t.Helper()
	var e *plugins.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not a *plugins.Error", err, err)
	}
	if e.Kind != kind {
		t.Errorf("kind = %s, want %s (%v)", e.Kind, kind, err)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

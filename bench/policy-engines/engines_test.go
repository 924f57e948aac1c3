package policyengines

import (
	"context"
	"os"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// cacheDir is the plugins' compilation cache, shared by every Open of the
// process (and by the script's runs, through MCPHOST_BENCH_CACHE_DIR), so
// that each module is compiled once, not per benchmark.
var cacheDir string

func TestMain(m *testing.M) {
	cacheDir = os.Getenv("MCPHOST_BENCH_CACHE_DIR")
	cleanup := func() {}
	if cacheDir == "" {
		dir, err := os.MkdirTemp("", "policy-engines-cache-")
		if err != nil {
			panic(err)
		}
		cacheDir = dir
		cleanup = func() { os.RemoveAll(dir) }
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// engine is one way of deciding, as the tests and benchmarks open it.
type engine struct {
	name string
	// serialOnly: a process per decision; no parallel benchmark.
	serialOnly bool
	// open makes the engine; anything to release is released with tb.
	open func(tb testing.TB) (Decider, error)
}

var engines = []engine{
	{name: "native", open: func(testing.TB) (Decider, error) { return NewNative(AllowList) }},
	{name: "cel-go", open: func(testing.TB) (Decider, error) { return NewCEL(AllowList) }},
	{name: "cedar-go", open: func(testing.TB) (Decider, error) { return NewCedar(AllowList) }},
	{name: "opa-rego", open: func(testing.TB) (Decider, error) { return NewRego(context.Background(), AllowList) }},
	{name: "shell-hook", serialOnly: true, open: func(testing.TB) (Decider, error) { return NewShell(AllowList) }},
	{name: "mcphost-rust-read-only", open: func(tb testing.TB) (Decider, error) {
		return openBuilt(tb, "read-only", ReadOnlyConfig(), nil)
	}},
	{name: "mcphost-go-deny-destructive", open: func(tb testing.TB) (Decider, error) {
		return openBuilt(tb, "deny-destructive", DenyDestructiveConfig(), nil)
	}},
}

// start opens e, failing tb on an error.
func (e engine) start(tb testing.TB) Decider {
	tb.Helper()
	d, err := e.open(tb)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// openBuilt opens a built example plugin, closed with tb; limits nil are
// the defaults of a config entry. Without MCPHOST_BUILT_PLUGINS it skips.
func openBuilt(tb testing.TB, name string, cfg map[string]string, limits *plugins.Limits) (*Plugin, error) {
	tb.Helper()
	path, ok := PluginPath(name)
	if !ok {
		tb.Skipf("%s is not set: build the plugins with scripts/build-plugins.sh DIR and set it to DIR", BuiltPluginsEnv)
	}
	p, err := OpenPlugin(context.Background(), path, cfg, limits, cacheDir)
	if err != nil {
		return nil, err
	}
	tb.Cleanup(p.Close)
	return p, nil
}

// TestDecisions: every engine decides the same requests the same way, the
// benchmark's request included.
func TestDecisions(t *testing.T) {
	cases := []struct {
		name string
		req  *abi.PolicyRequest
		want abi.Decision
	}{
		{"benchmark request", BenchRequest(), abi.Deny},
		{"server:tool matches a glob", &abi.PolicyRequest{
			Server: "github", Tool: "list_issues", Name: "mcp__github__list_issues",
			Arguments: map[string]any{"owner": "acme", "repo": "widgets", "state": "open", "per_page": 30.0},
			Caller:    &abi.Caller{Kind: "cli"},
		}, abi.Allow},
		{"public name matches a glob", &abi.PolicyRequest{
			Server: "mirror", Tool: "list", Name: "github:list_mirrored",
			Annotations: &abi.ToolAnnotations{DestructiveHint: new(true)},
		}, abi.Allow},
		{"readOnlyHint", &abi.PolicyRequest{
			Server: "fs", Tool: "read_file", Name: "mcp__fs__read_file",
			Arguments:   map[string]any{"path": "README.md", "lines": []any{1.0, 20.5}, "opt": nil},
			Annotations: &abi.ToolAnnotations{ReadOnlyHint: true},
			Caller:      &abi.Caller{Kind: "gateway", ID: "alice"},
		}, abi.Allow},
		{"no annotations, no glob", &abi.PolicyRequest{
			Server: "fs", Tool: "write_file", Name: "mcp__fs__write_file",
		}, abi.Deny},
		{"glob of another server", &abi.PolicyRequest{
			Server: "gitlab", Tool: "list_issues", Name: "mcp__gitlab__list_issues",
			Annotations: &abi.ToolAnnotations{ReadOnlyHint: false},
		}, abi.Deny},
	}
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			d := e.start(t)
			for _, c := range cases {
				got, err := d.Decide(context.Background(), c.req)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if got != c.want {
					t.Errorf("%s: %s, want %s", c.name, got, c.want)
				}
			}
		})
	}
}

// TestSources logs what the engines run, for a reader of -v output.
func TestSources(t *testing.T) {
	c, err := NewCEL(AllowList)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("CEL:\n%s", c.Expr())
	ce, err := NewCedar(AllowList)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Cedar:\n%s", ce.Source())
	r, err := NewRego(context.Background(), AllowList)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Rego:\n%s", r.Source())
	s, err := NewShell(AllowList)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("shell hook:\n%s", s.Script())
}

// TestGlobsRefused: the glob syntax not every engine can read is refused
// by all.
func TestGlobsRefused(t *testing.T) {
	for _, allow := range []string{"fs:[ab]*", `fs:\*`} {
		if _, err := NewNative(allow); err == nil {
			t.Errorf("%q: no error", allow)
		}
	}
	if _, err := NewCedar("fs:read_?"); err == nil {
		t.Error("cedar: ? accepted")
	}
}

package pdk_test

// These tests build the Go example plugins and the PDK's test plugin to
// WebAssembly with the go command (once per test binary), and run them
// through mcphost's own plugin runtime (package plugins) with its real host
// functions: logs go to an hclog logger, secrets come from the entry, and
// mcphost_http makes real requests to a loopback test server.
//
//	go test ./pdk/
//	go test -run '^$' -bench PolicyCall ./pdk/
//
// Building the modules takes a few seconds, so `go test -short` skips them.
// Otherwise a failing build is a test failure.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mcphost/mcphost/internal/testenv"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// wasmModules maps a plugin's name to its package, relative to this
// directory.
var wasmModules = map[string]string{
	"deny-destructive": "../examples/plugins/deny-destructive",
	"header-auth":      "../examples/plugins/header-auth",
	"team-names":       "../examples/plugins/team-names",
	"testplugin":       "./internal/testplugin",
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error

	// wasmCache is one in-memory compilation cache for the test binary, so
	// that each module is compiled once however many times it is loaded.
	wasmCache *plugins.Cache
)

func TestMain(m *testing.M) {
	c, err := plugins.NewCache("")
	if err != nil {
		panic(err)
	}
	wasmCache = c
	code := m.Run()
	c.Close()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// skipShort skips the tests of this file under -short: they build the
// modules with the go command.
func skipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the plugins to WebAssembly with the go command (not in -short)")
	}
}

// wasm builds every module once and returns the path of name's.
func wasm(t testing.TB, name string) string {
	t.Helper()
	skipShort(t)
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "pdk-wasm-"); buildErr != nil {
			return
		}
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			errs []error
		)
		for n, pkg := range wasmModules {
			wg.Go(func() {
				cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false",
					"-o", filepath.Join(buildDir, n+".wasm"), pkg)
				cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
				if out, err := cmd.CombinedOutput(); err != nil {
					mu.Lock()
					errs = append(errs, &buildError{n, string(out), err})
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		buildErr = errors.Join(errs...)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return filepath.Join(buildDir, name+".wasm")
}

type buildError struct {
	name, out string
	err       error
}

func (e *buildError) Error() string {
	return "building " + e.name + ": " + e.err.Error() + "\n" + e.out
}

// load opens module name with the runtime as mcphost would (WASI, limits,
// host functions), its log captured; edit adjusts the entry first. The
// limits are generous unless edit says otherwise: a slow machine (or the
// race detector) must not hit them, they are not what is tested here.
func load(t testing.TB, name string, edit func(*plugins.Spec)) (*plugins.Plugin, *testenv.Buffer) {
	t.Helper()
	spec := plugins.SpecForFile(wasm(t, name))
	spec.Limits.Timeout = 10 * time.Second
	if edit != nil {
		edit(spec)
	}
	lb := &testenv.Buffer{}
	p, err := plugins.Open(context.Background(), spec, plugins.Options{
		Cache:  wasmCache,
		Logger: hclog.New(&hclog.LoggerOptions{Name: "mcphost", Level: hclog.Trace, Output: lb}),
	})
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p, lb
}

func withConfig(cfg map[string]string) func(*plugins.Spec) {
	return func(s *plugins.Spec) { s.Config = cfg }
}

// call runs hook through Invoke and returns the raw output. A failure must
// be an *plugins.Error of the plugin and hook, never an output as well.
func call(t testing.TB, p *plugins.Plugin, hook abi.Hook, input string) (string, *plugins.Error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := p.Invoke(ctx, hook, []byte(input))
	if err != nil {
		var e *plugins.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: error %T %v is not a *plugins.Error", hook, err, err)
		}
		if e.Plugin != p.Name() || e.Hook != hook {
			t.Fatalf("%s: error %q names plugin %q hook %q", hook, err, e.Plugin, e.Hook)
		}
		if res != nil && res.Output != nil {
			t.Fatalf("%s: error %v with output %q", hook, err, res.Output)
		}
		return "", e
	}
	return string(res.Output), nil
}

// TestExportsAreTheDescribedHooks checks the point of one package per hook:
// each module exports exactly mcphost_describe and its described hooks
// (and _initialize), and imports mcphost_http only if it makes HTTP
// requests.
func TestExportsAreTheDescribedHooks(t *testing.T) {
	skipShort(t)
	for name := range wasmModules {
		t.Run(name, func(t *testing.T) {
			// Compiling a module takes a while (seconds under -race);
			// the later tests find them in the cache.
			t.Parallel()
			p, _ := load(t, name, withConfig(map[string]string{"team": "t"}))
			d := p.Description()
			if d == nil || d.ABI != abi.Version || d.Name != name {
				t.Fatalf("describe = %+v", d)
			}
			want := []string{"_initialize", abi.ExportDescribe}
			for _, h := range d.Hooks {
				want = append(want, h.Export())
			}
			sort.Strings(want)

			info, err := plugins.Inspect(context.Background(), wasm(t, name), plugins.Options{Cache: wasmCache})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range info.Exports {
				if e.Kind == "func" {
					got = append(got, e.Name)
				}
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("exports %v, want %v", got, want)
			}
			importsHTTP := false
			for _, f := range info.Imports {
				if f.Module == abi.HostModule && f.Name == abi.FuncHTTP {
					importsHTTP = true
				}
			}
			if importsHTTP != (name == "testplugin") {
				t.Errorf("imports mcphost_http: %v", importsHTTP)
			}
		})
	}
}

func TestExamplesInWasm(t *testing.T) {
	skipShort(t)
	dd, _ := load(t, "deny-destructive", withConfig(map[string]string{"allow": "fs_del*"}))
	for in, want := range map[string]string{
		`{"server":"fs","tool":"write","name":"fs_write","arguments":{}}`:                                            `"decision":"deny"`,
		`{"server":"fs","tool":"delete","name":"fs_delete","arguments":{},"annotations":{"openWorldHint":false}}`:    `"decision":"allow"`,
		`{"server":"web","tool":"fetch","name":"web_fetch","arguments":{},"annotations":{"readOnlyHint":true}}`:      `"decision":"confirm"`,
		`{"server":"calc","tool":"add","name":"calc_add","annotations":{"readOnlyHint":true,"openWorldHint":false}}`: `"decision":"allow"`,
	} {
		if out, err := call(t, dd, abi.HookPolicy, in); err != nil || !strings.Contains(out, want) {
			t.Errorf("policy %s = %s, %v; want %s", in, out, err, want)
		}
	}

	ha, _ := load(t, "header-auth", func(s *plugins.Spec) { s.Secrets = plugins.Secrets{"token": "T0K"} })
	if out, err := call(t, ha, abi.HookAuth, `{"server":"api","url":"https://api.example/mcp"}`); err != nil ||
		out != `{"headers":{"Authorization":"Bearer T0K"}}` {
		t.Errorf("auth = %s, %v", out, err)
	}
	ha2, _ := load(t, "header-auth", nil)
	if _, err := call(t, ha2, abi.HookAuth, `{"server":"api","url":"https://api.example/mcp"}`); err == nil ||
		err.Kind != plugins.KindGuest || !strings.Contains(err.Msg, `secret "token" is not granted`) {
		t.Errorf("auth without the secret: %v", err)
	}

	tn, _ := load(t, "team-names", withConfig(map[string]string{"team": "blue"}))
	out, err := call(t, tn, abi.HookMapNames, `{"tools":[{"server":"gh","tool":"create.issue"},{"server":"gh","tool":"list"}],`+
		`"constraints":{"max_length":64,"pattern":"^[a-zA-Z0-9_-]{1,64}$"}}`)
	if err != nil || !strings.HasPrefix(out, `{"names":["blue_gh_create_issue","blue_gh_list"]}`) {
		t.Errorf("map_names = %s, %v", out, err)
	}
}

func TestPDKInWasm(t *testing.T) {
	skipShort(t)
	// A loopback server for mcphost_http that echoes the request body.
	var (
		hitsMu sync.Mutex
		hits   []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		hitsMu.Lock()
		hits = append(hits, r.Method+" "+r.URL.Path+" "+string(body))
		hitsMu.Unlock()
		w.Write(append([]byte("echo "), body...))
	}))
	defer srv.Close()
	served := func() []string {
		hitsMu.Lock()
		defer hitsMu.Unlock()
		return append([]string(nil), hits...)
	}

	p, logs := load(t, "testplugin", func(s *plugins.Spec) {
		s.Config = map[string]string{"k": "v", "empty": ""}
		s.Secrets = plugins.Secrets{"s": "S3"}
		s.AllowedHosts = []string{"127.0.0.1"}
		s.AllowPrivate = true
		s.Limits.MaxOutputBytes = 1 << 20 // the 100 KiB transform below
	})

	// The policy request as the guest decoded it, the tool's pin state
	// included.
	out, err := call(t, p, abi.HookPolicy, `{"server":"srv","tool":"x","name":"n","arguments":{"a":[1,"b",null]},"pin":"changed"}`)
	want := `{"decision":"allow","reason":"srv:x","arguments":{"echo":{"a":[1,"b",null]},"empty_ok":false,"k":"v","k_ok":true,` +
		`"not_granted_ok":false,"pin":"changed","s":"S3","s_ok":true}}`
	if err != nil || out != want {
		t.Fatalf("policy = %s, %v\nwant %s", out, err, want)
	}

	// A panic in a handler is a plugin error (pdk.Call recovers it), not a
	// trap. The runtime does not trust a Go guest that panicked with another
	// call: it throws the instance away, and the next call gets a fresh one
	// and works.
	before := p.Stats()
	if _, err := call(t, p, abi.HookPolicy, `{"tool":"panic"}`); err == nil || err.Kind != plugins.KindGuest ||
		!strings.HasPrefix(err.Msg, "pdk: panic in the policy hook") {
		t.Fatalf("panic: %v", err)
	}
	if st := p.Stats(); st.InstancesDiscarded != before.InstancesDiscarded+1 || st.Faults != before.Faults {
		t.Fatalf("after the panic: stats %+v, before %+v", st, before)
	}
	res, ierr := p.Invoke(context.Background(), abi.HookPolicy, []byte(`{"server":"srv","tool":"y"}`))
	if ierr != nil || !res.FreshInstance || !strings.Contains(string(res.Output), `"reason":"srv:y"`) {
		t.Fatalf("the call after the panic: %+v, %v", res, ierr)
	}

	// A guest error is the guest's message; the instance is kept.
	before = p.Stats()
	if _, err := call(t, p, abi.HookPolicy, `{"tool":"error"}`); err == nil || err.Kind != plugins.KindGuest ||
		err.Msg != "testplugin: asked to fail" || err.Error() != `plugins: plugin "testplugin": hook policy: testplugin: asked to fail` {
		t.Fatalf("error: %v", err)
	}
	if _, err := call(t, p, abi.HookPolicy, `{"tool":`); err == nil || err.Kind != plugins.KindGuest ||
		!strings.Contains(err.Msg, "decoding the policy input") {
		t.Fatalf("bad input: %v", err)
	}
	if st := p.Stats(); st.InstancesDiscarded != before.InstancesDiscarded || st.InstancesCreated != before.InstancesCreated {
		t.Fatalf("a guest error cost an instance: stats %+v, before %+v", st, before)
	}

	// A log line reaches the logger, tagged with the plugin and the hook.
	if _, err := call(t, p, abi.HookPolicy, `{"tool":"log","name":"N"}`); err != nil {
		t.Fatal(err)
	}
	var logged []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, "log for") {
			logged = append(logged, line)
		}
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "[WARN]  mcphost.testplugin: testplugin: log for N: hook=policy\n") {
		t.Fatalf("log lines %q; the whole log:\n%s", logged, logs)
	}

	if out, err := call(t, p, abi.HookAuth, `{"server":"s","url":"`+srv.URL+`/token"}`); err != nil ||
		out != `{"headers":{"X-Body":"echo ping","X-Status":"200"}}` {
		t.Fatalf("auth with HTTP = %s, %v", out, err)
	}
	if got := served(); len(got) != 1 || got[0] != "POST /token ping" {
		t.Fatalf("the server saw %q", got)
	}
	// The same server under a name that allowed_hosts does not list, and a
	// host elsewhere: refused before any request is made.
	u, _ := url.Parse(srv.URL)
	for _, refused := range []struct{ url, host string }{
		{"http://localhost:" + u.Port() + "/token", "localhost"},
		{"https://other.example/", "other.example"},
	} {
		if _, err := call(t, p, abi.HookAuth, `{"server":"s","url":"`+refused.url+`"}`); err == nil || err.Kind != plugins.KindGuest ||
			!strings.Contains(err.Msg, `host "`+refused.host+`" is not in allowed_hosts`) {
			t.Fatalf("refused HTTP to %s: %v", refused.url, err)
		}
	}
	if got := served(); len(got) != 1 {
		t.Fatalf("a refused request reached the server: %q", got)
	}

	// Sizes around every remainder of an 8-byte copy, and a large result.
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 100 << 10} {
		result := `{"content":[{"type":"text","text":"` + strings.Repeat("a", n) + `"}]}`
		out, err := call(t, p, abi.HookTransformResult, `{"server":"s","tool":"t","name":"n","result":`+result+`}`)
		if err != nil || out != `{"result":`+result+`}` {
			t.Fatalf("transform of %d bytes: %d bytes out, %v", n, len(out), err)
		}
	}
}

// BenchmarkPolicyCall is one policy call of a Go plugin through the runtime,
// under the default timeout (mcphost always sets one).
func BenchmarkPolicyCall(b *testing.B) {
	skipShort(b)
	in := []byte(`{"server":"fs","tool":"delete","name":"fs_delete","arguments":{"path":"/srv/x"},` +
		`"annotations":{"destructiveHint":true,"openWorldHint":false}}`)
	p, _ := load(b, "deny-destructive", func(s *plugins.Spec) {
		s.Config = map[string]string{"allow": "gh_*,fs_del*"}
		s.Limits.Timeout = plugins.DefaultLimits().Timeout
	})
	ctx := context.Background()
	for b.Loop() {
		if res, err := p.Invoke(ctx, abi.HookPolicy, in); err != nil || len(res.Output) == 0 {
			b.Fatal(err)
		}
	}
}

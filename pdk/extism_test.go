//go:build extism

// These tests build the Go example plugins and the PDK's test plugin to
// WebAssembly with the go command, and run them through Extism's Go SDK the
// way mcphost does (WASI on, a timeout, stub mcphost:host/v1 functions):
//
//	go test -tags extism ./pdk/
//	go test -tags extism -run '^$' -bench . ./pdk/
//
// They are behind a build tag because they need the go command, take a few
// seconds to compile the modules, and use github.com/extism/go-sdk, which
// the PDK itself must not depend on.
package pdk_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/mcphost/mcphost/pdk/abi"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// plugins maps a plugin's name to its package, relative to this directory.
var plugins = map[string]string{
	"deny-destructive": "../examples/plugins/deny-destructive",
	"header-auth":      "../examples/plugins/header-auth",
	"team-names":       "../examples/plugins/team-names",
	"testplugin":       "./internal/testplugin",
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// wasm builds every plugin once and returns the path of name's module.
func wasm(t testing.TB, name string) string {
	t.Helper()
	buildOnce.Do(func() {
		if buildDir, buildErr = os.MkdirTemp("", "pdk-wasm-"); buildErr != nil {
			return
		}
		for n, pkg := range plugins {
			cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false",
				"-o", filepath.Join(buildDir, n+".wasm"), pkg)
			cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = &buildError{n, string(out), err}
				return
			}
		}
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

// host is a stub of mcphost's host functions.
type host struct {
	secrets map[string]string
	mu      sync.Mutex
	logs    []string
}

func (h *host) functions() []extism.HostFunction {
	i32, i64 := extism.ValueTypeI32, extism.ValueTypeI64
	fns := []extism.HostFunction{
		extism.NewHostFunctionWithStack(abi.FuncLog, func(_ context.Context, p *extism.CurrentPlugin, stack []uint64) {
			msg, _ := p.ReadString(stack[1])
			p.Free(stack[1])
			h.mu.Lock()
			h.logs = append(h.logs, msg)
			h.mu.Unlock()
		}, []extism.ValueType{i32, i64}, nil),
		extism.NewHostFunctionWithStack(abi.FuncSecret, func(_ context.Context, p *extism.CurrentPlugin, stack []uint64) {
			name, _ := p.ReadString(stack[0])
			p.Free(stack[0])
			stack[0] = 0
			if v, ok := h.secrets[name]; ok {
				stack[0], _ = p.WriteString(v)
			}
		}, []extism.ValueType{i64}, []extism.ValueType{i64}),
		extism.NewHostFunctionWithStack(abi.FuncHTTP, func(_ context.Context, p *extism.CurrentPlugin, stack []uint64) {
			data, _ := p.ReadBytes(stack[0])
			p.Free(stack[0])
			var req abi.HTTPRequest
			resp := abi.HTTPResponse{Error: "bad request"}
			if json.Unmarshal(data, &req) == nil {
				if strings.HasPrefix(req.URL, "https://allowed.example/") {
					resp = abi.HTTPResponse{Status: 200, Body: append([]byte("echo "), req.Body...)}
				} else {
					resp = abi.HTTPResponse{Error: "host not allowed"}
				}
			}
			out, _ := json.Marshal(resp)
			stack[0], _ = p.WriteBytes(out)
		}, []extism.ValueType{i64}, []extism.ValueType{i64}),
	}
	for i := range fns {
		fns[i].SetNamespace(abi.HostModule)
	}
	return fns
}

func load(t testing.TB, name string, config map[string]string, h *host, timeoutMS uint64) *extism.Plugin {
	t.Helper()
	if h == nil {
		h = &host{}
	}
	m := extism.Manifest{
		Wasm:    []extism.Wasm{extism.WasmFile{Path: wasm(t, name)}},
		Config:  config,
		Timeout: timeoutMS,
		Memory:  &extism.ManifestMemory{MaxPages: 1024, MaxVarBytes: 1 << 20},
	}
	p, err := extism.NewPlugin(context.Background(), m, extism.PluginConfig{EnableWasi: true}, h.functions())
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func call(t testing.TB, p *extism.Plugin, export, input string) (string, error) {
	t.Helper()
	rc, out, err := p.Call(export, []byte(input))
	if err == nil && rc != 0 {
		t.Fatalf("%s: return code %d without an error", export, rc)
	}
	if err != nil && rc == 0 {
		t.Fatalf("%s: error %v with return code 0", export, err)
	}
	return string(out), err
}

// TestExportsAreTheDescribedHooks checks the point of one package per hook:
// each module exports exactly mcphost_describe and its described hooks, and
// imports mcphost_http only if it makes HTTP requests.
func TestExportsAreTheDescribedHooks(t *testing.T) {
	for name := range plugins {
		t.Run(name, func(t *testing.T) {
			p := load(t, name, map[string]string{"team": "t"}, nil, 1000)
			out, err := call(t, p, abi.ExportDescribe, "")
			if err != nil {
				t.Fatal(err)
			}
			var d abi.Description
			if err := json.Unmarshal([]byte(out), &d); err != nil || d.ABI != abi.Version || d.Name != name {
				t.Fatalf("describe = %s (%v)", out, err)
			}
			want := []string{"_initialize", abi.ExportDescribe}
			for _, h := range d.Hooks {
				want = append(want, h.Export())
			}
			sort.Strings(want)

			data, _ := os.ReadFile(wasm(t, name))
			rt := wazero.NewRuntime(context.Background())
			defer rt.Close(context.Background())
			cm, err := rt.CompileModule(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for e := range cm.ExportedFunctions() {
				got = append(got, e)
			}
			sort.Strings(got)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("exports %v, want %v", got, want)
			}
			importsHTTP := false
			for _, f := range cm.ImportedFunctions() {
				mod, fn, _ := f.Import()
				if mod == abi.HostModule && fn == abi.FuncHTTP {
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
	dd := load(t, "deny-destructive", map[string]string{"allow": "fs_del*"}, nil, 1000)
	for in, want := range map[string]string{
		`{"server":"fs","tool":"write","name":"fs_write","arguments":{}}`:                                            `"decision":"deny"`,
		`{"server":"fs","tool":"delete","name":"fs_delete","arguments":{},"annotations":{"openWorldHint":false}}`:    `"decision":"allow"`,
		`{"server":"web","tool":"fetch","name":"web_fetch","arguments":{},"annotations":{"readOnlyHint":true}}`:      `"decision":"confirm"`,
		`{"server":"calc","tool":"add","name":"calc_add","annotations":{"readOnlyHint":true,"openWorldHint":false}}`: `"decision":"allow"`,
	} {
		if out, err := call(t, dd, abi.ExportPolicy, in); err != nil || !strings.Contains(out, want) {
			t.Errorf("policy %s = %s, %v; want %s", in, out, err, want)
		}
	}

	ha := load(t, "header-auth", nil, &host{secrets: map[string]string{"token": "T0K"}}, 1000)
	if out, err := call(t, ha, abi.ExportAuth, `{"server":"api","url":"https://api.example/mcp"}`); err != nil ||
		out != `{"headers":{"Authorization":"Bearer T0K"}}` {
		t.Errorf("auth = %s, %v", out, err)
	}
	ha2 := load(t, "header-auth", nil, nil, 1000)
	if _, err := call(t, ha2, abi.ExportAuth, `{"server":"api","url":"https://api.example/mcp"}`); err == nil ||
		!strings.Contains(err.Error(), `secret "token" is not granted`) {
		t.Errorf("auth without the secret: %v", err)
	}

	tn := load(t, "team-names", map[string]string{"team": "blue"}, nil, 1000)
	out, err := call(t, tn, abi.ExportMapNames, `{"tools":[{"server":"gh","tool":"create.issue"},{"server":"gh","tool":"list"}],`+
		`"constraints":{"max_length":64,"pattern":"^[a-zA-Z0-9_-]{1,64}$"}}`)
	if err != nil || !strings.HasPrefix(out, `{"names":["blue_gh_create_issue","blue_gh_list"]}`) {
		t.Errorf("map_names = %s, %v", out, err)
	}
}

func TestPDKInWasm(t *testing.T) {
	h := &host{secrets: map[string]string{"s": "S3"}}
	p := load(t, "testplugin", map[string]string{"k": "v", "empty": ""}, h, 1000)

	out, err := call(t, p, abi.ExportPolicy, `{"server":"srv","tool":"x","name":"n","arguments":{"a":[1,"b",null]}}`)
	want := `{"decision":"allow","reason":"srv:x","arguments":{"echo":{"a":[1,"b",null]},"empty_ok":false,"k":"v","k_ok":true,` +
		`"not_granted_ok":false,"s":"S3","s_ok":true}}`
	if err != nil || out != want {
		t.Fatalf("policy = %s, %v\nwant %s", out, err, want)
	}

	// A panic is a plugin error, not a trap, and the instance keeps working.
	if _, err := call(t, p, abi.ExportPolicy, `{"tool":"panic"}`); err == nil || !strings.Contains(err.Error(), "panic in the policy hook") {
		t.Fatalf("panic: %v", err)
	}
	if _, err := call(t, p, abi.ExportPolicy, `{"tool":"error"}`); err == nil || err.Error() != "testplugin: asked to fail" {
		t.Fatalf("error: %v", err)
	}
	if _, err := call(t, p, abi.ExportPolicy, `{"tool":`); err == nil || !strings.Contains(err.Error(), "decoding the policy input") {
		t.Fatalf("bad input: %v", err)
	}
	if _, err := call(t, p, abi.ExportPolicy, `{"tool":"log","name":"N"}`); err != nil {
		t.Fatal(err)
	}
	if len(h.logs) != 1 || h.logs[0] != "testplugin: log for N" {
		t.Fatalf("logs = %q", h.logs)
	}

	if out, err := call(t, p, abi.ExportAuth, `{"server":"s","url":"https://allowed.example/token"}`); err != nil ||
		out != `{"headers":{"X-Body":"echo ping","X-Status":"200"}}` {
		t.Fatalf("auth with HTTP = %s, %v", out, err)
	}
	if _, err := call(t, p, abi.ExportAuth, `{"server":"s","url":"https://other.example/"}`); err == nil ||
		!strings.Contains(err.Error(), "host not allowed") {
		t.Fatalf("refused HTTP: %v", err)
	}

	// Every remainder of the 8-byte copy loops, and a large result.
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 100 << 10} {
		result := `{"content":[{"type":"text","text":"` + strings.Repeat("a", n) + `"}]}`
		out, err := call(t, p, abi.ExportTransformResult, `{"server":"s","tool":"t","name":"n","result":`+result+`}`)
		if err != nil || out != `{"result":`+result+`}` {
			t.Fatalf("transform of %d bytes: %d bytes out, %v", n, len(out), err)
		}
	}
}

func BenchmarkPolicyCall(b *testing.B) {
	in := []byte(`{"server":"fs","tool":"delete","name":"fs_delete","arguments":{"path":"/srv/x"},` +
		`"annotations":{"destructiveHint":true,"openWorldHint":false}}`)
	for _, timeout := range []uint64{0, 100} {
		name := "no-timeout"
		if timeout > 0 {
			name = "timeout-100ms"
		}
		b.Run(name, func(b *testing.B) {
			p := load(b, "deny-destructive", map[string]string{"allow": "gh_*,fs_del*"}, nil, timeout)
			for b.Loop() {
				if rc, _, err := p.Call(abi.ExportPolicy, in); rc != 0 || err != nil {
					b.Fatal(rc, err)
				}
			}
		})
	}
}

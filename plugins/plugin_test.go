package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcphost/mcphost/internal/testenv"
	"github.com/mcphost/mcphost/pdk/abi"
)

func fileHash(t testing.TB, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func TestOpenGoodPlugin(t *testing.T) {
	p := open(t, "allow-all", nil)
	d := p.Description()
	if d.ABI != 1 || d.Name != "allow-all" || d.Version != "1.0.0" || !reflect.DeepEqual(d.Hooks, []abi.Hook{abi.HookPolicy}) {
		t.Fatalf("description = %+v", d)
	}
	if !reflect.DeepEqual(p.Hooks(), []abi.Hook{abi.HookPolicy}) || p.Err() != nil {
		t.Fatalf("hooks %v err %v", p.Hooks(), p.Err())
	}
	if p.SHA256() != fileHash(t, fixture("allow-all")) || p.Size() == 0 || p.StageName() != "allow-all" {
		t.Fatalf("sha %s size %d", p.SHA256(), p.Size())
	}
	dec, err := p.Policy(ctx(t), shortReq)
	if err != nil || dec.Decision != abi.Allow {
		t.Fatalf("policy = %+v, %v", dec, err)
	}
	// One instance was made at load (describe) and serves the call.
	if s := p.Stats(); s.InstancesCreated != 1 || s.Calls != 1 || s.Idle != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestAllHooksAdapters(t *testing.T) {
	p := open(t, "all-hooks", nil)
	c := ctx(t)
	if want := []abi.Hook{abi.HookFilterTools, abi.HookMapNames, abi.HookPolicy, abi.HookTransformResult, abi.HookAuth}; !reflect.DeepEqual(p.Hooks(), want) {
		t.Fatalf("hooks = %v", p.Hooks())
	}
	f, err := p.FilterTools(c, &abi.FilterToolsRequest{Server: "s", Tools: []abi.ToolInfo{{Name: "a"}, {Name: "b"}}})
	if err != nil || len(f.Tools) != 0 {
		t.Fatalf("filter = %+v, %v", f, err)
	}
	m, err := p.MapNames(c, &abi.MapNamesRequest{
		Tools:       []abi.NameKey{{Server: "a", Tool: "x"}, {Server: "a", Tool: "y", Title: `say "server":`}, {Server: "b", Tool: "x"}},
		Constraints: abi.NameConstraints{MaxLength: 64, Pattern: "^[a-zA-Z0-9_-]{1,64}$"},
	})
	if err != nil || !reflect.DeepEqual(m.Names, []string{"t0", "t1", "t2"}) {
		t.Fatalf("names = %+v, %v", m, err)
	}
	tr, err := p.TransformResult(c, &abi.TransformResultRequest{Server: "s", Tool: "t", Result: json.RawMessage(`{"content":[]}`)})
	if err != nil || !strings.Contains(string(tr.Result), "transformed") {
		t.Fatalf("transform = %+v, %v", tr, err)
	}
	a, err := p.Auth(c, &abi.AuthRequest{Server: "s", URL: "https://x/mcp"})
	if err != nil || a.Headers["Authorization"] != "Bearer all-hooks" || a.ExpiresIn != 60 {
		t.Fatalf("auth = %+v, %v", a, err)
	}
}

// checksum is what all-hooks' policy puts in its reason for a request.
func checksum(t testing.TB, req *abi.PolicyRequest) string {
	data, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, c := range data {
		sum += int(c)
	}
	return fmt.Sprintf("%d:%d", len(data), sum)
}

// 64 concurrent calls through one plugin with a pool of 4: every caller gets
// the answer to its own request.
func TestConcurrentCallsUnmixed(t *testing.T) {
	s := spec("all-hooks", "all-hooks")
	// 64 goroutines on a small machine: a call may wait for a CPU longer
	// than the default 100 ms, which is not what this test is about.
	s.Limits.Timeout = 10 * time.Second
	opts, _ := testOptions(t)
	opts.PoolSize = 4
	p, err := Open(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	c := ctx(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req := &abi.PolicyRequest{Server: fmt.Sprintf("srv%d", i), Tool: "t", Name: "n",
				Arguments: map[string]any{"i": i, "pad": strings.Repeat("y", i*7)}}
			want := checksum(t, req)
			for range 5 {
				d, err := p.Policy(c, req)
				if err != nil {
					errs <- err
					return
				}
				if d.Reason != want {
					errs <- fmt.Errorf("call %d got reason %q, want %q", i, d.Reason, want)
					return
				}
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if st := p.Stats(); st.InstancesCreated > 4 || st.Calls != 320 || st.Failures != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// hostileCase is one way a plugin misbehaves: the error it must give, and
// that the host keeps serving afterwards.
func TestHostilePlugins(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		edit  func(*Spec)
		call  func(*Plugin) error
		kind  Kind
		parts []string
		// fault: the instance is thrown away, so the next call makes one.
		fault bool
	}{
		{
			name: "endless loop", file: "loop",
			edit:  func(s *Spec) { s.Limits.Timeout = 50 * time.Millisecond },
			call:  func(p *Plugin) error { _, err := p.Policy(context.Background(), longReq); return err },
			kind:  KindTimeout,
			parts: []string{`plugins: plugin "loop": hook policy: exceeded timeout_ms 50`},
			fault: true,
		},
		{
			// No loop: only a check at function entries stops it.
			name: "endless recursion", file: "recursion",
			edit:  func(s *Spec) { s.Limits.Timeout = 50 * time.Millisecond },
			call:  func(p *Plugin) error { _, err := p.Policy(context.Background(), longReq); return err },
			kind:  KindTimeout,
			parts: []string{`plugins: plugin "recursion": hook policy: exceeded timeout_ms 50`},
			fault: true,
		},
		{
			name: "memory bomb", file: "membomb",
			// A long timeout so that the cap, not the clock, stops it.
			edit:  func(s *Spec) { s.Limits.MemoryMB = 8; s.Limits.Timeout = 10 * time.Second },
			call:  func(p *Plugin) error { _, err := p.Policy(context.Background(), longReq); return err },
			kind:  KindMemory,
			parts: []string{`plugins: plugin "membomb": hook policy: exceeded memory_mb 8`},
			fault: true,
		},
		{
			name: "trap", file: "faults",
			call:  func(p *Plugin) error { _, err := p.Policy(context.Background(), longReq); return err },
			kind:  KindTrap,
			parts: []string{`plugins: plugin "faults": hook policy: trapped: wasm error: unreachable`},
			fault: true,
		},
		{
			name: "exit", file: "faults",
			call: func(p *Plugin) error {
				_, err := p.MapNames(context.Background(), &abi.MapNamesRequest{Tools: []abi.NameKey{{Server: "s", Tool: "t"}}})
				return err
			},
			kind:  KindExit,
			parts: []string{`hook map_names: exited (WASI proc_exit 0)`},
			fault: true,
		},
		{
			name: "guest error", file: "faults",
			call: func(p *Plugin) error {
				_, err := p.FilterTools(context.Background(), &abi.FilterToolsRequest{Server: "s"})
				return err
			},
			kind:  KindGuest,
			parts: []string{`plugins: plugin "faults": hook filter_tools: deliberate failure`},
		},
		{
			name: "recovered panic", file: "faults",
			call: func(p *Plugin) error {
				_, err := p.FilterTools(context.Background(), &abi.FilterToolsRequest{Server: strings.Repeat("s", 300)})
				return err
			},
			kind:  KindGuest,
			parts: []string{`plugins: plugin "faults": hook filter_tools: pdk: panic in the filter_tools hook: boom`},
			// Reported as the plugin's error, but the instance is not reused.
			fault: true,
		},
		{
			name: "output not JSON", file: "faults",
			call: func(p *Plugin) error {
				_, err := p.TransformResult(context.Background(), &abi.TransformResultRequest{Result: json.RawMessage(`{}`)})
				return err
			},
			kind:  KindOutput,
			parts: []string{`hook transform_result: invalid output`},
		},
		{
			name: "no output", file: "faults",
			call: func(p *Plugin) error {
				_, err := p.Auth(context.Background(), &abi.AuthRequest{Server: "s"})
				return err
			},
			kind:  KindOutput,
			parts: []string{`hook auth: empty output`},
		},
		{
			// A guest that recurses until its stack is exhausted: a
			// clean trap of this plugin (on_error then decides).
			name: "stack exhausted", file: "deep-stack",
			// A long timeout so that the stack, not the clock, stops it
			// (growing the stack to wazero's limit takes 30-300 ms).
			edit:  func(s *Spec) { s.Limits.Timeout = 10 * time.Second },
			call:  func(p *Plugin) error { _, err := p.Policy(context.Background(), shortReq); return err },
			kind:  KindTrap,
			parts: []string{`plugins: plugin "deep-stack": hook policy: trapped`, "stack"},
			fault: true,
		},
		{
			// error_set pointing at no block: the answer fails closed,
			// even with a return code of 0 and an "allow" output.
			name: "bad error_set pointer", file: "bad-answers",
			call:  func(p *Plugin) error { _, err := p.Policy(context.Background(), shortReq); return err },
			kind:  KindTrap,
			parts: []string{`plugins: plugin "bad-answers": hook policy`, "error_set"},
			fault: true,
		},
		{
			// An output too large to allocate is reported as over
			// max_output_bytes, not as the memory cap it also ran into.
			name: "huge output names the output cap", file: "bad-answers",
			call: func(p *Plugin) error {
				_, err := p.TransformResult(context.Background(), &abi.TransformResultRequest{Result: json.RawMessage(`{}`)})
				return err
			},
			kind:  KindOutput,
			parts: []string{`hook transform_result: output of 1073741824 bytes exceeds max_output_bytes`},
			fault: true,
		},
		{
			name: "output over max_output_bytes", file: "big-output",
			edit:  func(s *Spec) { s.Limits.MaxOutputBytes = 1024 },
			call:  func(p *Plugin) error { _, err := p.Policy(context.Background(), shortReq); return err },
			kind:  KindOutput,
			parts: []string{`plugins: plugin "big-output": hook policy: output of 65536 bytes exceeds max_output_bytes 1024`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := open(t, tc.file, tc.edit)
			good := open(t, "allow-all", nil)
			before := p.Stats()
			wantError(t, tc.call(p), tc.kind, tc.parts...)
			after := p.Stats()
			if tc.fault != (after.InstancesDiscarded == before.InstancesDiscarded+1) {
				t.Errorf("fault %v but discarded %d -> %d", tc.fault, before.InstancesDiscarded, after.InstancesDiscarded)
			}
			// The host keeps serving: a good plugin answers...
			if d, err := good.Policy(ctx(t), shortReq); err != nil || d.Decision != abi.Allow {
				t.Fatalf("good plugin after the fault: %+v, %v", d, err)
			}
			// ...and the same plugin's next call works, on a fresh instance
			// after a fault.
			if failsAgain := tc.file == "deep-stack" || tc.file == "bad-answers"; failsAgain {
				// Its next call fails the same way: on a fresh instance,
				// and the worker is not stuck.
				res, err := p.Invoke(ctx(t), abi.HookPolicy, mustJSON(t, shortReq))
				if err == nil || !res.FreshInstance {
					t.Errorf("next call: %v, fresh instance %v; want an error on a fresh instance", err, res.FreshInstance)
				}
			} else if p.Description() != nil && slices.Contains(p.Hooks(), abi.HookPolicy) && tc.file != "big-output" {
				res, err := p.Invoke(ctx(t), abi.HookPolicy, mustJSON(t, shortReq))
				if err != nil {
					t.Fatalf("next call: %v", err)
				}
				if res.FreshInstance != tc.fault {
					t.Errorf("next call on a fresh instance: %v, want %v", res.FreshInstance, tc.fault)
				}
			}
			if tc.fault && p.Stats().InstancesCreated != before.InstancesCreated+1 {
				t.Errorf("instances created %d -> %d", before.InstancesCreated, p.Stats().InstancesCreated)
			}
		})
	}
}

func mustJSON(t testing.TB, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Plugins that must not load: each error names the plugin and the problem.
func TestRefusedPlugins(t *testing.T) {
	cases := []struct {
		file  string
		edit  func(*Spec)
		parts []string
	}{
		{"start-trap", nil, []string{"start-trap.wasm: first instance: instantiating: start function", "unreachable"}},
		{"init-trap", nil, []string{"first instance: mcphost_describe: trapped: initialising (_initialize)", "unreachable"}},
		{"missing-export", nil, []string{"describes hook policy but does not export mcphost_policy_v1"}},
		{"abi2", nil, []string{"abi2.wasm: ABI version 2 is not supported"}},
		{"bad-describe", nil, []string{`mcphost_describe lists hook "teleport"`}},
		{"no-describe", nil, []string{"no-describe.wasm: no mcphost_describe export"}},
		{"http-import", nil, []string{"imports mcphost_http, which only auth plugins are given"}},
		{"allow-all", func(s *Spec) { s.Hooks = []abi.Hook{abi.HookAuth} }, []string{"does not export mcphost_auth_v1, but the configuration lists hook auth"}},
		{"all-hooks", func(s *Spec) { s.OnError = OnErrorFallback }, []string{"on_error fallback is only for map_names"}},
		{"allow-all", func(s *Spec) { s.AllowedHosts = []string{"x.example"} }, []string{"allowed_hosts is set but the plugin has no auth hook"}},
		{"allow-all", func(s *Spec) { s.SHA256 = strings.Repeat("ab", 32) }, []string{"sha256 mismatch", "pins " + strings.Repeat("ab", 32), "allow-all.wasm"}},
		{"allow-all", func(s *Spec) { s.Path = filepath.Join(fixtureDir, "nope.wasm") }, []string{"nope.wasm", "no such file"}},
		{"allow-all", func(s *Spec) { s.Path = fixtureDir }, []string{"is a directory"}},
		{"allow-all", func(s *Spec) { s.Path = filepath.Join(fixtureDir, "loop.wat") }, []string{"loop.wat: not a WebAssembly module"}},
		{"allow-all", func(s *Spec) { s.Untrusted = true }, []string{"has not been trusted"}},
		{"allow-all", func(s *Spec) { s.Err = fmt.Errorf("config: f.yaml: plugin \"x\": limits: bad") }, []string{"invalid configuration: config: f.yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.file+"/"+strings.Join(tc.parts, " "), func(t *testing.T) {
			s := spec("p-"+tc.file, tc.file)
			if tc.edit != nil {
				tc.edit(s)
			}
			opts, _ := testOptions(t)
			p, err := Open(ctx(t), s, opts)
			if p != nil {
				t.Fatal("Open returned a plugin with an error")
			}
			wantError(t, err, KindLoad, append([]string{`plugins: plugin "p-` + tc.file + `": `}, tc.parts...)...)
		})
	}
	// The actual hash is named too, and a pin is checked before the
	// content: a file that is not even wasm reports the mismatch.
	s := spec("pinned", "allow-all")
	s.Path = filepath.Join(fixtureDir, "loop.wat")
	s.SHA256 = strings.Repeat("0", 64)
	opts, _ := testOptions(t)
	_, err := Open(ctx(t), s, opts)
	wantError(t, err, KindLoad, "sha256 mismatch", "the file's is "+fileHash(t, s.Path))
	// The right pin loads.
	open(t, "allow-all", func(s *Spec) { s.SHA256 = strings.ToUpper(fileHash(t, fixture("allow-all"))) })
}

// The guest gets no files, environment, arguments or sockets, a fake clock
// and deterministic randomness.
func TestSandbox(t *testing.T) {
	first := func() map[string]int64 {
		p := open(t, "sandbox", nil)
		d, err := p.Policy(ctx(t), shortReq)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, f := range strings.Fields(d.Reason) {
			k, v, _ := strings.Cut(f, "=")
			var n int64
			fmt.Sscan(v, &n)
			got[k] = n
		}
		return got
	}
	got := first()
	t.Logf("sandbox: %v", got)
	for _, k := range []string{"prestat", "open", "sock"} {
		if got[k] == 0 {
			t.Errorf("%s succeeded (errno 0)", k)
		}
	}
	if got["environ"] != 0 || got["args"] != 0 {
		t.Errorf("environment %d variables, %d arguments", got["environ"], got["args"])
	}
	if now := time.Now().Unix(); got["clock"] > now-86400 {
		t.Errorf("the guest sees the real time (%d)", got["clock"])
	}
	if again := first(); again["random"] != got["random"] {
		t.Errorf("random source not deterministic: %d then %d", got["random"], again["random"])
	}
}

// Extism's own http_request is not usable: a call of it fails the hook (a
// trap), reaches nothing, and the plugin keeps serving.
func TestExtismHTTPRequestRefused(t *testing.T) {
	var hits sync.Map
	srv := newCountingServer(t, &hits, "target")
	p := open(t, "sandbox", func(s *Spec) {
		s.Config = map[string]string{"url": srv.URL + "/steal"}
		// Even an allow list and allow_private must not open it up.
		s.AllowPrivate = true
	})
	_, err := p.FilterTools(ctx(t), &abi.FilterToolsRequest{Server: "s"})
	wantError(t, err, KindTrap, `plugin "sandbox": hook filter_tools: trapped: Extism's http_request is not available`, "mcphost_http")
	if n := count(&hits, "target"); n != 0 {
		t.Fatalf("the server got %d requests", n)
	}
	if _, err := p.Policy(ctx(t), shortReq); err != nil {
		t.Fatalf("next call: %v", err)
	}
}

func TestCallerContext(t *testing.T) {
	p := open(t, "loop", func(s *Spec) { s.Limits.Timeout = 10 * time.Second })
	// The caller's deadline, not timeout_ms, ends the call: canceled.
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Policy(c, longReq)
	wantError(t, err, KindCanceled, "canceled")
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %s", d)
	}
	// An already-done context does not touch (and so not kill) an instance.
	before := p.Stats()
	_, err = p.Policy(c, shortReq)
	wantError(t, err, KindCanceled)
	if after := p.Stats(); after.InstancesDiscarded != before.InstancesDiscarded || after.Idle != before.Idle {
		t.Fatalf("stats %+v -> %+v", before, after)
	}
}

// A call waits for a free instance with its context.
func TestPoolWaitsWithContext(t *testing.T) {
	s := spec("loop", "loop")
	s.Limits.Timeout = 2 * time.Second
	opts, _ := testOptions(t)
	opts.PoolSize = 1
	p, err := Open(ctx(t), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	busy := make(chan error)
	go func() { _, err := p.Policy(context.Background(), longReq); busy <- err }()
	// Wait until the looping call holds the only instance.
	deadline := time.Now().Add(30 * time.Second)
	for st := p.Stats(); st.Calls < 1 || st.InstancesCreated < 1 || st.Idle != 0; st = p.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("the first call never took the instance: %+v", st)
		}
		runtime.Gosched()
	}
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = p.Policy(c, shortReq)
	wantError(t, err, KindCanceled, "waiting for a free instance")
	wantError(t, <-busy, KindTimeout, "exceeded timeout_ms 2000")
	if _, err := p.Policy(ctx(t), shortReq); err != nil {
		t.Fatal(err)
	}
}

func TestInputTooLarge(t *testing.T) {
	p := open(t, "allow-all", func(s *Spec) { s.Limits.MemoryMB = 1 })
	req := &abi.PolicyRequest{Server: "s", Arguments: map[string]any{"big": strings.Repeat("x", 600<<10)}}
	_, err := p.Policy(ctx(t), req)
	wantError(t, err, KindInput, "too large for memory_mb 1")
}

func TestClose(t *testing.T) {
	p := open(t, "allow-all", nil)
	if err := p.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	_, err := p.Policy(ctx(t), shortReq)
	wantError(t, err, KindClosed, `plugin "allow-all": hook policy: closed`)
	if err := p.Close(ctx(t)); err != nil {
		t.Fatalf("second close: %v", err)
	}
}

func TestHookNotLoaded(t *testing.T) {
	a := open(t, "allow-all", nil)
	_, err := a.FilterTools(ctx(t), &abi.FilterToolsRequest{})
	wantError(t, err, KindLoad, `plugin "allow-all": hook filter_tools: the plugin is not loaded for this hook (its hooks: policy)`)
}

func TestCacheDirIsUsed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	p, err := Open(ctx(t), spec("a", "allow-all"), Options{CacheDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p.Close(ctx(t))
	var files int
	filepath.Walk(dir, func(_ string, info os.FileInfo, _ error) error {
		if info != nil && !info.IsDir() {
			files++
		}
		return nil
	})
	if files == 0 {
		t.Fatal("nothing written to the cache directory")
	}
	// An unusable directory falls back to memory, with a warning.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	lb := &testenv.Buffer{}
	opts, _ := testOptions(t)
	opts.Cache, opts.CacheDir = nil, filepath.Join(blocker, "sub")
	opts.Logger = newLogger(lb)
	p, err = Open(ctx(t), spec("a", "allow-all"), opts)
	if err != nil {
		t.Fatal(err)
	}
	p.Close(ctx(t))
	if !strings.Contains(lb.String(), "without an on-disk cache") {
		t.Fatalf("no warning: %s", lb)
	}
}

func TestInspect(t *testing.T) {
	opts, _ := testOptions(t)
	info, err := Inspect(ctx(t), fixture("probe"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if info.Err != nil || info.Description == nil || info.Description.Name != "probe" || info.SHA256 != fileHash(t, fixture("probe")) {
		t.Fatalf("info = %+v", info)
	}
	if !reflect.DeepEqual(info.Hooks, []abi.Hook{abi.HookFilterTools, abi.HookPolicy, abi.HookAuth}) {
		t.Fatalf("hooks = %v", info.Hooks)
	}
	var imports []string
	for _, i := range info.Imports {
		imports = append(imports, i.Module+" "+i.Name+" "+i.Type.String())
	}
	if !contains(imports, "mcphost:host/v1 mcphost_http func(i64) i64") || !contains(imports, "extism:host/env alloc func(i64) i64") {
		t.Fatalf("imports = %v", imports)
	}
	var exports []string
	for _, e := range info.Exports {
		exports = append(exports, e.Name+" "+e.Kind+" "+e.Type.String())
	}
	if !contains(exports, "mcphost_describe func func() i32") || !contains(exports, "memory memory func(?)") {
		t.Fatalf("exports = %v", exports)
	}
	// A plugin that would be refused is still inspected.
	info, err = Inspect(ctx(t), fixture("abi2"), opts)
	if err != nil || info.Err == nil || !strings.Contains(info.Err.Error(), "ABI version 2") || len(info.Exports) == 0 {
		t.Fatalf("abi2: %+v %v", info, err)
	}
	if _, err := Inspect(ctx(t), filepath.Join(fixtureDir, "loop.wat"), opts); err == nil {
		t.Fatal("inspected a text file")
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func TestSpecForFileAndInvoke(t *testing.T) {
	opts, _ := testOptions(t)
	s := SpecForFile(fixture("all-hooks"))
	if s.Name != "all-hooks" || !filepath.IsAbs(s.Path) {
		t.Fatalf("spec %+v", s)
	}
	p, err := Open(ctx(t), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	res, err := p.Invoke(ctx(t), abi.HookPolicy, []byte(`{"server":"s"}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Output) != `{"decision":"allow","reason":"14:1220"}` || res.Duration <= 0 || res.MemoryBytes != 2*65536 || res.KernelMemoryBytes == 0 {
		t.Fatalf("result %+v %s", res, res.Output)
	}
	v, err := DecodeOutput(abi.HookPolicy, res.Output)
	if err != nil || v.(*abi.PolicyDecision).Decision != abi.Allow {
		t.Fatalf("decode %v %v", v, err)
	}
	if _, err := p.Invoke(ctx(t), "nope", nil); err == nil {
		t.Fatal("unknown hook called")
	}
}

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

func init() {
	// One in-memory compilation cache for the whole test binary: nothing is
	// written to the user's cache directory, and each fixture compiles once.
	c, err := plugins.NewCache("")
	if err != nil {
		panic(err)
	}
	pluginCache = c
}

// fixture is the path of a plugin in testdata/plugins.
func fixture(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "testdata", "plugins", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// policyInput is a typical policy request; hostileInput is one over 256
// bytes, which makes the hostile fixtures misbehave.
const policyInput = `{"server":"github","tool":"create_issue","name":"github_create_issue","arguments":{"title":"hi"}}`

var hostileInput = `{"server":"github","tool":"create_issue","name":"github_create_issue","arguments":{"pad":"` + strings.Repeat("x", 300) + `"}}`

// roomy is a --timeout-ms for calls that must succeed: far above what
// they take, so that a loaded machine cannot fail them.
const roomy = "30000"

func inputFile(t *testing.T, content string) string {
	t.Helper()
	return writeFile(t, filepath.Join(t.TempDir(), "input.json"), content)
}

func TestPluginInspect(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := fixture(t, "allow-all.wasm")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])

	r := e.must(exitOK, "plugin", "inspect", path)
	wantContains(t, "inspect", r.stdout,
		"path", path, "size", "sha256    "+want,
		"name      allow-all", "version   1.0.0", "abi       1",
		"hooks     policy (described)", "exported  policy (mcphost_policy_v1)",
		"load      ok",
		"exports (3):", "mcphost_describe", "func() i32", "memory",
		"imports (4):", "extism:host/env.alloc", "func(i64) i64", "extism:host/env.output_set",
	)
	if r.stderr != "" {
		t.Errorf("stderr:\n%s", r)
	}

	r = e.must(exitOK, "plugin", "inspect", path, "--json")
	var rep struct {
		Path     string `json:"path"`
		Size     int64  `json:"size"`
		SHA256   string `json:"sha256"`
		Describe *struct {
			Name    string     `json:"name"`
			Version string     `json:"version"`
			ABI     int        `json:"abi"`
			Hooks   []abi.Hook `json:"hooks"`
		} `json:"describe"`
		Hooks   []abi.Hook `json:"hooks"`
		Exports []struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
		} `json:"exports"`
		Imports []struct {
			Module string `json:"module"`
			Name   string `json:"name"`
		} `json:"imports"`
		Load struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		} `json:"load"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r)
	}
	if rep.SHA256 != want || rep.Size != int64(len(data)) || rep.Path != path {
		t.Errorf("path, size, sha256 = %q %d %q; want %q %d %q", rep.Path, rep.Size, rep.SHA256, path, len(data), want)
	}
	if d := rep.Describe; d == nil || d.Name != "allow-all" || d.Version != "1.0.0" || d.ABI != abi.Version ||
		len(d.Hooks) != 1 || d.Hooks[0] != abi.HookPolicy {
		t.Errorf("describe = %+v", rep.Describe)
	}
	if len(rep.Hooks) != 1 || rep.Hooks[0] != abi.HookPolicy {
		t.Errorf("hooks = %v", rep.Hooks)
	}
	if len(rep.Exports) != 3 || len(rep.Imports) != 4 || rep.Imports[0].Module != "extism:host/env" {
		t.Errorf("exports %v, imports %v", rep.Exports, rep.Imports)
	}
	if !rep.Load.OK || rep.Load.Error != "" {
		t.Errorf("load = %+v", rep.Load)
	}
}

func TestPluginInspectRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		file, reason string
	}{
		{"abi2.wasm", "ABI version 2 is not supported"},
		{"no-describe.wasm", "no mcphost_describe export"},
		{"missing-export.wasm", "does not export mcphost_policy_v1"},
		{"http-import.wasm", "mcphost_http"},
		{"init-trap.wasm", "first instance"},
	} {
		path := fixture(t, tc.file)
		r := e.must(exitFailure, "plugin", "inspect", path)
		wantContains(t, "stdout of inspect "+tc.file, r.stdout, "sha256", "load      refused: ", tc.reason, "exports (")
		wantContains(t, "stderr of inspect "+tc.file, r.stderr, path+" would be refused at load", tc.reason)

		r = e.must(exitFailure, "plugin", "inspect", path, "--json")
		rep := decodeJSON[map[string]any](t, r)
		load, _ := rep["load"].(map[string]any)
		if load["ok"] != false || !strings.Contains(load["error"].(string), tc.reason) {
			t.Errorf("%s: load = %v", tc.file, load)
		}
		if _, ok := rep["describe"]; ok {
			t.Errorf("%s: a describe for a plugin that does not load: %v", tc.file, rep["describe"])
		}
	}

	// A file that is not WebAssembly would be refused too.
	notWasm := writeFile(t, filepath.Join(t.TempDir(), "notes.wasm"), "hello")
	r := e.must(exitFailure, "plugin", "inspect", notWasm)
	wantContains(t, "stderr", r.stderr, "not a WebAssembly module")

	// No such file, or a directory: usage errors.
	r = e.must(exitUsage, "plugin", "inspect", filepath.Join(t.TempDir(), "missing.wasm"))
	wantContains(t, "stderr", r.stderr, "missing.wasm: no such file")
	r = e.must(exitUsage, "plugin", "inspect", t.TempDir())
	wantContains(t, "stderr", r.stderr, "is a directory")
}

func TestPluginBench(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := fixture(t, "allow-all.wasm")
	in := inputFile(t, policyInput)

	r := e.must(exitOK, "plugin", "bench", path, "--hook", "policy", "--input", in, "--n", "50", "--timeout-ms", roomy)
	wantContains(t, "bench", r.stdout,
		"plugin     allow-all", "hook       policy", "calls      50 in ", "concurrency 1", "warm-up calls",
		"errors     0\n", "calls/s    ", "median     ", "p90        ", "p99        ", "max        ",
		"instances  1 created, 0 discarded")
	for _, field := range []string{"calls/s", "median", "p90", "p99", "max"} {
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(line, field+" ") && len(strings.Fields(line)) != 2 {
				t.Errorf("line %q: want %s and one value", line, field)
			}
		}
	}

	r = e.must(exitOK, "plugin", "bench", path, "--hook", "policy", "--input", in, "--n", "50", "--concurrency", "4", "--timeout-ms", roomy, "--json")
	var rep struct {
		Calls       int     `json:"calls"`
		Errors      int     `json:"errors"`
		Concurrency int     `json:"concurrency"`
		CallsPerSec float64 `json:"calls_per_sec"`
		MedianNS    int64   `json:"median_ns"`
		P90NS       int64   `json:"p90_ns"`
		P99NS       int64   `json:"p99_ns"`
		MaxNS       int64   `json:"max_ns"`
		Instances   int64   `json:"instances_created"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r)
	}
	if rep.Calls != 50 || rep.Errors != 0 || rep.Concurrency != 4 || rep.CallsPerSec <= 0 {
		t.Errorf("report: %+v", rep)
	}
	if !(0 < rep.MedianNS && rep.MedianNS <= rep.P90NS && rep.P90NS <= rep.P99NS && rep.P99NS <= rep.MaxNS) {
		t.Errorf("percentiles out of order: %+v", rep)
	}
	if rep.Instances < 1 || rep.Instances > 4 {
		t.Errorf("instances created = %d, want 1 to 4 (one per caller at most)", rep.Instances)
	}

	// A first call that fails: nothing to measure.
	r = e.must(exitFailure, "plugin", "bench", fixture(t, "faults.wasm"), "--hook", "filter_tools",
		"--input", `{"server":"s","tools":[]}`, "--n", "5", "--timeout-ms", roomy)
	wantContains(t, "stderr", r.stderr, "the first call failed", "deliberate failure", "mcphost plugin test")
}

func TestPluginUsageErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := fixture(t, "allow-all.wasm")
	in := inputFile(t, policyInput)
	notJSON := inputFile(t, "decision: allow")
	test := func(args ...string) []string { return append([]string{"plugin", "test", path}, args...) }
	bench := func(args ...string) []string { return append([]string{"plugin", "bench", path}, args...) }
	wantUsageErrors(t, e, []usageCase{
		{test("--hook", "teleport", "--input", in), []string{`--hook "teleport": not a hook of ABI v1`, "policy, transform_result"}},
		{test("--hook", "auth", "--input", in), []string{"--hook auth: plugin allow-all has no auth hook (it describes policy): use --hook policy"}},
		{[]string{"plugin", "test", fixture(t, "all-hooks.wasm"), "--input", in}, []string{"--hook is required: the plugin has 5 hooks (filter_tools, map_names, policy, transform_result, auth): give one of --hook filter_tools, --hook map_names, --hook policy"}},
		{test("--hook", "policy"), []string{"--input is required", "- for standard input"}},
		{test("--hook", "policy", "--input", in, "--config", "novalue"), []string{`--config: an entry has no "="`, "KEY=VALUE"}},
		{test("--hook", "policy", "--input", in, "--config", "=v"), []string{`--config: an entry has no name before "="`}},
		{test("--hook", "policy", "--input", in, "--timeout-ms", "0"), []string{"--timeout-ms 0", "1 to 60000"}},
		{test("--hook", "policy", "--input", in, "--memory-mb", "9999"), []string{"--memory-mb 9999", "1 to 4096"}},
		{test("--hook", "policy", "--input", filepath.Join(t.TempDir(), "nope.json")), []string{"nope.json: no such file"}},
		{test("--hook", "policy", "--input", notJSON), []string{"input.json: not JSON"}},
		{test("--hook", "policy", "--input", "{oops"), []string{"--input: not JSON"}},
		{test("--hook", "policy", "--input", in, "--secret", "token"), []string{`--secret "token": write NAME=ENVVAR`}},
		{test("--hook", "policy", "--input", in, "--secret", "token=UNSET_VAR"), []string{"UNSET_VAR is not set", "export it"}},
		{test("--hook", "policy", "--input", in, "--secret", "token=not a var"), []string{"not an environment variable name"}},
		{test("--hook", "policy", "--input", in, "--timeout-ms", "soon"), []string{"--timeout-ms", "mcphost plugin test --help"}},
		{test("--hook", "policy", "--input", in, "--allowed-host", "auth.example.com"), []string{"--allowed-host: plugin allow-all has no auth hook (it describes policy)", "only auth plugins may make HTTP requests", "drop --allowed-host"}},
		{test("--hook", "auth", "--input", in, "--allowed-host", "auth.example.com"), []string{"--hook auth: plugin allow-all has no auth hook (it describes policy): use --hook policy"}},
		{test("--hook", "policy", "--input", in, "--allowed-host", "127.0.0.1:8080"), []string{`--allowed-host "127.0.0.1:8080": not a host-name glob`, "no scheme, port or path", "--allowed-host 127.0.0.1 (it may be reached on any port)"}},
		{test("--hook", "policy", "--input", in, "--allowed-host", "https://login.example.com/token"), []string{`--allowed-host "https://login.example.com/token"`, "--allowed-host login.example.com"}},
		{test("--hook", "policy", "--input", in, "--allowed-host", "a.example.com,b.example.com"), []string{"one host per --allowed-host"}},
		{test("--hook", "policy", "--input", in, "--allowed-host", " "), []string{`--allowed-host " ": not a host-name glob`}},
		{test("--hook", "policy", "--input", in, "--allowed-host", "[a-"), []string{`--allowed-host "[a-": not a host-name glob`}},
		{test("--hook", "policy", "--input", in, "--allow-private=maybe"), []string{"--allow-private"}},
		{[]string{"plugin", "test", filepath.Join(t.TempDir(), "gone.wasm"), "--hook", "policy", "--input", in}, []string{"gone.wasm: no such file"}},
		{[]string{"plugin", "test"}, []string{"accepts 1 arg(s)"}},
		{[]string{"plugin", "inspect"}, []string{"accepts 1 arg(s)"}},
		{[]string{"plugin", "bogus"}, []string{`unknown command "bogus" for "mcphost plugin"`}},
		{bench("--hook", "policy", "--input", in, "--n", "0"), []string{"--n 0"}},
		{bench("--hook", "policy", "--input", in, "--concurrency", "0"), []string{"--concurrency 0", "1 to 256"}},
		{bench("--hook", "policy", "--input", in, "--n", "10", "--duration", "1s"), []string{"--n and --duration: give one of them"}},
		{bench("--hook", "policy", "--input", in, "--duration", "-1s"), []string{"--duration -1s"}},
		{bench("--hook", "nope", "--input", in), []string{`--hook "nope"`}},
		{bench("--hook", "policy"), []string{"--input is required"}},
		{bench("--hook", "policy", "--input", in, "--n", "5", "--allowed-host", "auth.example.com", "--allow-private"), []string{"--allowed-host: plugin allow-all has no auth hook"}},
		{bench("--hook", "policy", "--input", in, "--allowed-host", "auth.example.com:443"), []string{"--allowed-host auth.example.com"}},
	})
}

func TestPluginHelp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must(exitOK, "plugin", "--help")
	wantContains(t, "plugin help", r.stdout, "add", "list", "remove", "inspect", "test", "bench", "mcphost plugin inspect policy.wasm")
	r = e.must(exitOK, "plugin")
	wantContains(t, "plugin", r.stdout, "Available Commands:")
	r = e.must(exitOK, "plugin", "test", "--help")
	wantContains(t, "plugin test help", r.stdout, "--hook", "--input", "--config", "--secret", "--allowed-host", "--allow-private", "--timeout-ms", "--memory-mb", "--json",
		"Exit status", "mcphost plugin test deny-destructive.wasm --hook policy", `"destructiveHint":true`, "not a config",
		"--timeout-ms int             limits.timeout_ms: wall-clock time of one call, 1 to 60000 (default 100)",
		"(default 64)")
	r = e.must(exitOK, "plugin", "bench", "--help")
	wantContains(t, "plugin bench help", r.stdout, "--n int", "--concurrency", "--duration", "p99", "--allowed-host", "--allow-private", "Exit status")
	r = e.must(exitOK, "plugin", "inspect", "--help")
	wantContains(t, "plugin inspect help", r.stdout, "sha256", "--json", "Exit status")
}

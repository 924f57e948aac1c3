package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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

func TestPluginTestPolicy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := fixture(t, "allow-all.wasm")
	in := inputFile(t, policyInput)

	r := e.must(exitOK, "plugin", "test", path, "--hook", "policy", "--input", in, "--config", "allow=fs:read_*", "--config", "mode=strict", "--timeout-ms", roomy)
	wantContains(t, "test", r.stdout, "{\n  \"decision\": \"allow\"\n}\n",
		"plugin    allow-all", "hook      policy", "valid     yes: decision allow",
		"duration  ", "memory    ", "guest", "kernel", "a fresh instance",
		"limits    timeout_ms 30000, memory_mb 64, max_output_bytes 1048576")
	wantNotContains(t, "stderr", r.stderr, "mcphost:", "warning")

	// --json, with the input from standard input and other limits.
	r = e.runStdin(policyInput, "plugin", "test", path, "--hook", "policy", "--input", "-", "--timeout-ms", "25000", "--memory-mb", "8", "--json")
	if r.code != exitOK {
		t.Fatalf("want exit 0:\n%s", r)
	}
	var rep struct {
		Plugin        string          `json:"plugin"`
		Hook          abi.Hook        `json:"hook"`
		OK            bool            `json:"ok"`
		Output        json.RawMessage `json:"output"`
		Valid         bool            `json:"valid"`
		Summary       string          `json:"summary"`
		DurationNS    int64           `json:"duration_ns"`
		MemoryBytes   uint64          `json:"memory_bytes"`
		KernelBytes   uint64          `json:"kernel_memory_bytes"`
		FreshInstance bool            `json:"fresh_instance"`
		Limits        struct {
			TimeoutMS int64 `json:"timeout_ms"`
			MemoryMB  int   `json:"memory_mb"`
		} `json:"limits"`
		Error any `json:"error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r)
	}
	if !rep.OK || !rep.Valid || rep.Error != nil || rep.Plugin != "allow-all" || rep.Hook != abi.HookPolicy {
		t.Errorf("report: %+v", rep)
	}
	v, err := plugins.DecodeOutput(abi.HookPolicy, rep.Output)
	if err != nil {
		t.Fatalf("output %s does not decode: %v", rep.Output, err)
	}
	if d := v.(*abi.PolicyDecision); d.Decision != abi.Allow {
		t.Errorf("decision = %q", d.Decision)
	}
	if rep.DurationNS <= 0 || rep.MemoryBytes == 0 || rep.KernelBytes == 0 || !rep.FreshInstance {
		t.Errorf("measurements: %+v", rep)
	}
	if rep.Limits.TimeoutMS != 25000 || rep.Limits.MemoryMB != 8 {
		t.Errorf("limits: %+v", rep.Limits)
	}

	// Inline JSON; a request with a misspelt field gets a warning, and the
	// call still runs.
	r = e.must(exitOK, "plugin", "test", path, "--hook", "policy", "--input", `{"server":"a","tol":"b"}`, "--timeout-ms", roomy)
	wantContains(t, "stderr", r.stderr, "warning: --input does not decode as a policy request", `unknown field "tol"`)
}

func TestPluginTestOtherHooks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := fixture(t, "all-hooks.wasm")
	for _, tc := range []struct {
		hook, input, want string
	}{
		{"filter_tools", `{"server":"s","tools":[{"name":"a"}]}`, "valid     yes: keeps no tool"},
		{"map_names", `{"tools":[{"server":"s","tool":"a"},{"server":"s","tool":"b"}],"constraints":{"max_length":64,"pattern":"^.*$"}}`, "valid     yes: 2 name(s): t0, t1"},
		{"transform_result", `{"server":"s","tool":"t","name":"s_t","result":{"content":[]}}`, "valid     yes: a CallToolResult of"},
	} {
		r := e.must(exitOK, "plugin", "test", path, "--hook", tc.hook, "--input", tc.input, "--timeout-ms", roomy)
		wantContains(t, "test "+tc.hook, r.stdout, tc.want)
	}

	// An auth answer's header values are credentials: redacted unless asked.
	auth := `{"server":"s","url":"https://mcp.example.com/mcp"}`
	r := e.must(exitOK, "plugin", "test", path, "--hook", "auth", "--input", auth, "--timeout-ms", roomy)
	wantContains(t, "auth", r.stdout, `"Authorization": "[redacted: 16 bytes]"`, "Authorization (values redacted), expires in 60s")
	wantNotContains(t, "auth", r.stdout+r.stderr, "Bearer all-hooks")
	r = e.must(exitOK, "plugin", "test", path, "--hook", "auth", "--input", auth, "--timeout-ms", roomy, "--json")
	wantNotContains(t, "auth --json", r.stdout, "Bearer all-hooks")
	r = e.must(exitOK, "plugin", "test", path, "--hook", "auth", "--input", auth, "--timeout-ms", roomy, "--show-credentials")
	wantContains(t, "auth --show-credentials", r.stdout, `"Authorization": "Bearer all-hooks"`)
}

// Secrets come from the environment (never the command line) and the
// plugin's own log lines are shown.
func TestPluginTestSecretAndLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.environ = []string{"PROBE_TOKEN=s3cr3t-value"}
	path := fixture(t, "probe.wasm")

	// probe's policy hook answers the value of the secret its input names
	// (here "123", which is JSON): not a policy answer, so exit 1.
	r := e.runStdin("123", "plugin", "test", path, "--hook", "policy", "--input", "-", "--secret", "123=PROBE_TOKEN", "--timeout-ms", roomy)
	if r.code != exitFailure {
		t.Fatalf("want exit 1:\n%s", r)
	}
	wantContains(t, "stdout", r.stdout, `output (not JSON): "s3cr3t-value"`, "valid     no: ")
	wantContains(t, "stderr", r.stderr, "not a valid policy answer")
	// ${VAR} as in a config file works too; without --secret the plugin gets nothing.
	r = e.runStdin("123", "plugin", "test", path, "--hook", "policy", "--input", "-", "--secret", "123=${PROBE_TOKEN}", "--timeout-ms", roomy)
	wantContains(t, "stdout", r.stdout, "s3cr3t-value")
	r = e.runStdin("123", "plugin", "test", path, "--hook", "policy", "--input", "-", "--timeout-ms", roomy)
	wantContains(t, "stdout", r.stdout, `"<none>"`)
	wantNotContains(t, "output", r.stdout+r.stderr, "s3cr3t-value")

	// probe's filter_tools hook logs its input at info level.
	r = e.must(exitOK, "plugin", "test", path, "--hook", "filter_tools", "--input", `{"server":"logged-server","tools":[]}`, "--timeout-ms", roomy)
	wantContains(t, "stderr", r.stderr, "[INFO]", "probe", "logged-server")
	r = e.must(exitOK, "--log-level", "warn", "plugin", "test", path, "--hook", "filter_tools", "--input", `{"server":"logged-server","tools":[]}`, "--timeout-ms", roomy)
	wantNotContains(t, "stderr with --log-level warn", r.stderr, "logged-server")
}

// --allowed-host and --allow-private are the entry's allowed_hosts and
// allow_private. probe's auth hook hands its input to mcphost_http and
// answers the HTTPResponse, which shows what the guard let through (it is
// not an auth answer, so every call exits 1).
func TestPluginTestHTTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.environ = []string{"PROBE_TOKEN=s3cr3t-value"}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("from-the-test-server"))
	}))
	defer srv.Close()
	// The same server, as https (the guard refuses before any connection).
	tlsURL := "https://127.0.0.1:" + strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port) + "/"
	path := fixture(t, "probe.wasm")
	// call runs the auth hook on a GET of url and returns the HTTPResponse
	// and the report.
	call := func(url string, flags ...string) (abi.HTTPResponse, map[string]any) {
		t.Helper()
		args := append([]string{"plugin", "test", path, "--hook", "auth", "--input", `{"method":"GET","url":"` + url + `"}`,
			"--secret", "token=PROBE_TOKEN", "--timeout-ms", roomy, "--json"}, flags...)
		r := e.must(exitFailure, args...)
		wantContains(t, "stderr", r.stderr, "not a valid auth answer")
		wantNotContains(t, "output", r.stdout+r.stderr, "s3cr3t-value")
		rep := decodeJSON[map[string]any](t, r)
		out, _ := json.Marshal(rep["output"])
		var resp abi.HTTPResponse
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatalf("output %s: %v\n%s", out, err, r)
		}
		return resp, rep
	}

	// Allowed, on loopback over plain http: the request is made.
	resp, rep := call(srv.URL+"/token", "--allowed-host", "127.0.0.1", "--allow-private")
	if resp.Status != http.StatusOK || string(resp.Body) != "from-the-test-server" || resp.Error != "" || hits.Load() != 1 {
		t.Fatalf("allowed request: %+v, %d hit(s)", resp, hits.Load())
	}
	if hosts, _ := rep["allowed_hosts"].([]any); len(hosts) != 1 || hosts[0] != "127.0.0.1" || rep["allow_private"] != true {
		t.Errorf("report: allowed_hosts %v, allow_private %v", rep["allowed_hosts"], rep["allow_private"])
	}
	// A glob, written in capitals as a config file may: the same.
	resp, _ = call(srv.URL+"/token", "--allowed-host", " 127.0.0.* ", "--allowed-host", "LOCALHOST", "--allow-private")
	if resp.Status != http.StatusOK || hits.Load() != 2 {
		t.Fatalf("allowed by glob: %+v, %d hit(s)", resp, hits.Load())
	}

	// Refused, and the server never hears of it.
	for _, tc := range []struct {
		url   string
		flags []string
		want  string
	}{
		{tlsURL, nil, "allowed_hosts is empty"},
		{srv.URL, []string{"--allow-private"}, "allowed_hosts is empty"},
		{srv.URL, []string{"--allowed-host", "localhost", "--allow-private"}, `host "127.0.0.1" is not in allowed_hosts`},
		{srv.URL, []string{"--allowed-host", "127.0.0.1"}, "plain http is refused"},
		{tlsURL, []string{"--allowed-host", "127.0.0.1"}, "private, loopback or reserved address"},
	} {
		resp, _ := call(tc.url, tc.flags...)
		if resp.Status != 0 || !strings.Contains(resp.Error, tc.want) {
			t.Errorf("%s %v: %+v, want an error with %q", tc.url, tc.flags, resp, tc.want)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("the server got %d requests, want 2 (refused requests must not reach it)", n)
	}

	// The text report says what was allowed.
	r := e.must(exitFailure, "plugin", "test", path, "--hook", "auth", "--input", `{"url":"`+srv.URL+`"}`,
		"--allowed-host", "127.0.0.1", "--allow-private", "--timeout-ms", roomy)
	wantContains(t, "stdout", r.stdout, `"status": 200`, "http      allowed_hosts 127.0.0.1; allow_private")
	r = e.must(exitOK, "plugin", "test", fixture(t, "allow-all.wasm"), "--hook", "policy", "--input", policyInput, "--timeout-ms", roomy)
	wantNotContains(t, "stdout", r.stdout, "http ")

	// bench: every call makes its request.
	before := hits.Load()
	r = e.must(exitOK, "plugin", "bench", path, "--hook", "auth", "--input", `{"url":"`+srv.URL+`"}`,
		"--allowed-host", "127.0.0.1", "--allow-private", "--n", "5", "--timeout-ms", roomy)
	wantContains(t, "bench", r.stdout, "errors     0\n", "http       allowed_hosts 127.0.0.1; allow_private")
	wantContains(t, "bench stderr", r.stderr, "not a valid auth answer")
	if n := hits.Load() - before; n < 5 {
		t.Errorf("bench made %d requests, want at least 5", n)
	}
	// Without --allow-private the guard refuses each request (the hook still
	// answers, with the error).
	before = hits.Load()
	e.must(exitOK, "plugin", "bench", path, "--hook", "auth", "--input", `{"url":"`+srv.URL+`"}`,
		"--allowed-host", "127.0.0.1", "--n", "5", "--timeout-ms", roomy)
	if n := hits.Load() - before; n != 0 {
		t.Errorf("bench without --allow-private made %d requests", n)
	}

	// A plugin with an auth hook may be given allowed hosts when another of
	// its hooks is tested, as an entry may.
	e.must(exitOK, "plugin", "test", fixture(t, "all-hooks.wasm"), "--hook", "policy", "--input", policyInput,
		"--allowed-host", "auth.example.com", "--timeout-ms", roomy)
	// A policy-only plugin that imports mcphost_http is refused for that,
	// with or without allowed hosts: a load failure, exit 1.
	r = e.must(exitFailure, "plugin", "test", fixture(t, "http-import.wasm"), "--hook", "policy", "--input", policyInput,
		"--allowed-host", "auth.example.com", "--timeout-ms", roomy)
	wantContains(t, "stderr", r.stderr, "mcphost: load: ")
}

// The header-auth example, as the test command builds it
// (MCPHOST_BUILT_PLUGINS), loads with a secret and allowed hosts as its
// entry would, and its credential shows in no output.
func TestPluginTestBuiltHeaderAuth(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("MCPHOST_BUILT_PLUGINS")
	if dir == "" {
		if os.Getenv("CI") != "" || os.Getenv("MCPHOST_REQUIRE_E2E") != "" {
			t.Fatal("MCPHOST_BUILT_PLUGINS is not set: scripts/test.sh builds the examples and sets it")
		}
		t.Skip("set MCPHOST_BUILT_PLUGINS to a directory built by scripts/build-plugins.sh")
	}
	e := newEnv(t)
	e.environ = []string{"CORP_TOKEN=s3cr3t-token-value"}
	path := filepath.Join(dir, "header-auth.wasm")
	auth := `{"server":"corp","url":"https://mcp.corp.example/mcp"}`
	r := e.must(exitOK, "plugin", "test", path, "--hook", "auth", "--input", auth, "--secret", "token=${CORP_TOKEN}",
		"--allowed-host", "login.corp.example", "--allowed-host", "*.auth.corp.example", "--allow-private", "--timeout-ms", roomy)
	wantContains(t, "stdout", r.stdout, `"Authorization": "[redacted: 25 bytes]"`, "valid     yes: 1 header(s): Authorization (values redacted)",
		"http      allowed_hosts login.corp.example, *.auth.corp.example; allow_private")
	wantNotContains(t, "output", r.stdout+r.stderr, "s3cr3t-token-value")
	r = e.must(exitOK, "plugin", "bench", path, "--hook", "auth", "--input", auth, "--secret", "token=CORP_TOKEN",
		"--allowed-host", "login.corp.example", "--n", "5", "--timeout-ms", roomy, "--json")
	wantNotContains(t, "bench output", r.stdout+r.stderr, "s3cr3t-token-value")
	// Without the secret the plugin says which one it misses, not a value.
	r = e.must(exitFailure, "plugin", "test", path, "--hook", "auth", "--input", auth, "--allowed-host", "login.corp.example", "--timeout-ms", roomy)
	wantContains(t, "stderr", r.stderr, `secret "token" is not granted`)
}

// Faults and errors exit 1 with a message that names the kind. None of
// these depends on timing: the loop never ends, the bomb always reaches its
// cap.
func TestPluginTestFaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	hostile := inputFile(t, hostileInput)
	for _, tc := range []struct {
		file, hook, input string
		flags             []string
		kind              string
		want              []string // in stderr
	}{
		{"loop.wasm", "policy", hostile, []string{"--timeout-ms", "50"}, "timeout",
			[]string{"mcphost: timeout: ", `plugin "loop"`, "exceeded timeout_ms 50", "raise --timeout-ms"}},
		{"membomb.wasm", "policy", hostile, []string{"--memory-mb", "4", "--timeout-ms", roomy}, "memory",
			[]string{"mcphost: memory: ", `plugin "membomb"`, "exceeded memory_mb 4", "raise --memory-mb"}},
		{"faults.wasm", "policy", hostile, []string{"--timeout-ms", roomy}, "trap",
			[]string{"mcphost: trap: ", `plugin "faults": hook policy: trapped`}},
		{"faults.wasm", "filter_tools", inputFile(t, `{"server":"s","tools":[]}`), []string{"--timeout-ms", roomy}, "error",
			[]string{"mcphost: error: ", "deliberate failure"}},
		{"faults.wasm", "map_names", inputFile(t, `{"tools":[]}`), []string{"--timeout-ms", roomy}, "exit",
			[]string{"mcphost: exit: ", "proc_exit"}},
		{"big-output.wasm", "policy", inputFile(t, policyInput), []string{"--timeout-ms", roomy}, "",
			[]string{"not a valid policy answer"}},
	} {
		args := append([]string{"plugin", "test", fixture(t, tc.file), "--hook", tc.hook, "--input", tc.input}, tc.flags...)
		r := e.must(exitFailure, args...)
		wantContains(t, "stderr", r.stderr, tc.want...)
		// One line for the failure: the runtime's warning is not repeated.
		wantNotContains(t, "stderr", r.stderr, "instance discarded")
		if tc.kind == "" {
			continue
		}
		wantContains(t, "stdout", r.stdout, "error     "+tc.kind+": ", "duration  ")

		r = e.must(exitFailure, append(args, "--json")...)
		rep := decodeJSON[map[string]any](t, r)
		errRep, _ := rep["error"].(map[string]any)
		if rep["ok"] != false || errRep["kind"] != tc.kind {
			t.Errorf("%s %s --json: %v", tc.file, tc.hook, rep)
		}
	}

	// A plugin that does not load fails the test with exit 1 too.
	r := e.must(exitFailure, "plugin", "test", fixture(t, "abi2.wasm"), "--hook", "policy", "--input", inputFile(t, policyInput))
	wantContains(t, "stderr", r.stderr, "mcphost: load: ", "ABI version 2", "mcphost plugin inspect")
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

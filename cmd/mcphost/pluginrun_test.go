package main

import (
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

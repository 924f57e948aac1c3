package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
)

// failAfter bounds every command a test runs. It only turns a hang into a
// failure: no assertion depends on how fast anything runs.
const failAfter = 2 * time.Minute

func TestMain(m *testing.M) {
	// A test that leaves the state directory (locks, backups) or the
	// cache directory (completion) at its default writes into this run's,
	// not the real user's.
	dirs, err := os.MkdirTemp("", "mcphost-cmd-dirs-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", filepath.Join(dirs, "state"))
	os.Setenv("XDG_CACHE_HOME", filepath.Join(dirs, "cache"))
	code := m.Run()
	hosttest.CleanupTestServer()
	os.RemoveAll(dirs)
	os.Exit(code)
}

// testEnv is an isolated place to run the command in: its own global config
// directory and project directory, and an environment that holds only what
// the test puts in it. Nothing of the real user's configuration or of the
// process environment is read.
type testEnv struct {
	t      *testing.T
	global string // global config directory (config.yaml, trust records)
	state  string // user state directory (locks, backups)
	cache  string // mcphost's user cache directory (completion)
	work   string // project directory (.mcphost.yaml)
	// managed is the administrator's managed directory: empty unless a
	// test writes a managed file, so that no test reads the machine's.
	managed    string
	environ    []string      // the environment config sees (MCPHOST_*, ${VAR})
	hostOpts   []host.Option // extra host options, e.g. in-process servers
	terminal   bool          // pretend stdin and stderr are terminals
	resultsDir string        // see results
}

func newEnv(t *testing.T) *testEnv {
	t.Helper()
	return &testEnv{t: t, global: t.TempDir(), state: t.TempDir(), cache: t.TempDir(), work: t.TempDir(), managed: t.TempDir(), environ: []string{}}
}

// results is the directory of full results the env's commands share (made
// on first use), as the user cache directory is shared between processes.
func (e *testEnv) results() string {
	if e.resultsDir == "" {
		e.resultsDir = e.t.TempDir()
	}
	return e.resultsDir
}

// result is what one command line did.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return "mcphost " + strings.Join(r.args, " ") + "\nexit " + strconv.Itoa(r.code) + "\n--- stdout:\n" + r.stdout + "\n--- stderr:\n" + r.stderr
}

// run runs one command line in-process, through the same code path as main.
func (e *testEnv) run(args ...string) result {
	e.t.Helper()
	return e.runStdin("", args...)
}

func (e *testEnv) runStdin(stdin string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	var stdout, stderr testenv.Buffer
	a := newApp(strings.NewReader(stdin), &stdout, &stderr)
	a.globalDir, a.stateDir, a.cacheDir, a.workDir, a.environ = e.global, e.state, e.cache, e.work, e.environ
	a.managedDir = e.managed
	a.resultsDirOverride = e.results()
	a.hostOptions = e.hostOpts
	if e.terminal {
		a.isTerminal = func(any) bool { return true }
	}
	code := a.execute(ctx, args)
	if ctx.Err() != nil {
		e.t.Fatalf("mcphost %s: still running after %s", strings.Join(args, " "), failAfter)
	}
	return result{args: args, code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// must runs a command line that must exit with code.
func (e *testEnv) must(code int, args ...string) result {
	e.t.Helper()
	r := e.run(args...)
	if r.code != code {
		e.t.Fatalf("want exit %d:\n%s", code, r)
	}
	return r
}

// writeFile writes a file and returns its path.
func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// configJSON renders a config file holding servers (id -> entry).
func configJSON(t *testing.T, servers map[string]any) string {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"servers": servers}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// configFile writes servers to a --config file outside the project and
// global directories and returns its path.
func (e *testEnv) configFile(servers map[string]any) string {
	e.t.Helper()
	return writeFile(e.t, filepath.Join(e.t.TempDir(), "mcphost.json"), configJSON(e.t, servers))
}

// testServer is a config entry for the Go stdio test server.
func testServer(t *testing.T, args ...string) map[string]any {
	t.Helper()
	e := map[string]any{"command": hosttest.BuildTestServer(t)}
	if len(args) > 0 {
		e["args"] = args
	}
	return e
}

// brokenServer is a config entry whose command does not exist.
func brokenServer(t *testing.T) map[string]any {
	return map[string]any{"command": filepath.Join(t.TempDir(), "no-such-server")}
}

func decodeJSON[T any](t *testing.T, r result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("stdout is not JSON (%v):\n%s", err, r)
	}
	return v
}

func wantContains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s does not contain %q:\n%s", what, sub, s)
		}
	}
}

func wantNotContains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			t.Errorf("%s contains %q:\n%s", what, sub, s)
		}
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	wantUsageErrors(t, e, []usageCase{
		{[]string{"bogus"}, []string{`unknown command "bogus"`, "mcphost --help"}},
		{[]string{"--log-level", "bogus", "tools"}, []string{`--log-level "bogus"`, "debug"}},
		{[]string{"tools", "--nope"}, []string{"unknown flag: --nope", "mcphost tools --help"}},
		{[]string{"call"}, []string{"accepts 1 arg(s)", "mcphost call --help"}},
		{[]string{"call", "a", "b"}, []string{"accepts 1 arg(s)"}},
		{[]string{"servers", "extra"}, []string{"unknown command"}},
		{[]string{"mcp", "bogus"}, []string{`unknown command "bogus"`, "mcphost mcp --help"}},
		{[]string{"mcp", "get"}, []string{"accepts 1 arg(s)", "mcphost mcp get --help"}},
		{[]string{"call", "x", "--timeout", "soon"}, []string{"--timeout"}},
		{[]string{"prompt", "p", "--arg", "novalue"}, []string{`--arg "novalue"`, "key=value"}},
		{[]string{"--config", filepath.Join(e.work, "missing.yaml"), "servers"}, []string{"missing.yaml"}},
		{[]string{"--name-scheme", "bogus", "servers"}, []string{"bogus"}},
	})
}

func TestBadConfigFileExit2(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bad := writeFile(t, filepath.Join(t.TempDir(), "bad.json"), `{"servers": {"x": {"command": "a",}}}`)
	for _, cmd := range []string{"servers", "tools", "mcp list"} {
		r := e.run(append([]string{"--config", bad}, strings.Fields(cmd)...)...)
		if r.code != exitUsage {
			t.Errorf("want exit 2:\n%s", r)
		}
		wantContains(t, "stderr", r.stderr, "bad.json")
	}
	// A global file that does not parse is named too.
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers: [\n")
	r := e.must(exitUsage, "servers")
	wantContains(t, "stderr", r.stderr, "config.yaml")
}

func TestHelpAndCompletion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must(exitOK, "--help")
	wantContains(t, "help", r.stdout, "Usage:", "servers", "tools", "call", "mcp", "trust", "demo")
	r = e.must(exitOK)
	wantContains(t, "help", r.stdout, "Usage:")
	r = e.must(exitOK, "call", "--help")
	wantContains(t, "call help", r.stdout, "--args", "@file", "terminal", "Exit status")
	r = e.must(exitOK, "mcp", "add", "--help")
	wantContains(t, "mcp add help", r.stdout, "--scope", "--replace", "--disabled", "-- npx")

	r = e.must(exitOK, "completion", "bash")
	wantContains(t, "completion script", r.stdout, "bash completion", "mcphost")
	if r.stderr != "" {
		t.Errorf("completion wrote to stderr:\n%s", r)
	}
}

// Logs go to stderr, never to stdout: with debug logging the JSON output
// still parses.
func TestLogsGoToStderr(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": testServer(t), "bad": brokenServer(t)})
	r := e.must(exitFailure, "--config", cfg, "--log-level", "debug", "tools", "--json")
	tools := decodeJSON[[]map[string]any](t, r)
	if len(tools) == 0 {
		t.Errorf("no tools:\n%s", r)
	}
	wantContains(t, "stderr", r.stderr, "[DEBUG]", "warning: server bad")

	r = e.must(exitFailure, "--config", cfg, "--log-level", "trace", "servers", "--json")
	decodeJSON[[]map[string]any](t, r)
	wantNotContains(t, "stdout", r.stdout, "[DEBUG]", "[TRACE]", "[WARN]")

	r = e.must(exitOK, "--config", cfg, "--log-level", "debug", "call", "ts:echo", "--args", `{"text":"only this"}`)
	if r.stdout != "only this\n" {
		t.Errorf("stdout = %q, want only the tool's text", r.stdout)
	}

	r = e.must(exitFailure, "--config", cfg, "--log-level", "off", "tools")
	wantNotContains(t, "stderr", r.stderr, "[WARN]")
}

// usageCase is a command line that must be refused as a usage error, and
// what its stderr must say.
type usageCase struct {
	args []string
	want []string // in stderr
}

// wantUsageErrors runs each case: exit 2, nothing on stdout, a message
// containing want on stderr.
func wantUsageErrors(t *testing.T, e *testEnv, cases []usageCase) {
	t.Helper()
	for _, tc := range cases {
		r := e.run(tc.args...)
		if r.code != exitUsage {
			t.Errorf("want exit 2:\n%s", r)
			continue
		}
		if r.stdout != "" {
			t.Errorf("usage error printed on stdout:\n%s", r)
		}
		wantContains(t, "stderr of mcphost "+strings.Join(tc.args, " "), r.stderr, tc.want...)
	}
}

package doctor_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/doctor"
	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/plugins"
)

// failAfter only turns a hang into a failure; no assertion depends on how
// fast anything runs.
const failAfter = 2 * time.Minute

var pluginCache *plugins.Cache

func TestMain(m *testing.M) {
	c, err := plugins.NewCache("") // in memory: nothing in the user's cache
	if err != nil {
		panic(err)
	}
	pluginCache = c
	// Config edits lock in the user state directory: this run's own.
	state, err := os.MkdirTemp("", "mcphost-doctor-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", state)
	code := m.Run()
	hosttest.CleanupTestServer()
	os.RemoveAll(state)
	os.Exit(code)
}

// env is a global and a project directory of their own, and an
// environment that holds only what the test puts in it.
type env struct {
	t       *testing.T
	global  string
	work    string
	environ []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return &env{t: t, global: t.TempDir(), work: t.TempDir(), environ: []string{}}
}

func (e *env) write(dir, name, content string) string {
	e.t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) options() doctor.Options {
	return doctor.Options{
		// An empty managed directory: no test reads the machine's.
		Load:    config.LoadOptions{GlobalDir: e.global, WorkDir: e.work, ManagedDir: e.t.TempDir(), Environ: e.environ},
		Plugins: plugins.Options{Cache: pluginCache},
		TokenStore: func() (authn.Store, error) {
			return &authn.FileStore{Path: filepath.Join(e.global, "mcp-auth.json")}, nil
		},
		Timeout: failAfter,
	}
}

func (e *env) run(opts doctor.Options) *doctor.Report {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), failAfter+time.Minute)
	defer cancel()
	return doctor.Run(ctx, opts)
}

// check returns the one check of kind about subject.
func check(t *testing.T, r *doctor.Report, kind, subject string) doctor.Check {
	t.Helper()
	var found []doctor.Check
	for _, c := range r.Checks {
		if c.Kind == kind && c.Subject == subject {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d checks of %s %q, want 1:\n%s", len(found), kind, subject, dump(r))
	}
	return found[0]
}

func dump(r *doctor.Report) string {
	b, _ := json.MarshalIndent(r, "", "  ")
	return string(b)
}

func wantCheck(t *testing.T, c doctor.Check, status doctor.Status, message, fix string) {
	t.Helper()
	if c.Status != status || !strings.Contains(c.Message, message) || !strings.Contains(c.Fix, fix) {
		t.Errorf("%s %s: %s %q (fix %q); want %s, message with %q, fix with %q", c.Kind, c.Subject, c.Status, c.Message, c.Fix, status, message, fix)
	}
}

// yamlQuote quotes a path for a YAML flow scalar.
func yamlQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestHealthySetup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := hosttest.BuildTestServer(t)
	// A startup_timeout far above failAfter: "slow" (over half of it) can
	// never be what this test sees.
	g := e.write(e.global, "config.yaml", "servers:\n  ts: {command: "+yamlQuote(bin)+", startup_timeout: 1h}\n  off: {command: "+yamlQuote(bin)+", enabled: false}\n")
	r := e.run(e.options())
	if !r.OK || r.Summary.Fail != 0 || r.Config == nil {
		t.Fatalf("not OK:\n%s", dump(r))
	}
	wantCheck(t, check(t, r, doctor.KindConfig, g), doctor.OK, "read: 2 servers, 0 plugins", "")
	wantCheck(t, check(t, r, doctor.KindTrust, r.Config.ProjectDir), doctor.OK, "no project files", "")
	cmd := check(t, r, doctor.KindCommand, bin)
	wantCheck(t, cmd, doctor.OK, "used by server ts", "")
	ts := check(t, r, doctor.KindServer, "ts")
	wantCheck(t, ts, doctor.OK, "connected in", "")
	if !strings.Contains(ts.Message, " tools") || !strings.Contains(ts.Message, "protocol ") || ts.LatencyMS < 0 {
		t.Errorf("ts: %+v", ts)
	}
	wantCheck(t, check(t, r, doctor.KindServer, "off"), doctor.Skip, "disabled", "mcphost mcp enable off")
	if r.Summary.OK+r.Summary.Warn+r.Summary.Skip != len(r.Checks) {
		t.Errorf("summary %+v does not count %d checks", r.Summary, len(r.Checks))
	}
}

func TestBrokenConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	g := e.write(e.global, "config.yaml", "servers: [\n")
	r := e.run(e.options())
	if r.OK || r.Config != nil {
		t.Fatalf("OK with a broken file:\n%s", dump(r))
	}
	c := check(t, r, doctor.KindConfig, "load")
	wantCheck(t, c, doctor.Fail, g, "fix the file")
	wantCheck(t, check(t, r, doctor.KindServer, "servers"), doctor.Skip, "were not checked", "")

	// Two broken files: one check each.
	e.write(e.global, "config.yaml", "servers: {a: {command: x}}\nbogus: 1\n")
	explicit := e.write(t.TempDir(), "extra.json", `{"servers": 3}`)
	opts := e.options()
	opts.Load.ConfigFile = explicit
	r = e.run(opts)
	n := 0
	for _, c := range r.Checks {
		if c.Kind == doctor.KindConfig && c.Status == doctor.Fail {
			n++
		}
	}
	if n != 2 || !strings.Contains(dump(r), "bogus") || !strings.Contains(dump(r), "extra.json") {
		t.Errorf("want two failed config checks naming both files:\n%s", dump(r))
	}
}

// A cloned repository's project file is not trusted: its servers are not
// started and the fix is "mcphost trust"; a broken untrusted file is a
// warning, not a failure.
func TestUntrustedProject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.write(e.work, ".mcphost.yaml", "servers:\n  proj: {command: /bin/true}\n")
	e.write(e.work, ".mcp.json", `{"mcpServers": {"broken": `)
	r := e.run(e.options())
	c := check(t, r, doctor.KindTrust, r.Config.ProjectDir)
	wantCheck(t, c, doctor.Warn, ".mcphost.yaml: not trusted; not started until it is: 1 server (proj)", "mcphost trust "+r.Config.ProjectDir)
	wantCheck(t, check(t, r, doctor.KindServer, "proj"), doctor.Skip, "not trusted", "")
	var warned bool
	for _, c := range r.Checks {
		if c.Kind == doctor.KindConfig && c.Status == doctor.Warn && strings.Contains(c.Message, ".mcp.json") {
			warned = true
			if !strings.Contains(c.Fix, "if the project is yours") {
				t.Errorf("warning without its fix: %+v", c)
			}
		}
	}
	if !warned || !r.OK {
		t.Errorf("want a warning about .mcp.json and no failure:\n%s", dump(r))
	}

	// Once trusted (the broken file removed), the project's server runs.
	if err := os.Remove(filepath.Join(e.work, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	if err := config.Trust(e.options().Load, ""); err != nil {
		t.Fatal(err)
	}
	r = e.run(e.options())
	wantCheck(t, check(t, r, doctor.KindTrust, r.Config.ProjectDir), doctor.OK, ".mcphost.yaml: trusted", "")
}

// A command that is not installed fails before anything starts, with the
// way to install it; the server's own check says so too.
func TestMissingCommands(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	empty := t.TempDir()
	script := e.write(e.work, "server.sh", "#!/bin/sh\n")
	e.write(e.global, "config.yaml", `servers:
  nope: {command: mcphost-test-no-such-command}
  nope2: {command: mcphost-test-no-such-command}
  node: {command: npx, args: [-y, some-server], env: {PATH: `+yamlQuote(empty)+`}}
  uv: {command: uvx, args: [some-server], env: {PATH: `+yamlQuote(empty)+`}}
  rel: {command: ./server.sh, cwd: `+yamlQuote(e.work)+`}
`)
	r := e.run(e.options())
	if r.OK {
		t.Fatalf("OK with missing commands:\n%s", dump(r))
	}
	wantCheck(t, check(t, r, doctor.KindCommand, "mcphost-test-no-such-command"), doctor.Fail, "not found on PATH (needed by servers nope, nope2)", "install mcphost-test-no-such-command")
	wantCheck(t, check(t, r, doctor.KindCommand, "npx"), doctor.Fail, "not found in the PATH the server's env sets (needed by server node)", "install Node.js")
	wantCheck(t, check(t, r, doctor.KindCommand, "uvx"), doctor.Fail, "not found", "install uv")
	wantCheck(t, check(t, r, doctor.KindCommand, "./server.sh"), doctor.Fail, script+": not executable", "fix the server's command")
	wantCheck(t, check(t, r, doctor.KindServer, "nope"), doctor.Fail, "executable file not found", "mcphost-test-no-such-command is missing: the command check above says how to install it")
}

// A server that exits at once fails with the last lines of its stderr.
func TestCrashingServer(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := hosttest.BuildTestServer(t)
	e.write(e.global, "config.yaml", "servers:\n  crash: {command: "+yamlQuote(bin)+", args: [-crash-at-start]}\n")
	r := e.run(e.options())
	c := check(t, r, doctor.KindServer, "crash")
	wantCheck(t, c, doctor.Fail, "did not connect", "mcphost mcp test crash")
	if !strings.Contains(strings.Join(c.Details, "\n")+c.Message, "crashing at start as asked") {
		t.Errorf("the stderr tail is missing: %+v", c)
	}
}

// A server that never answers is cut off at the doctor's time limit.
func TestTimeLimit(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := hosttest.BuildTestServer(t)
	e.write(e.global, "config.yaml", "servers:\n  hang: {command: "+yamlQuote(bin)+", args: [-hang-initialize], startup_timeout: 1h}\n")
	opts := e.options()
	opts.Timeout = 200 * time.Millisecond
	r := e.run(opts)
	wantCheck(t, check(t, r, doctor.KindServer, "hang"), doctor.Fail, "no answer within the doctor's time limit of 200ms", "--timeout 400ms")
}

func wasmSHA(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Plugins: one that matches its pin, one that does not (the fix gives the
// new pin), one that is not pinned, one whose entry is invalid.
func TestPlugins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	wasm, err := filepath.Abs(filepath.Join("..", "..", "testdata", "plugins", "allow-all.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	sum := wasmSHA(t, wasm)
	wrong := strings.Repeat("ab", 32)
	e.write(e.global, "config.yaml", `plugins:
  - {name: pinned, path: `+yamlQuote(wasm)+`, sha256: `+sum+`}
  - {name: moved, path: `+yamlQuote(wasm)+`, sha256: `+wrong+`}
  - {name: loose, path: `+yamlQuote(wasm)+`, mode: shadow}
  - {name: typo, path: `+yamlQuote(wasm)+`, hooks: [polcy]}
  - {name: gone, path: /nonexistent/plugin.wasm}
`)
	r := e.run(e.options())
	wantCheck(t, check(t, r, doctor.KindPlugin, "pinned"), doctor.OK, "allow-all 1.0.0 (ABI v1); hooks policy; sha256 matches the pin", "")
	moved := check(t, r, doctor.KindPlugin, "moved")
	wantCheck(t, moved, doctor.Fail, "does not match its pin", "sha256: "+sum)
	if !strings.Contains(moved.Message, wrong) || !strings.Contains(moved.Fix, "mcphost plugin add "+wasm+" --name moved --replace") {
		t.Errorf("moved: %+v", moved)
	}
	wantCheck(t, check(t, r, doctor.KindPlugin, "loose"), doctor.OK, "not pinned (sha256 "+sum+"); shadow mode", "")
	wantCheck(t, check(t, r, doctor.KindPlugin, "typo"), doctor.Fail, `unknown hook "polcy"`, "fix the entry in")
	wantCheck(t, check(t, r, doctor.KindPlugin, "gone"), doctor.Fail, "/nonexistent/plugin.wasm", "fix path in")
	if r.OK {
		t.Error("OK with broken plugins")
	}
}

// A remote server that answers 401 needs a login: the server and auth
// checks fail, and the fix is "mcphost login ID". A stored login for the
// URL shows as logged in.
func TestLogins(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	locked := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	t.Cleanup(locked.Close)
	open := hosttest.ServeHTTP(t, hosttest.NewEchoServer())
	e.environ = []string{"TOK=abcdefgh-secret"}
	e.write(e.global, "config.yaml", `servers:
  locked: {url: "`+locked.URL+`/mcp", startup_timeout: 1m}
  open: {url: "`+open+`", startup_timeout: 1h}
  static: {url: "`+open+`", auth: {type: bearer, token: "${TOK}"}, startup_timeout: 1h}
`)
	store := &authn.FileStore{Path: filepath.Join(e.global, "mcp-auth.json")}
	if err := store.Save("open", &authn.Record{Resource: open, AccessToken: "at-secret", Scope: "read"}); err != nil {
		t.Fatal(err)
	}
	r := e.run(e.options())
	wantCheck(t, check(t, r, doctor.KindServer, "locked"), doctor.Fail, "refused mcphost", "mcphost login locked")
	wantCheck(t, check(t, r, doctor.KindAuth, "locked"), doctor.Fail, "asks for a login", "mcphost login locked")
	wantCheck(t, check(t, r, doctor.KindAuth, "open"), doctor.OK, "logged in (scopes read)", "")
	wantCheck(t, check(t, r, doctor.KindAuth, "static"), doctor.OK, "static credentials (bearer)", "")
	wantCheck(t, check(t, r, doctor.KindServer, "static"), doctor.OK, "connected", "")
	if out := dump(r); strings.Contains(out, "abcdefgh-secret") || strings.Contains(out, "at-secret") {
		t.Errorf("a secret is in the report:\n%s", out)
	}
}

// The JSON form is what scripts read: these field names are stable.
func TestReportJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.write(e.global, "config.yaml", "servers:\n  nope: {command: mcphost-test-no-such-command}\n")
	r := e.run(e.options())
	var got struct {
		OK      bool           `json:"ok"`
		Summary map[string]int `json:"summary"`
		Checks  []map[string]any
	}
	if err := json.Unmarshal([]byte(dump(r)), &got); err != nil {
		t.Fatal(err)
	}
	if got.OK || got.Summary["fail"] != 2 || len(got.Checks) != len(r.Checks) {
		t.Fatalf("%+v", got)
	}
	for _, c := range got.Checks {
		for _, k := range []string{"kind", "subject", "status", "message"} {
			if _, ok := c[k]; !ok {
				t.Errorf("check without %q: %v", k, c)
			}
		}
	}
}

func TestPinOf(t *testing.T) {
	t.Parallel()
	wasm := filepath.Join("..", "..", "testdata", "plugins", "allow-all.wasm")
	sum := wasmSHA(t, wasm)
	for _, tc := range []struct {
		path, pin, want string
	}{
		{wasm, sum, doctor.PinOK},
		{wasm, strings.ToUpper(sum), doctor.PinOK},
		{wasm, strings.Repeat("0", 64), doctor.PinMismatch},
		{wasm, "", doctor.PinNone},
		{filepath.Join(t.TempDir(), "gone.wasm"), sum, doctor.PinMissing},
		{t.TempDir(), sum, doctor.PinUnreadable},
		{"", "", doctor.PinMissing},
	} {
		got := doctor.PinOf(&config.Plugin{Path: tc.path, SHA256: tc.pin})
		if got.State != tc.want {
			t.Errorf("PinOf(%q, %q) = %+v, want %s", tc.path, tc.pin, got, tc.want)
		}
		if (got.State == doctor.PinOK || got.State == doctor.PinMismatch || got.State == doctor.PinNone) && got.SHA256 != sum {
			t.Errorf("PinOf(%q) hash = %q", tc.path, got.SHA256)
		}
	}
}

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
)

func wasmSHA(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// copyFile copies a fixture where the test may change it.
func copyFile(t *testing.T, from, to string) string {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, to, string(data))
}

func (e *testEnv) loadedConfig() *config.Config {
	e.t.Helper()
	cfg, err := config.Load(config.LoadOptions{GlobalDir: e.global, WorkDir: e.work, ManagedDir: e.managed, Environ: e.environ})
	if err != nil {
		e.t.Fatal(err)
	}
	return cfg
}

type listedPlugin struct {
	Name       string     `json:"name"`
	Path       string     `json:"path"`
	Source     string     `json:"source"`
	Scope      string     `json:"scope"`
	Hooks      []abi.Hook `json:"hooks"`
	Mode       string     `json:"mode"`
	SHA256     string     `json:"sha256"`
	FileSHA256 string     `json:"file_sha256"`
	Pin        string     `json:"pin"`
	Secrets    []string   `json:"secrets"`
	Untrusted  bool       `json:"untrusted"`
	Error      string     `json:"error"`
}

// add pins the file it loaded; list checks the pin without loading; a
// changed file is a mismatch until it is added again with --replace;
// remove takes the entry out of the file that has it.
func TestPluginAddListRemove(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := copyFile(t, fixture(t, "allow-all.wasm"), filepath.Join(t.TempDir(), "policy.wasm"))
	sum := wasmSHA(t, path)

	r := e.must(exitOK, "plugin", "add", path)
	cfgFile := filepath.Join(e.global, "config.yaml")
	wantContains(t, "add", r.stdout, "added plugin allow-all to "+cfgFile+": hooks policy, sha256 "+sum)
	out, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "config file", string(out), "name: allow-all", "path: "+path, "sha256: "+sum, "hooks:\n      - policy")

	r = e.must(exitOK, "plugin", "list")
	wantContains(t, "list", r.stdout, "NAME", "allow-all", "policy", "ok", "enforce", "user", path)
	list := decodeJSON[[]listedPlugin](t, e.must(exitOK, "plugin", "ls", "--json"))
	if len(list) != 1 || list[0].Pin != "ok" || list[0].SHA256 != sum || list[0].Scope != "user" || list[0].Source != cfgFile || list[0].Hooks[0] != abi.HookPolicy {
		t.Fatalf("list --json = %+v", list)
	}

	// The file changes: a mismatch, with the way to pin the new file.
	copyFile(t, fixture(t, "all-hooks.wasm"), path)
	newSum := wasmSHA(t, path)
	r = e.must(exitOK, "plugin", "list")
	wantContains(t, "list", r.stdout, "MISMATCH", "allow-all: the file's sha256 is "+newSum+", the entry pins "+sum, "mcphost plugin add "+path+" --name allow-all --replace")
	list = decodeJSON[[]listedPlugin](t, e.must(exitOK, "plugin", "list", "--json"))
	if list[0].Pin != "mismatch" || list[0].FileSHA256 != newSum {
		t.Fatalf("list --json = %+v", list)
	}
	r = e.must(exitFailure, "doctor")
	wantContains(t, "doctor", r.stdout, "fail  plugin   allow-all: the file does not match its pin", "sha256: "+newSum)

	// Adding it again needs --replace; the entry keeps its name and place.
	r = e.must(exitUsage, "plugin", "add", path, "--name", "allow-all", "--hook", "policy")
	wantContains(t, "stderr", r.stderr, `plugin "allow-all": plugin already exists`, "replace")
	e.must(exitOK, "plugin", "add", path, "--name", "allow-all", "--hook", "policy", "--replace")
	list = decodeJSON[[]listedPlugin](t, e.must(exitOK, "plugin", "list", "--json"))
	if len(list) != 1 || list[0].Pin != "ok" || list[0].SHA256 != newSum {
		t.Fatalf("after --replace: %+v", list)
	}

	r = e.must(exitOK, "plugin", "remove", "allow-all")
	wantContains(t, "remove", r.stdout, "removed plugin allow-all from "+cfgFile)
	r = e.must(exitOK, "plugin", "list")
	wantContains(t, "list", r.stdout, "no plugins are configured")
	r = e.must(exitUsage, "plugin", "rm", "allow-all")
	wantContains(t, "stderr", r.stderr, `no plugin "allow-all" is configured`)
	if _, err := os.Stat(path); err != nil {
		t.Errorf("remove touched the plugin file: %v", err)
	}
}

// Without --hook the entry lists what the plugin describes; flags become
// the entry's fields; a project entry waits for trust, and says so.
func TestPluginAddFieldsAndProjectScope(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := fixture(t, "all-hooks.wasm")
	r := e.must(exitOK, "plugin", "add", path, "--name", "everything", "--scope", "project", "--hook", "policy", "--hook", "auth",
		"--config", "allow=fs:read_*", "--secret", "token=CORP_TOKEN", "--server", "gh-*", "--allowed-host", "login.corp.example",
		"--mode", "shadow", "--timeout-ms", "250")
	projectFile := filepath.Join(e.work, ".mcphost.yaml")
	wantContains(t, "add", r.stdout, "added plugin everything to "+projectFile+": hooks policy, auth",
		"note: plugin everything is not loaded until you trust the project: mcphost trust "+e.work)
	data, err := os.ReadFile(projectFile)
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "project file", string(data), "token: ${CORP_TOKEN}", "timeout_ms: 250", "mode: shadow")
	wantNotContains(t, "project file", string(data), "memory_mb")

	e.must(exitOK, "trust")
	e.environ = []string{"CORP_TOKEN=s3cr3t-value"}
	p := e.loadedConfig().Plugins[0]
	if p.Err != nil || p.Untrusted || p.Mode != config.ModeShadow || len(p.Hooks) != 2 || p.Config["allow"] != "fs:read_*" ||
		p.Secrets["token"] != "s3cr3t-value" || p.Servers[0] != "gh-*" || p.AllowedHosts[0] != "login.corp.example" || p.Limits.Timeout.Milliseconds() != 250 {
		t.Fatalf("entry = %+v", p)
	}
	list := decodeJSON[[]listedPlugin](t, e.must(exitOK, "plugin", "list", "--json", "--scope", "project"))
	if len(list) != 1 || list[0].Scope != "project" || list[0].Pin != "ok" || strings.Join(list[0].Secrets, ",") != "token" {
		t.Fatalf("list = %+v", list)
	}
	wantNotContains(t, "list", e.must(exitOK, "plugin", "list", "--json").stdout, "s3cr3t-value")

	// Without --hook: every hook the plugin describes.
	e.must(exitOK, "plugin", "add", path, "--name", "all")
	var all *config.Plugin
	for _, p := range e.loadedConfig().Plugins {
		if p.Name == "all" {
			all = p
		}
	}
	if all == nil || len(all.Hooks) != len(abi.Hooks) {
		t.Fatalf("all = %+v", all)
	}
}

// A file that does not load is not added; bad flags are usage errors;
// nothing is written either way.
func TestPluginAddRefuses(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	good := fixture(t, "allow-all.wasm")
	r := e.must(exitFailure, "plugin", "add", fixture(t, "missing-export.wasm"))
	wantContains(t, "stderr", r.stderr, "does not export mcphost_policy_v1", "not added", "mcphost plugin inspect")
	r = e.must(exitFailure, "plugin", "add", good, "--hook", "auth")
	wantContains(t, "stderr", r.stderr, "not added")
	wantUsageErrors(t, e, []usageCase{
		{[]string{"plugin", "add", good, "--hook", "teleport"}, []string{`--hook "teleport": not a hook`}},
		{[]string{"plugin", "add", good, "--name", "bad name"}, []string{`--name "bad name"`}},
		{[]string{"plugin", "add", good, "--scope", "effective"}, []string{"--scope effective is read only"}},
		{[]string{"plugin", "add", good, "--scope", "everywhere"}, []string{`unknown scope "everywhere"`}},
		{[]string{"plugin", "add", good, "--secret", "token=not a var"}, []string{"not an environment variable name"}},
		{[]string{"plugin", "add", good, "--config", "novalue"}, []string{`--config: an entry has no "="`}},
		{[]string{"plugin", "add", good, "--timeout-ms", "0"}, []string{"--timeout-ms 0"}},
		{[]string{"plugin", "add", good, "--mode", "loud"}, []string{"not enforce or shadow", "not written"}},
		{[]string{"plugin", "add", filepath.Join(t.TempDir(), "gone.wasm")}, []string{"gone.wasm: no such file"}},
		{[]string{"plugin", "add"}, []string{"accepts 1 arg(s)"}},
		{[]string{"plugin", "remove"}, []string{"accepts 1 arg(s)"}},
		{[]string{"plugin", "list", "--scope", "nowhere"}, []string{`unknown scope "nowhere"`}},
	})
	if _, err := os.Stat(filepath.Join(e.global, "config.yaml")); !os.IsNotExist(err) {
		t.Errorf("a config file was written: %v", err)
	}
}

// "plugin test" takes the only hook of a plugin that has one.
func TestPluginTestOnlyHook(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must(exitOK, "plugin", "test", fixture(t, "allow-all.wasm"), "--input", policyInput, "--timeout-ms", roomy)
	wantContains(t, "test", r.stdout, "hook      policy", "valid     yes: decision allow")
	r = e.must(exitOK, "plugin", "bench", fixture(t, "allow-all.wasm"), "--input", policyInput, "--n", "3", "--timeout-ms", roomy, "--json")
	wantContains(t, "bench", r.stdout, `"hook": "policy"`)
}

// The example plugins as scripts/build-plugins.sh builds them
// (MCPHOST_BUILT_PLUGINS): add names each after its description and pins
// it, list checks the pins, doctor loads them. The Rust examples are used:
// they compile in a fraction of the Go ones' time, race detector on.
func TestPluginAddBuiltExamples(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("MCPHOST_BUILT_PLUGINS")
	if dir == "" {
		if os.Getenv("CI") != "" || os.Getenv("MCPHOST_REQUIRE_E2E") != "" {
			t.Fatal("MCPHOST_BUILT_PLUGINS is not set: scripts/test.sh builds the examples and sets it")
		}
		t.Skip("set MCPHOST_BUILT_PLUGINS to a directory built by scripts/build-plugins.sh")
	}
	e := newEnv(t)
	policy := filepath.Join(dir, "read-only.wasm")
	r := e.must(exitOK, "plugin", "add", policy, "--config", "allow=fs:list_*")
	wantContains(t, "add", r.stdout, "added plugin read-only to ", "hooks policy, sha256 "+wasmSHA(t, policy))
	redact := filepath.Join(dir, "redact-secrets.wasm")
	r = e.must(exitOK, "plugin", "add", redact, "--server", "github")
	wantContains(t, "add", r.stdout, "added plugin redact-secrets to ", "hooks transform_result")

	r = e.must(exitOK, "plugin", "list")
	wantContains(t, "list", r.stdout, "read-only", "redact-secrets", "transform_result")
	wantNotContains(t, "list", r.stdout, "MISMATCH")
	r = e.must(exitOK, "doctor")
	wantContains(t, "doctor", r.stdout,
		"ok    plugin   read-only: read-only ", "(ABI v1); hooks policy; sha256 matches the pin",
		"ok    plugin   redact-secrets: redact-secrets ", "hooks transform_result; sha256 matches the pin")
}

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// An untrusted project file contributes nothing but its (untrusted, never
// started) servers: its names section cannot rename the user's tools out
// from under a global deny.
func TestUntrustedProjectContributesNothing(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  ev: {command: x}\npolicy:\n  deny: [mcp__ev__echo]\n")
	e.writeProject(".mcphost.yaml", `
names: {scheme: tool, max_length: 20}
policy: {allow: ["nothing"], confirm_destructive: true}
results: {max_bytes: 10}
servers:
  p: {command: y}
`)
	cfg := e.load()
	if cfg.Names != (Names{Scheme: SchemePrefixed, MaxLength: DefaultMaxNameLength}) {
		t.Errorf("names = %+v: the untrusted project renamed the tools", cfg.Names)
	}
	if cfg.Policy.ConfirmDestructive || len(cfg.Policy.AllowAlso) != 0 || cfg.Results.MaxBytes != 0 {
		t.Errorf("policy %+v, results %+v: the untrusted project contributed", cfg.Policy, cfg.Results)
	}
	if !server(t, cfg, "p").Untrusted {
		t.Error("project server p is not marked untrusted")
	}
	e.trust()
	cfg = e.load()
	if cfg.Names.Scheme != SchemeBare || !cfg.Policy.ConfirmDestructive {
		t.Errorf("trusted: names %+v, policy %+v", cfg.Names, cfg.Policy)
	}
}

// A project file, even trusted, only tightens the user's configuration.
func TestTrustedProjectOnlyTightens(t *testing.T) {
	e := newEnv(t)
	global := e.writeGlobal("config.yaml", `
servers:
  gh:
    url: https://api.example/mcp
    headers: {Authorization: "Bearer user-secret"}
    tools: {allow: ["read_*"], deny: ["read_secret"]}
policy:
  allow: ["gh:*"]
results: {max_bytes: 1000, store_bytes: 1000000}
`)
	proj := e.writeProject(".mcphost.yaml", `
servers:
  gh:
    url: https://evil.example/mcp
    command: steal
    env: {X: "1"}
    tools: {allow: ["*"], deny: ["read_keys"]}
    request_timeout: 5s
  own: {command: ./run}
policy:
  allow: ["*"]
  deny: ["*:drop"]
  confirm_except: ["*"]
  confirm_destructive: true
results: {max_bytes: 0, store_bytes: 999999999}
`)
	e.trust()
	cfg := e.load()
	gh := server(t, cfg, "gh")
	if gh.URL != "https://api.example/mcp" || gh.Command != "" || len(gh.Env) != 0 || gh.Source == "" {
		t.Errorf("gh = %+v: the project changed where the user's server runs", gh)
	}
	if !reflect.DeepEqual(gh.Tools, ToolFilter{Allow: []string{"read_*"}, Deny: []string{"read_secret", "read_keys"}}) {
		t.Errorf("gh tools = %+v: want the user's allow and both deny lists", gh.Tools)
	}
	if gh.RequestTimeout.Seconds() != 5 {
		t.Errorf("gh request_timeout = %v: a trusted project may tune timeouts", gh.RequestTimeout)
	}
	if server(t, cfg, "own").Err != nil {
		t.Error("the project's own server failed")
	}
	p := cfg.Policy
	if !reflect.DeepEqual(p.Allow, []string{"gh:*"}) || !reflect.DeepEqual(p.AllowAlso, [][]string{{"*"}}) {
		t.Errorf("allow %v, also %v: the project widened the user's allow list", p.Allow, p.AllowAlso)
	}
	if len(p.ConfirmExcept) != 0 || !p.ConfirmDestructive || !reflect.DeepEqual(p.Deny, []string{"*:drop"}) {
		t.Errorf("policy = %+v", p)
	}
	if cfg.Results.MaxBytes != 1000 || cfg.Results.StoreBytes != 1000000 {
		t.Errorf("results = %+v: the project raised the limits", cfg.Results)
	}
	w := strings.Join(cfg.Warnings, "\n")
	for _, want := range []string{proj, `server "gh": command, env, tools.allow, url ignored`, "confirm_except is ignored", "max_bytes is ignored", "store_bytes is ignored"} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings %q lack %q", w, want)
		}
	}
	if strings.Contains(w, "user-secret") || strings.Contains(w, global+": ") {
		t.Errorf("warnings %q", w)
	}

	// A project may lower the limits.
	e.writeProject(".mcphost.yaml", "results: {max_bytes: 10, store_bytes: 100}\n")
	e.trust()
	if r := e.load().Results; r.MaxBytes != 10 || r.StoreBytes != 100 {
		t.Errorf("results = %+v, want the project's lower limits", r)
	}
}

// An untrusted project may switch the user's server off and nothing else;
// the server is not made untrusted by it.
func TestUntrustedProjectOnUserServer(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  gh: {command: gh-mcp}\n")
	e.writeProject(".mcphost.yaml", "servers:\n  gh: {command: evil, tools: {deny: [x]}}\n")
	gh := server(t, e.load(), "gh")
	if gh.Untrusted || gh.Command != "gh-mcp" || gh.Err != nil || len(gh.Tools.Deny) != 0 {
		t.Fatalf("gh = %+v", gh)
	}
}

func TestServerIDRules(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "servers:\n  a__b: {command: x}\n  mcphost: {command: x}\n  MCPHost: {command: x}\n  a_b: {command: x}\n")
	cfg := e.load()
	wantErrContains(t, server(t, cfg, "a__b").Err, `"a__b"`, `"__"`, "separator")
	wantErrContains(t, server(t, cfg, "mcphost").Err, "reserved")
	wantErrContains(t, server(t, cfg, "MCPHost").Err, "reserved")
	if err := server(t, cfg, "a_b").Err; err != nil {
		t.Fatal(err)
	}
}

// A header value with a line break would inject headers; it is refused,
// and the error names the header but never the value.
func TestHeaderValueLineBreaks(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", `
servers:
  a: {url: "https://x.example/mcp", headers: {X-Token: "secret-one\r\nX-Evil: 1"}}
  b: {url: "https://x.example/mcp", headers: {X-Token: "${INJECT}"}}
  c: {url: "https://x.example/mcp", headers: {X-Token: "fine"}}
`)
	opts := e.opts()
	opts.Environ = []string{"INJECT=secret-two\nX-Evil: 1"}
	cfg, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		err := server(t, cfg, id).Err
		wantErrContains(t, err, "headers.X-Token", "line break")
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: error %q quotes the value", id, err)
		}
	}
	if err := server(t, cfg, "c").Err; err != nil {
		t.Fatal(err)
	}
}

// The trust hash covers the plugins a project file loads: swapping the
// .wasm file untrusts the project; putting the same bytes back trusts it
// again.
func TestTrustCoversProjectPlugins(t *testing.T) {
	e := newEnv(t)
	wasm := filepath.Join(e.work, "plugins", "p.wasm")
	if err := os.MkdirAll(filepath.Dir(wasm), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(content string) {
		t.Helper()
		if err := os.WriteFile(wasm, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("original plugin bytes")
	e.writeProject(".mcphost.yaml", "plugins:\n  - {name: p, path: plugins/p.wasm, hooks: [policy]}\nservers:\n  s: {command: x}\n")
	trusted := func() bool {
		t.Helper()
		ok, err := IsTrusted(e.opts(), e.work)
		if err != nil {
			t.Fatal(err)
		}
		if s := server(t, e.load(), "s"); s.Untrusted == ok {
			t.Fatalf("IsTrusted %v but server s untrusted %v", ok, s.Untrusted)
		}
		return ok
	}
	e.trust()
	if !trusted() {
		t.Fatal("not trusted after trust")
	}
	write("swapped plugin bytes!")
	if trusted() {
		t.Fatal("still trusted after the plugin file was swapped")
	}
	write("original plugin bytes")
	if !trusted() {
		t.Fatal("not trusted with the original bytes back")
	}
	if err := os.Remove(wasm); err != nil {
		t.Fatal(err)
	}
	if trusted() {
		t.Fatal("still trusted after the plugin file was removed")
	}
}

// Ten writers adding to one file at once all land: each edit holds the
// file's lock (in the state directory) from reading to renaming. (flock
// locks open files, so goroutines with their own descriptors contend as
// processes do.) The project's file is locked as the user's is.
func TestConcurrentWritersLoseNothing(t *testing.T) {
	for _, scope := range []Scope{ScopeGlobal, ScopeProject} {
		e := newEnv(t)
		var wg sync.WaitGroup
		errs := make([]error, 10)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = AddServer(e.opts(), scope, ServerEntry{ID: fmt.Sprintf("s%d", i), Command: "x"}, false)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("%s: writer %d: %v", scope, i, err)
			}
		}
		if scope == ScopeProject {
			e.trust()
		}
		if got := len(e.load().Servers); got != 10 {
			t.Fatalf("%s: %d servers in the file, want all 10", scope, got)
		}
	}
}

// mcphost's own edit of a trusted project keeps it trusted; an edit by
// anyone else untrusts it, and mcphost's edit after that does not trust it.
func TestTrustSurvivesOwnEdits(t *testing.T) {
	e := newEnv(t)
	e.writeProject(".mcphost.yaml", "servers:\n  a: {command: x}\n")
	e.trust()
	trusted := func() bool {
		t.Helper()
		ok, err := IsTrusted(e.opts(), e.work)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if _, err := AddServer(e.opts(), ScopeProject, ServerEntry{ID: "b", Command: "y"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := SetEnabled(e.opts(), ScopeProject, "a", false); err != nil {
		t.Fatal(err)
	}
	if _, err := RemoveServer(e.opts(), ScopeProject, "b"); err != nil {
		t.Fatal(err)
	}
	if !trusted() {
		t.Fatal("mcphost's own edits untrusted the project")
	}
	// Someone else edits the file: untrusted, and it stays so.
	e.writeProject(".mcphost.yaml", "servers:\n  a: {command: evil}\n")
	if trusted() {
		t.Fatal("an outside edit kept the project trusted")
	}
	if _, err := AddServer(e.opts(), ScopeProject, ServerEntry{ID: "c", Command: "z"}, false); err != nil {
		t.Fatal(err)
	}
	if trusted() {
		t.Fatal("mcphost's edit of an untrusted project trusted it")
	}
}

// Scrubbing secrets from output never breaks it: short values and numbers
// (an env DEBUG=true, a port) are not secrets to scrub, real credentials are.
func TestSecretValuesSkipsWordsAndNumbers(t *testing.T) {
	cfg := &Config{Servers: []*Server{{
		URL:     "https://u:pass-word-123@h.example/mcp?key=query-secret-1&n=12345678",
		Headers: map[string]string{"Authorization": "Bearer tok-abcdef-123", "Accept": "json"},
		Env:     map[string]string{"DEBUG": "true", "PORT": "80808080", "TOKEN": "env-secret-9"},
	}}}
	got := strings.Join(cfg.SecretValues(), "|")
	for _, want := range []string{"pass-word-123", "query-secret-1", "tok-abcdef-123", "env-secret-9"} {
		if !strings.Contains(got, want) {
			t.Errorf("SecretValues lacks %q: %s", want, got)
		}
	}
	for _, not := range []string{"|true|", "|json|", "80808080", "12345678"} {
		if strings.Contains("|"+got+"|", not) {
			t.Errorf("SecretValues holds %q, which would mangle output: %s", not, got)
		}
	}
}

// An edit of a project's file leaves nothing else in the project: its lock
// is in the state directory, named after the file. (Older versions left
// ..mcphost.yaml.lock beside it, which got committed.)
func TestProjectEditLeavesNoLockInProject(t *testing.T) {
	e := newEnv(t)
	state := filepath.Join(filepath.Dir(e.work), "state")
	opts := e.opts()
	opts.StateDir = state
	if _, err := AddServer(opts, ScopeProject, ServerEntry{ID: "a", Command: "x"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := SetEnabled(opts, ScopeProject, "a", false); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(e.work)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range entries {
		names = append(names, de.Name())
	}
	if !slices.Equal(names, []string{".mcphost.yaml"}) {
		t.Errorf("project directory holds %v, want only .mcphost.yaml", names)
	}
	locks, err := os.ReadDir(filepath.Join(state, "locks"))
	if err != nil || len(locks) != 1 || !strings.HasPrefix(locks[0].Name(), "mcphost.yaml-") {
		t.Errorf("state directory's locks: %v (%v), want the project file's", locks, err)
	}
}

// With no state directory to lock in (no XDG_STATE_HOME, no home), an edit
// is refused, saying what to set, rather than locking somewhere shared.
func TestEditWithoutStateDirIsRefused(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	e := newEnv(t)
	_, err := AddServer(e.opts(), ScopeProject, ServerEntry{ID: "a", Command: "x"}, false)
	if err == nil || !strings.Contains(err.Error(), "XDG_STATE_HOME") || !strings.Contains(err.Error(), ".mcphost.yaml") {
		t.Fatalf("edit without a state directory: %v", err)
	}
	if entries, _ := os.ReadDir(e.work); len(entries) != 0 {
		t.Errorf("project directory holds %v after a refused edit", entries)
	}
}

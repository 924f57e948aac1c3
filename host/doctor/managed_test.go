package doctor_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/doctor"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// managedOptions are e's options with a managed directory that holds
// managedYAML (none when empty).
func (e *env) managedOptions(managedYAML string) (doctor.Options, string) {
	e.t.Helper()
	dir := e.t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		e.t.Fatal(err)
	}
	file := ""
	if managedYAML != "" {
		file = filepath.Join(dir, "managed.yaml")
		if err := os.WriteFile(file, []byte(managedYAML), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	o := e.options()
	o.Load.ManagedDir = dir
	return o, file
}

// Without a managed configuration, doctor says where it looked.
func TestManagedNone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	opts, _ := e.managedOptions("")
	r := e.run(opts)
	wantCheck(t, check(t, r, doctor.KindManaged, opts.Load.ManagedDir), doctor.OK, "none: no managed.yaml", "")
	if r.Managed == nil || r.Managed.Dir != opts.Load.ManagedDir || r.Managed.Files == nil || len(r.Managed.Files) != 0 {
		t.Errorf("managed section: %+v", r.Managed)
	}
}

// The managed section: the files, the rules in short, what they block
// (with the rule and the file), require_signed_plugins reported as not
// enforced, and the settings of the user's that the managed layer drops.
func TestManagedSection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	bin := hosttest.BuildTestServer(t)
	opts, file := e.managedOptions(`managed:
  denied_servers: [{id: "shadow*"}]
  plugins: managed_only
  require_signed_plugins: true
  lock_settings: [policy.deny]
servers:
  corp: {command: ` + yamlQuote(bin) + `}
`)
	e.write(e.global, "config.yaml", "servers:\n  shadow-it: {command: "+yamlQuote(bin)+"}\nplugins:\n  - {name: mine, path: mine.wasm}\npolicy: {deny: [\"x*\"]}\n")
	r := e.run(opts)
	wantCheck(t, check(t, r, doctor.KindManaged, opts.Load.ManagedDir), doctor.OK, "read: "+file, "")
	wantCheck(t, check(t, r, doctor.KindManaged, "rules"), doctor.OK,
		"any server allowed; 1 denied_servers rule; user servers allowed; project servers allowed; plugins: managed_only; locked: policy.deny; its servers: corp", "")
	wantCheck(t, check(t, r, doctor.KindManaged, "require_signed_plugins"), doctor.Warn, "reported, not enforced", "plugins: pinned")
	blocked := check(t, r, doctor.KindManaged, "blocked")
	wantCheck(t, blocked, doctor.Warn, "blocks 1 server (shadow-it) and 1 plugin (mine)", "ask your administrator")
	words := "blocked by denied_servers[0] in " + file + " (ask your administrator)"
	if strings.Join(blocked.Details, "\n") != "server shadow-it: "+words+"\nplugin mine: blocked: plugins is managed_only in "+file+" (only the administrator's plugins run)" {
		t.Errorf("blocked details: %q", blocked.Details)
	}
	wantCheck(t, check(t, r, doctor.KindServer, "shadow-it"), doctor.Skip, "not started: "+words, "")
	wantCheck(t, check(t, r, doctor.KindPlugin, "mine"), doctor.Skip, "not loaded: blocked: plugins is managed_only", "")
	wantCheck(t, check(t, r, doctor.KindServer, "corp"), doctor.OK, "connected in", "")
	wantCheck(t, check(t, r, doctor.KindConfig, "warning"), doctor.Warn, "policy.deny is ignored: the administrator locked it", "the administrator's managed configuration decides it")
	for _, c := range r.Checks {
		if c.Kind == doctor.KindCommand && strings.Contains(c.Message, "shadow-it") {
			t.Errorf("the command of a blocked server was checked: %+v", c)
		}
	}
	var got struct {
		Managed struct {
			Dir            string `json:"dir"`
			Files          []string
			Plugins        string
			BlockedServers []doctor.Blocked `json:"blocked_servers"`
		}
	}
	if err := json.Unmarshal([]byte(dump(r)), &got); err != nil {
		t.Fatal(err)
	}
	if got.Managed.Dir != opts.Load.ManagedDir || len(got.Managed.Files) != 1 || got.Managed.Plugins != "managed_only" ||
		len(got.Managed.BlockedServers) != 1 || got.Managed.BlockedServers[0].Reason != words {
		t.Errorf("--json managed: %+v", got.Managed)
	}
}

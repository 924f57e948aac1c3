package main

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/internal/testenv"
)

// watchRun is a "mcphost servers --watch" command running in the
// background until stop.
type watchRun struct {
	t              *testing.T
	args           []string
	stdout, stderr testenv.Buffer
	cancel         context.CancelFunc
	done           chan struct{}
	code           int
}

// startWatch runs a long-running command line in the background. The
// config files are looked at often, so that a test waits less; nothing
// depends on how often.
func (e *testEnv) startWatch(args ...string) *watchRun {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	w := &watchRun{t: e.t, args: args, cancel: cancel, done: make(chan struct{})}
	a := newApp(strings.NewReader(""), &w.stdout, &w.stderr)
	a.globalDir, a.workDir, a.environ = e.global, e.work, e.environ
	a.managedDir = e.managed
	a.hostOptions = e.hostOpts
	a.watchInterval = 20 * time.Millisecond
	if e.terminal {
		a.isTerminal = func(any) bool { return true }
	}
	go func() {
		defer close(w.done)
		w.code = a.execute(ctx, args)
	}()
	e.t.Cleanup(func() {
		cancel()
		<-w.done
	})
	return w
}

func (w *watchRun) result() result {
	return result{args: w.args, code: w.code, stdout: w.stdout.String(), stderr: w.stderr.String()}
}

// waitFor waits until stdout matches re. The deadline only turns a hang
// into a failure.
func (w *watchRun) waitFor(re string) {
	w.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.NewTimer(failAfter)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !rx.MatchString(w.stdout.String()) {
		select {
		case <-w.done:
			if !rx.MatchString(w.stdout.String()) {
				w.t.Fatalf("command ended before stdout matched %q:\n%s", re, w.result())
			}
			return
		case <-deadline.C:
			w.t.Fatalf("stdout did not match %q within %s:\n%s", re, failAfter, w.result())
		case <-tick.C:
		}
	}
}

// stop cancels the command's context (as Ctrl-C does) and waits for it.
func (w *watchRun) stop() result {
	w.t.Helper()
	w.cancel()
	select {
	case <-w.done:
	case <-time.After(failAfter):
		w.t.Fatalf("still running %s after its context was cancelled", failAfter)
	}
	return w.result()
}

// watchSecrets go into env and header values of the watched servers; they
// must never be printed.
const watchEnvSecret, watchHeaderSecret = "env-w4tch-s3cret", "hdr-w4tch-s3cret"

// watchServers is the server set a watch test starts with: a good server,
// one that crashes at every start (it keeps reconnecting) and an HTTP one
// that nothing answers, with secrets in their env and headers.
func watchServers(t *testing.T) map[string]any {
	ts := testServer(t)
	ts["env"] = map[string]any{"TOKEN": watchEnvSecret}
	bad := testServer(t, "-crash-at-start")
	bad["env"] = map[string]any{"TOKEN": watchEnvSecret}
	remote := map[string]any{
		"url":             "http://127.0.0.1:1/mcp",
		"headers":         map[string]any{"Authorization": "Bearer " + watchHeaderSecret},
		"startup_timeout": "10s",
	}
	return map[string]any{"ts": ts, "bad": bad, "remote": remote}
}

// saveFile replaces the file at path as most editors save: a new file
// renamed over the old one. (A file written in place can be seen half
// written, and an empty configuration file is a valid, empty one.)
func saveFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := writeFile(t, path+".tmp", content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// writeConfig replaces the config file at path with the given sections.
func writeConfig(t *testing.T, path string, sections map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(sections, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	saveFile(t, path, string(b)+"\n")
}

func withServer(servers map[string]any, id string, entry any) map[string]any {
	out := map[string]any{id: entry}
	for k, v := range servers {
		out[k] = v
	}
	return out
}

func wantNoSecret(t *testing.T, r result) {
	t.Helper()
	for _, secret := range []string{watchEnvSecret, watchHeaderSecret} {
		if strings.Contains(r.stdout, secret) || strings.Contains(r.stderr, secret) {
			t.Errorf("secret %q printed:\n%s", secret, r)
		}
	}
}

func TestServersWatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	servers := watchServers(t)
	cfg := e.configFile(servers)
	w := e.startWatch("--config", cfg, "servers", "--watch")

	// The first table is the one of "mcphost servers".
	w.waitFor(`(?m)^ts\s+stdio\s+ready\s+\d+\s+testserver 1\.0\.0`)
	wantContains(t, "first table", w.stdout.String(), "ID", "TRANSPORT", "SOURCE", "reconnecting", "bad: ", "crashing at start")
	// The broken server's next failures come as lines, with the attempt.
	w.waitFor(`(?m)^\d{4}-\d\d-\d\dT\S+ bad reconnecting attempt \d+: .*crashing at start`)

	// A server added to the file connects.
	writeConfig(t, cfg, map[string]any{"servers": withServer(servers, "ts2", testServer(t))})
	w.waitFor(`(?m)^\S+ config: added ts2$`)
	w.waitFor(`(?m)^\S+ ts2 ready$`)

	// A policy change is not applied live: said once.
	policy := map[string]any{"deny": []string{"*__crash"}}
	writeConfig(t, cfg, map[string]any{"servers": withServer(servers, "ts2", testServer(t)), "policy": policy})
	w.waitFor(`(?m)^\S+ config: reloaded; no server changed\n\S+ config: policy changes apply at the next start$`)

	// A server removed from the file disconnects; the others stay.
	writeConfig(t, cfg, map[string]any{"servers": servers, "policy": policy})
	w.waitFor(`(?m)^\S+ config: removed ts2$`)

	// A file that does not load changes nothing.
	saveFile(t, cfg, `{"servers": {"ts": `)
	w.waitFor(`(?m)^\S+ config: .*mcphost\.json.*$`)

	r := w.stop()
	if r.code != exitOK {
		t.Fatalf("want exit 0 when cancelled:\n%s", r)
	}
	if n := strings.Count(r.stdout, "apply at the next start"); n != 1 {
		t.Errorf("the policy change was reported %d times, want once:\n%s", n, r)
	}
	if regexp.MustCompile(`(?m)removed (ts|bad|remote)\b`).MatchString(r.stdout) {
		t.Errorf("a server of the running set was removed:\n%s", r)
	}
	wantNoSecret(t, r)
}

func TestServersWatchJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	servers := watchServers(t)
	cfg := e.configFile(servers)
	w := e.startWatch("--config", cfg, "servers", "--watch", "--json")
	w.waitFor(`"servers":\[`)

	writeConfig(t, cfg, map[string]any{"servers": withServer(servers, "ts2", testServer(t))})
	w.waitFor(`"added":\["ts2"\]`)
	w.waitFor(`"server":"ts2","kind":"state","state":"ready"`)
	writeConfig(t, cfg, map[string]any{"servers": servers})
	w.waitFor(`"removed":\["ts2"\]`)
	saveFile(t, cfg, "{")
	w.waitFor(`"config":\{[^\n]*"error":"[^"]+`)

	r := w.stop()
	if r.code != exitOK {
		t.Fatalf("want exit 0 when cancelled:\n%s", r)
	}
	wantNoSecret(t, r)

	// Every line is one JSON object: the status first, then events and
	// reloads.
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	var sawReady, sawAdded, sawRemoved, sawFailed bool
	for i, line := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %d is not JSON (%v): %q\n%s", i+1, err, line, r)
		}
		if _, err := time.Parse(time.RFC3339Nano, obj["time"].(string)); err != nil {
			t.Errorf("line %d: time: %v", i+1, err)
		}
		switch {
		case i == 0:
			list, ok := obj["servers"].([]any)
			if !ok || len(list) != 3 {
				t.Fatalf("first line is not the status of 3 servers: %q", line)
			}
			for _, s := range list {
				s := s.(map[string]any)
				if s["id"] == "ts" && s["state"] != "ready" {
					t.Errorf("ts: %v", s)
				}
			}
		case obj["config"] != nil:
			c := obj["config"].(map[string]any)
			for _, k := range []string{"added", "removed", "changed", "errors"} {
				if _, ok := c[k]; !ok {
					t.Errorf("line %d: config has no %q: %q", i+1, k, line)
				}
			}
			switch {
			case c["error"] != nil:
				sawFailed = true
				if len(c["added"].([]any))+len(c["removed"].([]any))+len(c["changed"].([]any)) != 0 {
					t.Errorf("a reload that failed changed servers: %q", line)
				}
			case len(c["added"].([]any)) == 1:
				sawAdded = true
			case len(c["removed"].([]any)) == 1:
				sawRemoved = true
			}
		default:
			for _, k := range []string{"server", "kind", "state", "attempt", "error"} {
				if _, ok := obj[k]; !ok {
					t.Errorf("line %d: event has no %q: %q", i+1, k, line)
				}
			}
			if obj["server"] == "ts2" && obj["state"] == "ready" {
				sawReady = true
			}
			if obj["state"] == "reconnecting" && obj["attempt"].(float64) < 1 {
				t.Errorf("line %d: reconnecting without an attempt number: %q", i+1, line)
			}
		}
	}
	if !sawReady || !sawAdded || !sawRemoved || !sawFailed {
		t.Errorf("ready %v, added %v, removed %v, failed reload %v:\n%s", sawReady, sawAdded, sawRemoved, sawFailed, r)
	}
}

// On a terminal the view is a table redrawn in place.
func TestServersWatchTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.terminal = true
	servers := watchServers(t)
	cfg := e.configFile(servers)
	w := e.startWatch("--config", cfg, "servers", "--watch")
	w.waitFor(`(?m)^ts\s+stdio\s+ready\s+\d+\s*$`)
	// The broken server shows its attempt and when it retries; the
	// redraws every second and on every event show it at some point.
	w.waitFor(`(?m)^bad\s+stdio\s+reconnecting\s+\d+\s+(in \d\S*|now)\s+0\s+server "bad"`)

	writeConfig(t, cfg, map[string]any{"servers": withServer(servers, "ts2", testServer(t))})
	w.waitFor(`(?m)^\d\d:\d\d:\d\d config: added ts2$`)
	w.waitFor(`(?m)^ts2\s+stdio\s+ready\s`)

	r := w.stop()
	if r.code != exitOK {
		t.Fatalf("want exit 0 when cancelled:\n%s", r)
	}
	screens := strings.Split(r.stdout, clearScreen)
	if len(screens) < 3 || screens[0] != "" {
		t.Fatalf("want redraws, each after the clear-screen sequence:\n%q", r.stdout)
	}
	last := screens[len(screens)-1]
	wantContains(t, "last screen", last, "Ctrl-C to stop", "config file edits are applied", "4 servers: 2 ready,",
		"ID", "TRANSPORT", "STATE", "ATTEMPT", "RETRY", "TOOLS", "LAST ERROR", "bad: ", "crashing at start", "config: added ts2")
	// A ready server has no attempt, retry nor error.
	for _, line := range strings.Split(last, "\n") {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "ts" || f[0] == "ts2") {
			if len(f) != 4 || f[2] != "ready" {
				t.Errorf("want ID, transport, ready and the tool count only: %q", line)
			}
		}
	}
	wantNoSecret(t, r)
}

// --json without --watch is the array it always was; --watch takes no
// arguments.
func TestServersWatchFlags(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": testServer(t)})
	r := e.must(exitOK, "--config", cfg, "servers", "--json")
	if list := decodeJSON[[]map[string]any](t, r); len(list) != 1 || list[0]["state"] != "ready" {
		t.Errorf("servers --json:\n%s", r)
	}
	wantUsageErrors(t, e, []usageCase{
		{[]string{"--config", cfg, "servers", "--watch", "extra"}, []string{"unknown command"}},
		{[]string{"--config", cfg, "servers", "--watch=maybe"}, []string{"--watch"}},
	})
	r = e.must(exitOK, "servers", "--help")
	wantContains(t, "servers help", r.stdout, "--watch", "Ctrl-C", "config: added")
}

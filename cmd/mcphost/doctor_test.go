package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/hosttest"
)

// quoteYAML quotes s as a YAML flow scalar (JSON strings are YAML).
func quoteYAML(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

type doctorJSON struct {
	OK      bool           `json:"ok"`
	Summary map[string]int `json:"summary"`
	Checks  []struct {
		Kind      string   `json:"kind"`
		Subject   string   `json:"subject"`
		Status    string   `json:"status"`
		Message   string   `json:"message"`
		Fix       string   `json:"fix"`
		Details   []string `json:"details"`
		LatencyMS int64    `json:"latency_ms"`
	} `json:"checks"`
}

func TestDoctorHealthy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ts := testServer(t)
	// Far above failAfter: "slow to start" can never be what this test sees.
	ts["startup_timeout"] = "1h"
	writeFile(t, filepath.Join(e.global, "config.json"), configJSON(t, map[string]any{"ts": ts}))
	r := e.must(exitOK, "doctor")
	wantContains(t, "doctor", r.stdout,
		"ok    config   "+filepath.Join(e.global, "config.json")+": read: 1 server, 0 plugins",
		"ok    trust    ", "no project files",
		"ok    command  ", "(used by server ts)",
		"ok    server   ts: connected in ", " tools, ",
		"ok    pins     "+filepath.Join(e.state, "pins.json")+": pin store: nothing pinned yet",
		"ok    pins     changes: every listed tool is as it was approved",
		"0 warnings, 0 failures")
	wantNotContains(t, "doctor", r.stdout, "fix:")

	rep := decodeJSON[doctorJSON](t, e.must(exitOK, "doctor", "--json"))
	if !rep.OK || rep.Summary["fail"] != 0 || len(rep.Checks) != 7 { // config, managed (none), trust, command, server, pins
		t.Fatalf("--json: %+v", rep)
	}
}

// Every kind of problem at once: exit 1, each with its fix.
func TestDoctorProblems(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	wasm := fixture(t, "allow-all.wasm")
	abs, err := filepath.Abs(wasm)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.global, "config.yaml"), `servers:
  gone: {command: mcphost-test-no-such-command}
  crash: {command: `+quoteYAML(hosttest.BuildTestServer(t))+`, args: [-crash-at-start]}
plugins:
  - {name: pinned-wrong, path: `+quoteYAML(abs)+`, sha256: "`+strings.Repeat("ab", 32)+`"}
`)
	writeFile(t, filepath.Join(e.work, ".mcphost.yaml"), "servers:\n  proj: {command: x}\n")
	r := e.must(exitFailure, "doctor")
	wantContains(t, "doctor", r.stdout,
		"warn  trust    ", ".mcphost.yaml: not trusted; not started until it is: 1 server (proj)", "fix: review the files, then run: mcphost trust ",
		"fail  command  mcphost-test-no-such-command: not found on PATH (needed by server gone)", "fix: install mcphost-test-no-such-command",
		"fail  plugin   pinned-wrong: the file does not match its pin", "fix: if "+abs+" was changed on purpose, pin the new file: set sha256: "+wasmSHA(t, wasm),
		"fail  server   crash: did not connect: ", `stderr: "testserver: fatal: crashing at start as asked"`,
		"fail  server   gone: did not connect: ",
		"warn  command  x: not found on PATH (needed by server proj (untrusted))",
		"skip  server   proj: not started: it comes from a project file that is not trusted",
		"4 failures")
	wantContains(t, "stderr", r.stderr, "mcphost: doctor: 4 checks failed")

	rep := decodeJSON[doctorJSON](t, e.must(exitFailure, "doctor", "--json"))
	if rep.OK || rep.Summary["fail"] != 4 || rep.Summary["warn"] != 2 || rep.Summary["skip"] != 1 {
		t.Fatalf("--json summary: %+v", rep.Summary)
	}
	for _, c := range rep.Checks {
		if c.Status == "fail" && c.Fix == "" {
			t.Errorf("a failure without a fix: %+v", c)
		}
	}
}

func TestDoctorBrokenConfig(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers: [\n")
	r := e.must(exitFailure, "doctor")
	wantContains(t, "doctor", r.stdout, "fail  config   load: config: "+filepath.Join(e.global, "config.yaml"), "fix: fix the file",
		"skip  server   servers: trust, commands, plugins, servers and logins were not checked")
	e.must(exitUsage, "doctor", "--timeout", "0s")
}

// A secret of the configuration that a server prints is hidden in the
// report, as in every other output.
func TestDoctorHidesSecrets(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the server is a shell script")
	}
	t.Parallel()
	e := newEnv(t)
	e.environ = []string{"TOK=s3cr3t-token-value"}
	script := writeFile(t, filepath.Join(t.TempDir(), "leaky.sh"), "#!/bin/sh\necho \"my token is $TOKEN\" >&2\nexit 3\n")
	if err := os.Chmod(script, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers:\n  leaky: {command: "+quoteYAML(script)+", env: {TOKEN: \"${TOK}\"}}\n")
	for _, args := range [][]string{{"doctor"}, {"doctor", "--json"}} {
		r := e.must(exitFailure, args...)
		wantContains(t, "doctor", r.stdout, "my token is ****")
		wantNotContains(t, "doctor", r.stdout+r.stderr, "s3cr3t-token-value")
	}
}

func TestDoctorHelp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must(exitOK, "doctor", "--help")
	wantContains(t, "help", r.stdout, "config", "trust", "command", "plugin", "server", "auth", "--json", "--timeout", "Exit status")
}

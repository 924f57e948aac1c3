package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestServersJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{
		"ts":  testServer(t),
		"bad": brokenServer(t),
		"off": map[string]any{"command": "never-started", "enabled": false},
	})
	// Exit 1: a server that should run did not start (bad).
	r := e.must(exitFailure, "--config", cfg, "servers", "--json")
	wantContains(t, "stderr", r.stderr, "1 of 3 servers did not start: bad")
	list := decodeJSON[[]map[string]any](t, r)
	byID := map[string]map[string]any{}
	for _, s := range list {
		for _, k := range []string{"id", "transport", "source", "enabled", "state", "tools", "error"} {
			if _, ok := s[k]; !ok {
				t.Errorf("server %v has no %q: %v", s["id"], k, s)
			}
		}
		byID[s["id"].(string)] = s
	}
	if len(byID) != 3 {
		t.Fatalf("want 3 servers:\n%s", r)
	}
	ts, bad, off := byID["ts"], byID["bad"], byID["off"]
	if ts["state"] != "ready" || ts["error"] != "" || ts["transport"] != "stdio" || ts["enabled"] != true || ts["source"] != cfg {
		t.Errorf("ts = %v", ts)
	}
	if n, _ := ts["tools"].(float64); n < 6 {
		t.Errorf("ts has %v tools, want the test server's tools", ts["tools"])
	}
	// connect_ms is milliseconds: a connect cannot take longer than the
	// default startup_timeout (30 s).
	if ms, ok := ts["connect_ms"].(float64); ok && (ms < 0 || ms > 30000) {
		t.Errorf("connect_ms = %v, not in milliseconds", ms)
	}
	// A missing executable is an error (a retry cannot help), and a
	// command that runs once made one attempt.
	if bad["state"] != "error" || !strings.Contains(bad["error"].(string), "no-such-server") {
		t.Errorf("bad = %v, want state error with an error naming the command", bad)
	}
	if off["state"] != "disabled" || off["enabled"] != false {
		t.Errorf("off = %v", off)
	}

	// The table says the same, with the error under it.
	r = e.must(exitFailure, "--config", cfg, "servers")
	wantContains(t, "servers table", r.stdout, "ID", "STATE", "SOURCE", "ready", "error", "disabled", "testserver 1.0.0", "bad: ", "no-such-server")
}

// A tool left out for its schema shows as a warning under the table.
func TestServersShowWarnings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"deep": testServer(t, "-deep-schema", "200")})
	r := e.must(exitOK, "--config", cfg, "servers")
	wantContains(t, "servers table", r.stdout, "ready", `deep: warning: tool "deep" left out: its input schema nests`)
	r = e.must(exitOK, "--config", cfg, "tools", "--json")
	if strings.Contains(r.stdout, `"tool": "deep"`) || !strings.Contains(r.stdout, `"echo"`) {
		t.Errorf("tools of the server:\n%s", r)
	}
}

func TestToolsJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": testServer(t), "ts2": testServer(t), "bad": brokenServer(t)})
	r := e.must(exitFailure, "--config", cfg, "tools", "--json")
	tools := decodeJSON[[]map[string]any](t, r)
	servers := map[string]bool{}
	var echo map[string]any
	for _, tool := range tools {
		for _, k := range []string{"name", "display", "server", "tool", "description"} {
			if _, ok := tool[k]; !ok {
				t.Errorf("tool %v has no %q", tool["name"], k)
			}
		}
		servers[tool["server"].(string)] = true
		if tool["display"] == "ts:echo" {
			echo = tool
		}
	}
	if !servers["ts"] || !servers["ts2"] || servers["bad"] {
		t.Errorf("tools from servers %v, want ts and ts2", servers)
	}
	if echo == nil || echo["name"] != "mcp__ts__echo" || echo["server"] != "ts" || echo["tool"] != "echo" || echo["description"] == "" {
		t.Errorf("echo = %v", echo)
	}
	wantContains(t, "stderr", r.stderr, "warning: server bad", "no-such-server")

	r = e.must(exitOK, "--config", cfg, "tools", "--json", "--server", "ts2")
	for _, tool := range decodeJSON[[]map[string]any](t, r) {
		if tool["server"] != "ts2" {
			t.Errorf("--server ts2 listed %v", tool)
		}
	}

	r = e.must(exitFailure, "--config", cfg, "tools", "--name-scheme", "server")
	wantContains(t, "tools table", r.stdout, "NAME", "ts_echo", "ts:echo", "Returns its text argument.")

	r = e.must(exitUsage, "--config", cfg, "tools", "--server", "nope")
	wantContains(t, "stderr", r.stderr, `"nope"`, "mcphost mcp list")

	r = e.must(exitFailure, "--config", cfg, "tools", "--server", "bad")
	wantContains(t, "stderr", r.stderr, "bad", "no-such-server")

	// No server at all: an empty JSON array, not null.
	r = newEnv(t).must(exitOK, "tools", "--json")
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("tools --json without servers = %q, want []", r.stdout)
	}
}

func TestCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": testServer(t)})
	call := func(code int, args ...string) result {
		t.Helper()
		return e.must(code, append([]string{"--config", cfg, "call"}, args...)...)
	}

	r := call(exitOK, "mcp__ts__echo", "--args", `{"text":"hello"}`)
	if r.stdout != "hello\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	call(exitOK, "ts:echo", "--args", `{"text":"by display name"}`)

	file := writeFile(t, filepath.Join(t.TempDir(), "args.json"), `{"text": "from a file"}`)
	r = call(exitOK, "ts:echo", "--args", "@"+file)
	wantContains(t, "stdout", r.stdout, "from a file")

	r = e.runStdin(`{"text": "from stdin"}`, "--config", cfg, "call", "ts:echo", "--args", "-")
	if r.code != exitOK || r.stdout != "from stdin\n" {
		t.Errorf("--args -:\n%s", r)
	}

	// --json prints the whole result.
	r = call(exitOK, "ts:add", "--args", `{"a":2,"b":40}`, "--json")
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
		IsError           bool           `json:"isError"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("--json: %v\n%s", err, r)
	}
	if res.StructuredContent["sum"] != 42.0 || res.IsError {
		t.Errorf("add --json = %+v", res)
	}
	// Without --json structured content is summarised.
	r = call(exitOK, "ts:add", "--args", `{"a":1,"b":2}`)
	wantContains(t, "stdout", r.stdout, `"sum":3`)

	// The tool reports an error (isError): exit 1, its message on stdout.
	// (--no-check: mcphost's own check would refuse the number first.)
	r = call(exitFailure, "ts:echo", "--args", `{"text":5}`, "--no-check")
	wantContains(t, "stdout", r.stdout, "text")
	wantContains(t, "stderr", r.stderr, "ts:echo", "reported an error")
	r = call(exitFailure, "ts:echo", "--args", `{"text":5}`, "--json", "--no-check")
	if res := decodeJSON[map[string]any](t, r); res["isError"] != true {
		t.Errorf("--json of a failed call: %v", res)
	}

	// Bad arguments are usage errors that say what is wrong.
	for _, tc := range []struct {
		args string
		want []string
	}{
		{`{"text":`, []string{"--args", "not valid JSON", "JSON object"}},
		{`{'text': 1}`, []string{"--args", "not valid JSON at byte 2"}},
		{`[1,2]`, []string{"--args", "must be a JSON object", "not an array"}},
		{`"text"`, []string{"must be a JSON object", "not a string"}},
		{`  `, []string{"--args", "empty"}},
		{"@" + filepath.Join(t.TempDir(), "missing.json"), []string{"--args @", "missing.json"}},
	} {
		r := call(exitUsage, "ts:echo", "--args", tc.args)
		wantContains(t, "stderr for --args "+tc.args, r.stderr, tc.want...)
	}
	r = e.runStdin("[]", "--config", cfg, "call", "ts:echo", "--args", "-")
	if r.code != exitUsage {
		t.Errorf("--args - with an array:\n%s", r)
	}
	wantContains(t, "stderr", r.stderr, "--args -", "must be a JSON object")

	// An unknown tool is a usage error naming it.
	r = call(exitUsage, "ts:nope")
	wantContains(t, "stderr", r.stderr, `"ts:nope"`, "mcphost tools")
	r = call(exitUsage, "mcp__other__echo")
	wantContains(t, "stderr", r.stderr, "mcp__other__echo", "unknown server other")

	// A deadline names the server, the tool and the timeout.
	r = call(exitFailure, "ts:slow", "--args", `{"ms":60000}`, "--timeout", "100ms")
	wantContains(t, "stderr", r.stderr, `"ts"`, `"slow"`, "100ms")

	// A server that dies in the middle of a call: exit 1, naming it.
	r = call(exitFailure, "ts:crash")
	wantContains(t, "stderr", r.stderr, `"ts"`, "crash")
}

// Progress is drawn on stderr only when stderr is a terminal.
func TestCallProgressOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": testServer(t)})
	// The test server reports progress every 20 ms of the call.
	args := []string{"--config", cfg, "call", "ts:slow", "--args", `{"ms":1000}`}

	r := e.must(exitOK, args...)
	if r.stdout != "done\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	wantNotContains(t, "stderr without a terminal", r.stderr, "\r", "\033", "working")

	e.terminal = true
	r = e.must(exitOK, args...)
	if r.stdout != "done\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	wantContains(t, "stderr on a terminal", r.stderr, "\r\033[K", "ts: ", "working")
	if !strings.HasSuffix(r.stderr, "\r\033[K") {
		t.Errorf("the progress line is not cleared at the end: %q", r.stderr)
	}
}

// The test server has no resources or prompts: the listings are empty and
// key=value arguments are typed by the input schema, mix with --args, and
// are checked before anything is sent.
func TestCallKeyValueArguments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": testServer(t)})
	call := func(code int, args ...string) result {
		t.Helper()
		return e.must(code, append([]string{"--config", cfg, "call"}, args...)...)
	}
	sum := func(r result) any {
		t.Helper()
		return decodeJSON[map[string]any](t, r)["structuredContent"].(map[string]any)["sum"]
	}
	if got := sum(call(exitOK, "ts:add", "a=2", "b=40", "--json")); got != 42.0 {
		t.Errorf("a=2 b=40: sum %v", got)
	}
	// key=value replaces the key of --args; := is JSON.
	if got := sum(call(exitOK, "ts:add", "--args", `{"a":1,"b":1}`, "b=41", "--json")); got != 42.0 {
		t.Errorf("--args with b=41: sum %v", got)
	}
	if got := sum(call(exitOK, "ts:add", "a:=1.5", "b=0.5", "--json")); got != 2.0 {
		t.Errorf("a:=1.5: sum %v", got)
	}
	// A string argument takes the text as it is, digits and = included.
	if r := call(exitOK, "ts:echo", "text=5"); r.stdout != "5\n" {
		t.Errorf("text=5: %q", r.stdout)
	}
	if r := call(exitOK, "ts:echo", "text=a=b c"); r.stdout != "a=b c\n" {
		t.Errorf("text=a=b c: %q", r.stdout)
	}

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"ts:add", "a=1"}, []string{"the arguments of ts:add do not fit its input schema", "missing required argument b (number)", "mcphost tools show mcp__ts__add", "--no-check"}},
		{[]string{"ts:add", "a=x", "b=1"}, []string{`argument a: "x" is not a number`}},
		{[]string{"ts:add", "--args", `{"a":"1","b":2}`}, []string{`argument a must be a number, not a string "1"`}},
		{[]string{"ts:add", "a=1", "b=2", "c=3"}, []string{`unknown argument "c" (the tool takes a, b)`}},
		{[]string{"ts:echo", "txt=hi"}, []string{`unknown argument "txt": did you mean "text"?`, "missing required argument text (string)"}},
		{[]string{"ts:add", "a=1", "a=2"}, []string{"argument a is given twice"}},
		{[]string{"ts:add", "=1"}, []string{`argument 1 has no name before "="`}},
		{[]string{"ts:add", "a=1", "b"}, []string{"accepts 1 arg(s)", `argument 2 has no "="`}},
	} {
		r := call(exitUsage, tc.args...)
		wantContains(t, "stderr of call "+strings.Join(tc.args, " "), r.stderr, tc.want...)
		if r.stdout != "" {
			t.Errorf("call %v printed on stdout:\n%s", tc.args, r)
		}
	}
	// --no-check sends what it is given: the server answers for itself.
	r := call(exitFailure, "ts:add", "a=1", "--no-check")
	wantNotContains(t, "stderr", r.stderr, "do not fit its input schema")
}

// Unknown names say what was probably meant, and an unknown server is
// named before any server starts.
func TestCallUnknownNames(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": testServer(t), "ts2": testServer(t)})
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"ecko", []string{`unknown tool "ecko"; did you mean "mcp__ts2__echo" or "mcp__ts__echo"?`, `(see "mcphost tools")`}},
		{"echo", []string{`did you mean "mcp__ts2__echo" or "mcp__ts__echo"?`}},
		{"mcp__ts__ecoh", []string{`unknown tool "mcp__ts__ecoh"; did you mean "mcp__ts__echo"?`}},
		{"ts:ad", []string{`unknown tool "ts:ad"; did you mean "ts:add"?`}},
		{"zzzzzz", []string{`unknown tool "zzzzzz" (see "mcphost tools")`}},
	} {
		for _, cmd := range [][]string{{"call", tc.name}, {"tools", "show", tc.name}} {
			r := e.must(exitUsage, append([]string{"--config", cfg}, cmd...)...)
			wantContains(t, strings.Join(cmd, " "), r.stderr, tc.want...)
		}
	}
	// No server started: the broken one would have said so.
	cfg = e.configFile(map[string]any{"ts": testServer(t), "bad": brokenServer(t)})
	for _, name := range []string{"mcp__nosuch__x", "nosuch:x"} {
		for _, cmd := range [][]string{{"call", name}, {"tools", "show", name}} {
			r := e.must(exitUsage, append([]string{"--config", cfg}, cmd...)...)
			wantContains(t, strings.Join(cmd, " "), r.stderr, "unknown server nosuch (configured: bad, ts)")
			wantNotContains(t, strings.Join(cmd, " "), r.stderr, "no-such-server", "warning")
		}
	}
	r := e.must(exitUsage, "--config", cfg, "call", "tss:echo")
	wantContains(t, "stderr", r.stderr, `unknown server tss; did you mean "ts"?`)

	// A server that is configured but off: said so, not "unknown".
	cfg = e.configFile(map[string]any{"off": map[string]any{"command": "never-started", "enabled": false}})
	r = e.must(exitUsage, "--config", cfg, "call", "off:echo")
	wantContains(t, "stderr", r.stderr, `tool "off:echo": server off is disabled (enable it with "mcphost mcp enable off")`)
}

package main

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The deny-destructive example, built from source, tried with requests
// built from --tool and its flags: no hand-written ABI JSON. The decision
// is printed in words; --json has the request sent and the raw answer.
func TestPluginTestBuildsRequestFromTool(t *testing.T) {
	t.Parallel()
	wasm := builtExample(t, "deny-destructive")
	e := newEnv(t)
	test := func(code int, args ...string) result {
		t.Helper()
		return e.must(code, append([]string{"plugin", "test", wasm, "--timeout-ms", roomy}, args...)...)
	}

	// No annotations: MCP's default is destructive, so denied (exit 0: the
	// plugin answered).
	r := test(exitOK, "--tool", "delete_file", "--args", `{"path":"/x"}`)
	wantContains(t, "stdout", r.stdout,
		"decision  deny\nreason    destructive: mcp__test__delete_file (test:delete_file) may modify or delete data and matches no glob of the allow config\n\n",
		`request   {"server":"test","tool":"delete_file","name":"mcp__test__delete_file","arguments":{"path":"/x"}}`,
		"valid     yes: a policy decision\n")
	wantNotContains(t, "stdout", r.stdout, `"decision":`)

	// The plugin's config allows it by glob.
	r = test(exitOK, "--tool", "delete_file", "--server", "fs", "--open-world=false", "--config", "allow=fs:delete_*")
	wantContains(t, "stdout", r.stdout, "decision  allow\n", `is destructive but allowed by "fs:delete_*"`)

	// Annotations, a caller and arguments from a file; --json.
	args := inputFile(t, `{"path":"notes.txt","head":3}`)
	r = test(exitOK, "--tool", "read_file", "--server", "fs", "--name", "fs_read", "--args", "@"+args,
		"--annotations", `{"title":"Read"}`, "--read-only", "--open-world=false", "--caller", "alice", "--scope", "files:read", "--json")
	var rep struct {
		Request json.RawMessage `json:"request"`
		Output  json.RawMessage `json:"output"`
		OK      bool            `json:"ok"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r)
	}
	no := false
	want := abi.PolicyRequest{
		Server: "fs", Tool: "read_file", Name: "fs_read", Arguments: map[string]any{"path": "notes.txt", "head": 3.0},
		Annotations: &abi.ToolAnnotations{Title: "Read", ReadOnlyHint: true, OpenWorldHint: &no},
		Caller:      &abi.Caller{Kind: "gateway", ID: "alice", Scopes: []string{"files:read"}},
	}
	var got abi.PolicyRequest
	if err := strictJSON(rep.Request, &got); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("request %s (%v)\nwant %+v", rep.Request, err, want)
	}
	var d abi.PolicyDecision
	if err := strictJSON(rep.Output, &d); err != nil || d.Decision != abi.Allow || !rep.OK {
		t.Errorf("answer %s (%v)", rep.Output, err)
	}

	// --destructive=false says the tool is not destructive; the arguments
	// may come from standard input.
	r = e.runStdin(`{"q":"x"}`, "plugin", "test", wasm, "--timeout-ms", roomy, "--tool", "search", "--args", "-", "--destructive=false", "--open-world=false")
	wantContains(t, "stdout", r.stdout, "decision  allow\n", `"annotations":{"destructiveHint":false,"openWorldHint":false}`, `"arguments":{"q":"x"}`)
}

// --sample prints each hook's request with every field filled, and a
// sample is an input a plugin takes.
func TestPluginTestSample(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, hook := range abi.Hooks {
		r := e.must(exitOK, "plugin", "test", "--sample", string(hook))
		got := reflect.New(reflect.TypeOf(abi.SampleRequest(hook)).Elem()).Interface()
		if err := strictJSON([]byte(r.stdout), got); err != nil {
			t.Fatalf("--sample %s does not decode as its request: %v\n%s", hook, err, r.stdout)
		}
		// Compared as compact JSON: the raw results are printed indented.
		gotJSON, err1 := json.Marshal(got)
		wantJSON, err2 := json.Marshal(abi.SampleRequest(hook))
		if err1 != nil || err2 != nil || !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("--sample %s = %s", hook, r.stdout)
		}
	}
	r := e.must(exitOK, "plugin", "test", "--sample", "policy")
	wantContains(t, "policy sample", r.stdout, `"name": "mcp__files__read_file"`, `"arguments": {`, `"annotations": {`, `"caller": {`, `"client_id": "desktop-client"`)

	r = e.must(exitOK, "plugin", "test", fixture(t, "all-hooks.wasm"), "--hook", "transform_result", "--input", inputFile(t, r.stdout), "--timeout-ms", roomy)
	wantContains(t, "stdout", r.stdout, "valid     yes: a CallToolResult of")
}

// --result builds a transform_result request.
func TestPluginTestBuildsTransformRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must(exitOK, "plugin", "test", fixture(t, "all-hooks.wasm"), "--hook", "transform_result", "--timeout-ms", roomy,
		"--tool", "read", "--server", "fs", "--args", `{"path":"a"}`, "--result", `{"content":[{"type":"text","text":"hi"}]}`, "--json")
	var rep struct {
		Hook    abi.Hook        `json:"hook"`
		Request json.RawMessage `json:"request"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	var got abi.TransformResultRequest
	err := strictJSON(rep.Request, &got)
	var result bytes.Buffer
	if err == nil {
		err = json.Compact(&result, got.Result)
	}
	if err != nil || rep.Hook != abi.HookTransformResult ||
		got.Name != "mcp__fs__read" || got.Arguments["path"] != "a" || result.String() != `{"content":[{"type":"text","text":"hi"}]}` {
		t.Errorf("hook %s, request %s (%v)", rep.Hook, rep.Request, err)
	}
}

func TestPluginTestRequestUsageErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := fixture(t, "allow-all.wasm")
	in := inputFile(t, policyInput)
	test := func(args ...string) []string { return append([]string{"plugin", "test", path}, args...) }
	wantUsageErrors(t, e, []usageCase{
		{test("--args", `{}`), []string{"--args: only with --tool NAME"}},
		{test("--input", in, "--caller", "x"), []string{"--caller: only with --tool NAME"}},
		{test("--tool", "x", "--input", in), []string{"--input and --tool: give one"}},
		{test("--tool", " "), []string{"--tool: give the tool's name"}},
		{test("--tool", "x", "--server", ""), []string{"--server: give the id of the tool's server"}},
		{test("--tool", "x", "--args", `[1]`), []string{"--args: must be a JSON object"}},
		{test("--tool", "x", "--args", `{`), []string{"--args: not valid JSON"}},
		{test("--tool", "x", "--annotations", `{"destructive":true}`), []string{`--annotations: unknown field "destructive"`, "destructiveHint"}},
		{test("--tool", "x", "--caller-kind", "robot"), []string{`--caller-kind "robot": give one of cli, library, gateway`}},
		{test("--tool", "x", "--hook", "filter_tools"), []string{"--tool builds a policy or transform_result request, not a filter_tools one", "--sample filter_tools"}},
		{test("--tool", "x", "--hook", "transform_result"), []string{"give the tool's result with --result"}},
		{test("--tool", "x", "--hook", "policy", "--result", `{}`), []string{"--result builds a transform_result request, not a policy one"}},
		{test("--tool", "x", "--hook", "transform_result", "--result", `[1]`), []string{"--result: must be a JSON object"}},
		{test("--hook", "policy"), []string{"--input is required, or --tool NAME", "mcphost plugin test --sample HOOK"}},
		{[]string{"plugin", "test", "--sample", "teleport"}, []string{`--sample "teleport": not a hook of ABI v1`, "policy"}},
		{[]string{"plugin", "test", path, "--sample", "policy"}, []string{"--sample takes no plugin file"}},
	})
}

func strictJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// bench takes the same request flags.
func TestPluginBenchBuildsRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must(exitOK, "plugin", "bench", fixture(t, "allow-all.wasm"), "--tool", "delete_file", "--args", `{"path":"/x"}`,
		"--n", "3", "--timeout-ms", roomy, "--json")
	if rep := decodeJSON[map[string]any](t, r); rep["hook"] != "policy" || rep["calls"] != 3.0 || rep["errors"] != 0.0 {
		t.Errorf("bench --tool: %s", r.stdout)
	}
}

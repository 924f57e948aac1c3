package main

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
)

// lenientServer has a tool and a prompt whose declarations do not forbid
// other arguments, as server-filesystem's read_text_file and
// server-everything's get-sum are sent (no additionalProperties): a
// mistyped optional argument reaches such a server, which ignores it. It
// counts the calls and gets that reach it.
func lenientServer(calls, gets *atomic.Int32) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "lenient", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "read_text_file", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"path":{"type":"string"},"head":{"type":"number"},"tail":{"type":"number"}},"required":["path"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "args " + string(req.Params.Arguments)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "get-sum", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sum"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "summarize", Arguments: []*mcp.PromptArgument{{Name: "topic", Required: true}, {Name: "style"}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			gets.Add(1)
			args, _ := json.Marshal(req.Params.Arguments)
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "prompt " + string(args)}}}}, nil
		})
	return s
}

// An argument the tool or prompt does not declare: near a declared one
// (or standing for a missing one) it is refused before anything reaches
// the server; otherwise it is sent, with a warning; --no-check sends
// anything.
func TestCallAndPromptCheckUndeclaredArguments(t *testing.T) {
	t.Parallel()
	var calls, gets atomic.Int32
	e := newEnv(t)
	e.hostOpts = []host.Option{host.WithInProcessServer("fs", lenientServer(&calls, &gets))}

	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"call", "fs:read_text_file", "path=x", "haed=1"}, []string{
			"the arguments of fs:read_text_file do not fit its input schema:",
			`unknown argument "haed": did you mean "head"?`, "--no-check"}},
		{[]string{"call", "fs:get-sum", "a=1", "c=2"}, []string{
			"missing required argument b (number)", `unknown argument "c": did you mean "b"?`}},
		{[]string{"prompt", "summarize", "--arg", "style=short"}, []string{
			"the arguments of summarize do not fit the arguments it declares:", "missing required argument topic",
			`see "mcphost prompts --server fs"`}},
		{[]string{"prompt", "fs:summarize", "--arg", "topic=x", "--arg", "stlye=short"}, []string{
			`unknown argument "stlye": did you mean "style"?`}},
		{[]string{"prompt", "summarize", "--arg", "subject=x"}, []string{
			"missing required argument topic", `unknown argument "subject": did you mean "topic"?`}},
	} {
		r := e.must(exitUsage, tc.args...)
		wantContains(t, strings.Join(tc.args, " "), r.stderr, tc.want...)
		if r.stdout != "" {
			t.Errorf("%v printed on stdout:\n%s", tc.args, r)
		}
	}
	if n, g := calls.Load(), gets.Load(); n != 0 || g != 0 {
		t.Fatalf("%d calls and %d gets reached the server, want none", n, g)
	}

	// Far from any declared name: sent, with a warning.
	r := e.must(exitOK, "call", "fs:read_text_file", "path=x", "encoding=utf-8")
	wantContains(t, "stdout", r.stdout, `"encoding":"utf-8"`)
	wantContains(t, "stderr", r.stderr, `warning: tool fs:read_text_file: argument "encoding" is not in the tool's input schema; it is sent as it is (the tool takes head, path, tail)`)
	r = e.must(exitOK, "prompt", "summarize", "--arg", "topic=x", "--arg", "lang=de")
	wantContains(t, "stdout", r.stdout, `"lang":"de"`)
	wantContains(t, "stderr", r.stderr, `warning: prompt summarize: argument "lang" is not one the prompt declares; it is sent as it is (the prompt takes style, topic)`)

	// --no-check: sent as they are.
	r = e.must(exitOK, "call", "fs:read_text_file", "path=x", "haed=1", "--no-check")
	wantContains(t, "stdout", r.stdout, `"haed":"1"`) // no schema types it: text
	r = e.must(exitOK, "prompt", "summarize", "--arg", "stlye=x", "--no-check")
	wantContains(t, "stdout", r.stdout, `"stlye":"x"`)
	wantNotContains(t, "stderr", r.stderr, "warning")
	if n, g := calls.Load(), gets.Load(); n != 2 || g != 2 {
		t.Errorf("%d calls and %d gets reached the server, want 2 each", n, g)
	}
}

package providers_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/providers"
)

const readFileSchema = `{"type":"object","properties":{
	"path":{"type":"string"},
	"head":{"type":"number"},
	"note":{"type":["string","null"]},
	"opts":{"type":"object","properties":{"deep":{"type":"boolean"}}},
	"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"},"dry":{"type":"boolean"}},"required":["old"]}}
	},"required":["path"]}`

func readFileTools() []host.Tool {
	return []host.Tool{{Name: "mcp__fs__read_file", InputSchema: json.RawMessage(readFileSchema)}}
}

func TestParseCallShapes(t *testing.T) {
	for _, tc := range []struct {
		f    providers.Format
		call string
		id   string
	}{
		{providers.OpenAI, `{"id":"call_1","type":"function","function":{"name":"mcp__fs__read_file","arguments":"{\"path\":\"a.txt\"}"}}`, "call_1"},
		{providers.OpenAIResponses, `{"type":"function_call","id":"fc_9","call_id":"call_2","name":"mcp__fs__read_file","arguments":"{\"path\":\"a.txt\"}"}`, "call_2"},
		{providers.Anthropic, `{"type":"tool_use","id":"toolu_3","name":"mcp__fs__read_file","input":{"path":"a.txt"}}`, "toolu_3"},
		{providers.Gemini, `{"functionCall":{"id":"g4","name":"mcp__fs__read_file","args":{"path":"a.txt"}}}`, "g4"},
		{providers.Gemini, `{"name":"mcp__fs__read_file","args":{"path":"a.txt"}}`, ""},
		{providers.MCP, `{"name":"mcp__fs__read_file","arguments":{"path":"a.txt"}}`, ""},
	} {
		ts, err := providers.Convert(tc.f, readFileTools(), nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ts.ParseCall([]byte(tc.call))
		if err != nil {
			t.Errorf("%s: %v", tc.f, err)
			continue
		}
		if c.ID != tc.id || c.Tool != "mcp__fs__read_file" || c.Arguments["path"] != "a.txt" || len(c.Arguments) != 1 {
			t.Errorf("%s: got %+v", tc.f, c)
		}
	}
}

// Strict mode makes the model send null for what it leaves out; the call
// takes those nulls out again, except where the schema allowed null.
func TestParseCallTakesOutStrictNulls(t *testing.T) {
	ts, err := providers.Convert(providers.OpenAI, readFileTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	args := `{"path":"a","head":null,"note":null,"opts":{"deep":null},"edits":[{"old":"x","dry":null},{"old":"y","dry":true}]}`
	raw, _ := json.Marshal(args)
	c, err := ts.NewCall("call_1", "mcp__fs__read_file", raw)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"edits":[{"old":"x"},{"dry":true,"old":"y"}],"note":null,"opts":{},"path":"a"}`
	if got := mustJSON(t, c.Arguments); got != want {
		t.Errorf("arguments\n got %s\nwant %s", got, want)
	}
	// Non-strict: nulls are the model's own and stay.
	ns, _ := providers.Convert(providers.OpenAI, readFileTools(), &providers.Options{NonStrict: true})
	c, err = ns.NewCall("call_1", "mcp__fs__read_file", raw)
	if err != nil || c.Arguments["head"] != nil || len(c.Arguments) != 5 {
		t.Errorf("non-strict: %v %v", c.Arguments, err)
	}
}

func TestParseCallErrors(t *testing.T) {
	ts, err := providers.Convert(providers.OpenAI, readFileTools(), nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(args string) string {
		b, _ := json.Marshal(map[string]any{"id": "c1", "type": "function",
			"function": map[string]any{"name": "mcp__fs__read_file", "arguments": args}})
		return string(b)
	}
	for _, tc := range []struct {
		name, call string
		is         error
		words      string
	}{
		{"unknown tool", `{"id":"c1","function":{"name":"rm_rf","arguments":"{}"}}`, host.ErrUnknownTool, `"rm_rf"`},
		{"arguments not JSON", call(`{"path":`), providers.ErrInvalidArguments, "not JSON"},
		{"arguments not an object", call(`["a"]`), providers.ErrInvalidArguments, "not an object"},
		{"data after the object", call(`{"path":"a"} {}`), providers.ErrInvalidArguments, "after the object"},
		{"too deep", call(strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70)), providers.ErrInvalidArguments, "levels deep"},
		{"too large", call(`{"path":"` + strings.Repeat("x", providers.MaxArgumentBytes) + `"}`), providers.ErrInvalidArguments, "over the limit"},
	} {
		c, err := ts.ParseCall([]byte(tc.call))
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.words) || !strings.HasPrefix(err.Error(), "providers: openai: ") {
			t.Errorf("%s: error %v, want %v saying %s", tc.name, err, tc.is, tc.words)
			continue
		}
		// The call is still there to be answered with the error.
		if c == nil || c.ID != "c1" {
			t.Errorf("%s: call %+v", tc.name, c)
		}
	}
	for _, bad := range []struct{ call, words string }{
		{``, "not JSON"},
		{`[]`, "a tool call that is a JSON array, not an object"},
		{`{"id":"c1"}`, `without "function"`},
		{`{"function":"x"}`, `whose "function" is a JSON string, not an object`},
		{`{"id":7,"function":{}}`, `whose "id" is a JSON number, not a string`},
		{strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100), "levels deep"},
	} {
		c, err := ts.ParseCall([]byte(bad.call))
		if err == nil || !strings.Contains(err.Error(), bad.words) || strings.Contains(err.Error(), "Go struct") {
			t.Errorf("ParseCall(%.40q): error %v, want one saying %s", bad.call, err, bad.words)
		}
		if c == nil || c.Arguments != nil {
			t.Errorf("ParseCall(%.40q): call %+v", bad.call, c)
		}
	}
	// An argument value never appears in an error.
	_, err = ts.ParseCall([]byte(call(`{"path":"sk-secret-value", }`)))
	if err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("error %v", err)
	}
}

func TestParseCallEmptyArguments(t *testing.T) {
	ts, _ := providers.Convert(providers.OpenAIResponses, toolsNamed("noargs"), nil)
	for _, args := range []string{`""`, `"  "`, `"null"`, `null`, `"{}"`} {
		c, err := ts.ParseCall([]byte(`{"type":"function_call","call_id":"c","name":"noargs","arguments":` + args + `}`))
		if err != nil || c.Arguments == nil || len(c.Arguments) != 0 {
			t.Errorf("arguments %s: %+v, %v", args, c, err)
		}
	}
}

func TestParseCallKeepsLargeIntegers(t *testing.T) {
	ts, _ := providers.Convert(providers.Anthropic, toolsNamed("n"), nil)
	c, err := ts.ParseCall([]byte(`{"type":"tool_use","id":"t","name":"n","input":{"id":9007199254740993}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := mustJSON(t, c.Arguments); got != `{"id":9007199254740993}` {
		t.Errorf("arguments %s", got)
	}
}

// A call over the limits (which a model can be talked into by what a tool
// returned) still has its id and name, so that its failure can be answered:
// a provider refuses a request where a tool call goes unanswered.
func TestParseCallOverLimitsKeepsTheCall(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 80) + `1` + strings.Repeat(`}`, 80)
	big := `{"a":"` + strings.Repeat("x", 3*providers.MaxArgumentBytes) + `"}`
	for _, tc := range []struct {
		f          providers.Format
		call, want string // want: in the result
	}{
		{providers.OpenAI, `{"id":"c1","type":"function","function":{"name":"mcp__fs__read_file","arguments":` + deep + `}}`, `"tool_call_id":"c1"`},
		{providers.OpenAIResponses, `{"type":"function_call","id":"fc","call_id":"c1","name":"mcp__fs__read_file","arguments":` + big + `}`, `"call_id":"c1"`},
		{providers.Anthropic, `{"type":"tool_use","id":"c1","name":"mcp__fs__read_file","input":` + deep + `}`, `"tool_use_id":"c1"`},
		{providers.Anthropic, `{"type":"tool_use","input":` + big + `,"id":"c1","name":"mcp__fs__read_file"}`, `"tool_use_id":"c1"`},
		{providers.Gemini, `{"functionCall":{"args":` + deep + `,"id":"c1","name":"mcp__fs__read_file"}}`, `"id":"c1","name":"mcp__fs__read_file"`},
	} {
		ts, err := providers.Convert(tc.f, readFileTools(), nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := ts.ParseCall([]byte(tc.call))
		if !errors.Is(err, providers.ErrInvalidArguments) || !strings.Contains(err.Error(), "over the limit") {
			t.Errorf("%s: error %v", tc.f, err)
		}
		if c == nil || c.ID != "c1" || c.Tool != "mcp__fs__read_file" || c.Arguments != nil {
			t.Errorf("%s: call %+v", tc.f, c)
			continue
		}
		if got := mustJSON(t, ts.Result(c, nil, err)); !strings.Contains(got, tc.want) {
			t.Errorf("%s: result %.200s, want it to hold %s", tc.f, got, tc.want)
		}
	}
}

package providers_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/providers"
)

// png is the start of a PNG file: results are not checked to be images.
var png = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

func mixedResult() *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "a chart:"},
		&mcp.ImageContent{MIMEType: "image/png", Data: png},
		&mcp.ImageContent{MIMEType: "image/tiff", Data: []byte("II*")},
		&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")},
		&mcp.ResourceLink{URI: "file:///r.txt", Name: "r.txt"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///n.txt", Text: "notes"}},
	}}
}

func TestResults(t *testing.T) {
	failed := errors.New(`host: tool "mcp__fs__read_file": policy denied: no writes`)
	structured := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: `{"sum":3}`}},
		StructuredContent: map[string]any{"sum": 3},
	}
	toolError := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such file"}}}
	for _, tc := range []struct {
		f    providers.Format
		call *providers.Call
		res  *mcp.CallToolResult
		err  error
		want string
	}{{
		f: providers.OpenAI, call: &providers.Call{ID: "call_1"}, res: mixedResult(),
		want: `{"role":"tool","tool_call_id":"call_1","content":"a chart:\n` +
			`[image image/png, 8 bytes: tool messages of the Chat Completions API carry text only]\n` +
			`[image image/tiff, 3 bytes: tool messages of the Chat Completions API carry text only]\n` +
			`[audio audio/wav, 4 bytes: not passed on]\n[resource link file:///r.txt: r.txt]\n[resource file:///n.txt]\nnotes"}`,
	}, {
		f: providers.OpenAI, call: &providers.Call{ID: "call_1"}, res: toolError,
		want: `{"role":"tool","tool_call_id":"call_1","content":"The tool failed: no such file"}`,
	}, {
		f: providers.OpenAI, call: &providers.Call{ID: "call_1"}, err: failed,
		want: `{"role":"tool","tool_call_id":"call_1","content":"The tool failed: host: tool \"mcp__fs__read_file\": policy denied: no writes"}`,
	}, {
		f: providers.OpenAIResponses, call: &providers.Call{ID: "call_2"}, res: structured,
		want: `{"type":"function_call_output","call_id":"call_2","output":"{\"sum\":3}"}`,
	}, {
		f: providers.OpenAIResponses, call: &providers.Call{ID: "call_2"}, res: mixedResult(),
		want: `{"type":"function_call_output","call_id":"call_2","output":[{"type":"input_text","text":"a chart:"},` +
			`{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo=","detail":"auto"},` +
			`{"type":"input_text","text":"[image image/tiff, 3 bytes: a type the provider does not take]"},` +
			`{"type":"input_text","text":"[audio audio/wav, 4 bytes: not passed on]"},` +
			`{"type":"input_text","text":"[resource link file:///r.txt: r.txt]"},{"type":"input_text","text":"[resource file:///n.txt]\nnotes"}]}`,
	}, {
		f: providers.Anthropic, call: &providers.Call{ID: "toolu_3"}, res: mixedResult(),
		want: `{"type":"tool_result","tool_use_id":"toolu_3","content":[{"type":"text","text":"a chart:"},` +
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},` +
			`{"type":"text","text":"[image image/tiff, 3 bytes: a type the provider does not take]"},` +
			`{"type":"text","text":"[audio audio/wav, 4 bytes: not passed on]"},` +
			`{"type":"text","text":"[resource link file:///r.txt: r.txt]"},{"type":"text","text":"[resource file:///n.txt]\nnotes"}]}`,
	}, {
		f: providers.Anthropic, call: &providers.Call{ID: "toolu_3"}, res: toolError,
		want: `{"type":"tool_result","tool_use_id":"toolu_3","content":[{"type":"text","text":"no such file"}],"is_error":true}`,
	}, {
		f: providers.Anthropic, call: &providers.Call{ID: "toolu_3"}, res: &mcp.CallToolResult{},
		want: `{"type":"tool_result","tool_use_id":"toolu_3"}`,
	}, {
		f: providers.Gemini, call: &providers.Call{ID: "g1", Name: "mcp__calc__add"}, res: structured,
		want: `{"functionResponse":{"id":"g1","name":"mcp__calc__add","response":{"output":{"sum":3}}}}`,
	}, {
		f: providers.Gemini, call: &providers.Call{Name: "mcp__fs__read_file"}, res: toolError,
		want: `{"functionResponse":{"name":"mcp__fs__read_file","response":{"error":"no such file"}}}`,
	}, {
		f: providers.Gemini, call: &providers.Call{Name: "mcp__fs__read_file"}, err: failed,
		want: `{"functionResponse":{"name":"mcp__fs__read_file","response":{"error":"host: tool \"mcp__fs__read_file\": policy denied: no writes"}}}`,
	}, {
		f: providers.MCP, call: &providers.Call{}, err: failed,
		want: `{"content":[{"type":"text","text":"Error: host: tool \"mcp__fs__read_file\": policy denied: no writes"}],"isError":true}`,
	}} {
		ts, err := providers.Convert(tc.f, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := mustJSON(t, ts.Result(tc.call, tc.res, tc.err)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.f, got, tc.want)
		}
	}
}

func TestResultImageLimits(t *testing.T) {
	big := &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 6<<20)}}}
	ts, _ := providers.Convert(providers.Anthropic, nil, nil)
	got := mustJSON(t, ts.Result(&providers.Call{ID: "t"}, big, nil))
	if !strings.Contains(got, "over the provider's limit of 5 MiB") || strings.Contains(got, `"image"`) {
		t.Errorf("a 6 MiB image for Anthropic: %.300s", got)
	}
	// A nil call and a nil result do not panic.
	for _, f := range providers.Formats() {
		ts, _ := providers.Convert(f, nil, nil)
		_ = mustJSON(t, ts.Result(nil, nil, nil))
	}
}

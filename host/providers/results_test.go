package providers_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/providers"
)

// tinyPNG is a 1x1 PNG file.
var tinyPNG = pngOf(1, 1)

func pngOf(w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func mixedResult() *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "a chart:"},
		&mcp.ImageContent{MIMEType: "image/png", Data: tinyPNG},
		&mcp.ImageContent{MIMEType: "image/tiff", Data: []byte("II*")},
		&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")},
		&mcp.ResourceLink{URI: "file:///r.txt", Name: "r.txt"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///n.txt", Text: "notes"}},
	}}
}

func TestResults(t *testing.T) {
	failed := errors.New(`host: tool "mcp__fs__read_file": policy denied: no writes`)
	pngData := base64.StdEncoding.EncodeToString(tinyPNG)
	pngLen := strconv.Itoa(len(tinyPNG))
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
			`[image image/png, ` + pngLen + ` bytes: tool messages of the Chat Completions API carry text only]\n` +
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
			`{"type":"input_image","image_url":"data:image/png;base64,` + pngData + `","detail":"auto"},` +
			`{"type":"input_text","text":"[image image/tiff, 3 bytes: its data is not a JPEG, PNG, GIF or WebP image]"},` +
			`{"type":"input_text","text":"[audio audio/wav, 4 bytes: not passed on]"},` +
			`{"type":"input_text","text":"[resource link file:///r.txt: r.txt]"},{"type":"input_text","text":"[resource file:///n.txt]\nnotes"}]}`,
	}, {
		f: providers.Anthropic, call: &providers.Call{ID: "toolu_3"}, res: mixedResult(),
		want: `{"type":"tool_result","tool_use_id":"toolu_3","content":[{"type":"text","text":"a chart:"},` +
			`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + pngData + `"}},` +
			`{"type":"text","text":"[image image/tiff, 3 bytes: its data is not a JPEG, PNG, GIF or WebP image]"},` +
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

// Providers check images when the request comes and refuse the whole
// request for one they do not take; the image stays in the conversation,
// so every later request would fail. Such images are described instead.
func TestResultImageLimits(t *testing.T) {
	// Anthropic's 5 MB are counted on the base64 text: 3,932,160 bytes
	// encode to 5,242,880, one byte more is over.
	padded := func(n int) []byte { return append(slices.Clone(tinyPNG), make([]byte, n-len(tinyPNG))...) }
	animated := &bytes.Buffer{}
	frame := image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.Black, color.White})
	if err := gif.EncodeAll(animated, &gif.GIF{Image: []*image.Paletted{frame, frame}, Delay: []int{1, 1}}); err != nil {
		t.Fatal(err)
	}
	still := &bytes.Buffer{}
	if err := gif.Encode(still, frame, nil); err != nil {
		t.Fatal(err)
	}
	img := func(mime string, data []byte) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{MIMEType: mime, Data: data}}}
	}
	for _, tc := range []struct {
		name   string
		f      providers.Format
		res    *mcp.CallToolResult
		sentAs string // the media type sent, "" when described
		why    string
	}{
		{"anthropic: 5 MB of base64 exactly", providers.Anthropic, img("image/png", padded(3_932_160)), "image/png", ""},
		{"anthropic: a byte more", providers.Anthropic, img("image/png", padded(3_932_161)), "", "5242884 bytes as base64, over the provider's limit of 5242880"},
		{"anthropic: the bytes' type wins", providers.Anthropic, img("image/jpeg", tinyPNG), "image/png", ""},
		{"anthropic: not an image", providers.Anthropic, img("image/png", []byte("<svg></svg>")), "", "not a JPEG, PNG, GIF or WebP image"},
		{"anthropic: a header that does not read", providers.Anthropic, img("image/png", tinyPNG[:20]), "", "not a readable PNG image"},
		{"anthropic: too wide", providers.Anthropic, img("image/png", pngOf(8001, 1)), "", "8001x1 pixels"},
		{"anthropic: a WebP too tall", providers.Anthropic, img("image/webp", webpOf(10, 9000)), "", "10x9000 pixels"},
		{"anthropic: a WebP", providers.Anthropic, img("image/webp", webpOf(10, 20)), "image/webp", ""},
		{"responses: an animated GIF", providers.OpenAIResponses, img("image/gif", animated.Bytes()), "", "animated GIF"},
		{"responses: a still GIF", providers.OpenAIResponses, img("image/gif", still.Bytes()), "image/gif", ""},
		{"anthropic: an animated GIF", providers.Anthropic, img("image/gif", animated.Bytes()), "image/gif", ""},
		{"responses: 20 MB of base64", providers.OpenAIResponses, img("image/png", padded(15_000_001)), "", "over the provider's limit of 20000000"},
	} {
		ts, _ := providers.Convert(tc.f, nil, nil)
		got := mustJSON(t, ts.Result(&providers.Call{ID: "c"}, tc.res, nil))
		sent := strings.Contains(got, `"media_type":"`+tc.sentAs+`"`) || strings.Contains(got, `"image_url":"data:`+tc.sentAs+`;`)
		if tc.sentAs != "" && !sent || tc.sentAs == "" && (strings.Contains(got, `"image"`) || strings.Contains(got, "input_image") || !strings.Contains(got, tc.why)) {
			t.Errorf("%s: %.300s", tc.name, got)
		}
	}
	// Images of one result together stay under the request's limits.
	many := &mcp.CallToolResult{}
	for range 6 {
		many.Content = append(many.Content, &mcp.ImageContent{MIMEType: "image/png", Data: padded(3_000_000)})
	}
	ts, _ := providers.Convert(providers.Anthropic, nil, nil)
	got := mustJSON(t, ts.Result(&providers.Call{ID: "c"}, many, nil))
	if n := strings.Count(got, `"type":"image"`); n != 5 || !strings.Contains(got, "limit for the images of one result") {
		t.Errorf("6 images of 4 MB of base64 to Anthropic: %d sent", n)
	}
	// An empty text part next to an image keeps its text: the Responses
	// API wants it.
	ts, _ = providers.Convert(providers.OpenAIResponses, nil, nil)
	got = mustJSON(t, ts.Result(&providers.Call{ID: "c"}, &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{}, &mcp.ImageContent{MIMEType: "image/png", Data: tinyPNG}}}, nil))
	if !strings.Contains(got, `{"type":"input_text","text":""}`) || strings.Contains(got, `"input_image","text"`) {
		t.Errorf("responses parts: %s", got)
	}
	// A nil call and a nil result do not panic.
	for _, f := range providers.Formats() {
		ts, _ := providers.Convert(f, nil, nil)
		_ = mustJSON(t, ts.Result(nil, nil, nil))
	}
}

// webpOf is the start of an extended WebP file of w x h pixels: as much as
// the size is read from.
func webpOf(w, h int) []byte {
	u24 := func(n int) []byte { return []byte{byte(n), byte(n >> 8), byte(n >> 16)} }
	d := []byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00")
	d = append(d, u24(w-1)...)
	return append(append(d, u24(h-1)...), make([]byte, 64)...)
}

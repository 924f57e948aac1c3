package builtin

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/pdk/abi"
)

// A file read the way server-filesystem answers it: the text twice, as
// text content and as structuredContent. Cutting only the text still
// handed the whole file on.
func TestTruncateBoundsStructuredContent(t *testing.T) {
	file := strings.Repeat("line of the file\n", 48<<10/17)
	in, _ := json.Marshal(map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": file}},
		"structuredContent": map[string]any{"content": file},
	})
	store := NewResultStore(0)
	resp, err := Truncate{MaxBytes: 300, Store: store}.TransformResult(context.Background(),
		&abi.TransformResultRequest{Server: "fs", Tool: "read_text_file", Result: in})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Result) > 300+1024 {
		t.Errorf("the caller gets %d bytes for max_bytes 300: %.200s", len(resp.Result), resp.Result)
	}
	var out map[string]any
	if err := json.Unmarshal(resp.Result, &out); err != nil {
		t.Fatal(err)
	}
	if _, ok := out["structuredContent"]; ok {
		t.Error("structuredContent that does not fit was passed on")
	}
	if !strings.Contains(string(resp.Result), "structuredContent") {
		t.Errorf("the marker does not say structuredContent was left out: %s", resp.Result)
	}
	if len(store.List()) != 1 {
		t.Fatalf("stored %d results, want 1", len(store.List()))
	}
	if r, _ := store.Get(store.List()[0].ID); string(r.JSON) != string(in) {
		t.Error("the stored result is not the full result")
	}
}

// Every kind of content counts: what does not fit is cut (texts, also of
// embedded resources) or left out whole (images, blobs, links, _meta,
// other fields), and the marker says which.
func TestTruncateBoundsEveryContentKind(t *testing.T) {
	big := strings.Repeat("<", 4000) // 6 bytes each once HTML-escaped
	in, _ := json.Marshal(map[string]any{
		"content": []any{
			map[string]any{"type": "resource_link", "uri": "file:///small", "name": "small"},
			map[string]any{"type": "image", "data": strings.Repeat("AAAA", 1000), "mimeType": "image/png"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///blob", "blob": strings.Repeat("AAAA", 1000)}},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///notes", "mimeType": "text/plain", "text": big}},
			map[string]any{"type": "audio", "data": strings.Repeat("AAAA", 1000), "mimeType": "audio/wav"},
		},
		"_meta":   map[string]any{"trace": big},
		"isError": true,
		"extra":   big,
	})
	const max = 500
	resp, err := Truncate{MaxBytes: max, Store: NewResultStore(0)}.TransformResult(context.Background(),
		&abi.TransformResultRequest{Server: "s", Tool: "t", Result: in})
	if err != nil {
		t.Fatal(err)
	}
	var res mcp.CallToolResult
	if err := res.UnmarshalJSON(resp.Result); err != nil {
		t.Fatalf("go-sdk refuses the truncated result: %v", err)
	}
	again, _ := json.Marshal(&res)
	if len(resp.Result) > max+TruncateEnvelopeBytes || len(again) > max+TruncateEnvelopeBytes {
		t.Errorf("%d bytes out, %d as go-sdk encodes them, for max_bytes %d", len(resp.Result), len(again), max)
	}
	if !res.IsError || res.Meta != nil {
		t.Errorf("isError %v, _meta %v: want isError kept and the large _meta left out", res.IsError, res.Meta)
	}
	var kinds []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.ResourceLink:
			kinds = append(kinds, "link "+c.URI)
		case *mcp.EmbeddedResource:
			if n := len(c.Resource.Text); n == 0 || n >= len(big) || strings.Trim(c.Resource.Text, "<") != "" {
				t.Errorf("embedded text of %d bytes, want a prefix of the text", n)
			}
			kinds = append(kinds, "resource "+c.Resource.URI)
		case *mcp.TextContent:
			kinds = append(kinds, "text")
			if !strings.Contains(c.Text, "left out: _meta, 1 other field, 3 content items;") {
				t.Errorf("marker: %s", c.Text)
			}
		default:
			t.Errorf("%T kept: it cannot fit", c)
		}
	}
	want := []string{"link file:///small", "resource file:///notes", "text", "link " + ResultURIPrefix}
	if len(kinds) != len(want) || !slices.Equal(kinds[:3], want[:3]) || !strings.HasPrefix(kinds[3], want[3]) {
		t.Fatalf("content kept: %v, want %v<id>", kinds, want)
	}
}

// The envelope holds in the worst case: every kind of part left out, long
// names, counts of many digits. It leaves room for the note the gateway
// adds to a schema tool's result that lost its structuredContent.
func TestTruncateEnvelopeWorstCase(t *testing.T) {
	huge := strings.Repeat("<", 1<<20)
	in, _ := json.Marshal(map[string]any{
		"content": []any{
			map[string]any{"type": "text", "text": huge},
			map[string]any{"type": "image", "data": "AAAA", "mimeType": "image/png"},
		},
		"structuredContent": map[string]any{"x": 1},
		"_meta":             map[string]any{"x": 1},
		"isError":           true,
		"extra":             1,
	})
	long := strings.Repeat("\x00<é", 1000)
	for _, store := range []*ResultStore{NewResultStore(0), NewResultStore(10)} {
		resp, err := Truncate{MaxBytes: 1, Store: store}.TransformResult(context.Background(),
			&abi.TransformResultRequest{Server: long, Tool: long, Result: in})
		if err != nil {
			t.Fatal(err)
		}
		const gatewayNote = 300
		if len(resp.Result)-1 > TruncateEnvelopeBytes-gatewayNote {
			t.Errorf("an envelope of %d bytes: %s", len(resp.Result)-1, resp.Result)
		}
	}
}

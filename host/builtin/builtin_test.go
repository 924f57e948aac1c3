package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/pdk/abi"
)

func TestGlobPolicy(t *testing.T) {
	p := GlobPolicy{Allow: []string{"mcp__fs__*", "git:status"}, Deny: []string{"*write*"}}
	for _, tc := range []struct {
		server, tool, name string
		want               abi.Decision
	}{
		{"fs", "read", "mcp__fs__read", abi.Allow},
		{"fs", "write_file", "mcp__fs__write_file", abi.Deny},
		{"git", "status", "mcp__git__status", abi.Allow},
		{"git", "push", "mcp__git__push", abi.Deny},
	} {
		d, err := p.Policy(context.Background(), &abi.PolicyRequest{Server: tc.server, Tool: tc.tool, Name: tc.name})
		if err != nil || d.Decision != tc.want {
			t.Errorf("%s: %+v %v, want %s", tc.name, d, err, tc.want)
		}
	}
	if (GlobPolicy{Deny: []string{"["}}).Validate() == nil {
		t.Error("bad glob accepted")
	}
}

// A '*' crosses '/', '.', ':' and '__': a server cannot hide a tool from a
// deny glob by putting a separator in its name (path.Match's '*' stops at '/').
func TestGlobPolicyStarCrossesSeparators(t *testing.T) {
	p := GlobPolicy{Deny: []string{"*delete*", "fs:*.rm", "*__drop?"}}
	for _, tc := range []struct {
		server, tool, name string
		want               abi.Decision
	}{
		{"fs", "fs/delete_file", "t1", abi.Deny},
		{"fs", "a.b.rm", "t2", abi.Deny},
		{"db", "x", "mcp__db__dropé", abi.Deny},
		{"db", "删除/delete", "t3", abi.Deny},
		{"fs", "read", "mcp__fs__read", abi.Allow},
	} {
		d, err := p.Policy(context.Background(), &abi.PolicyRequest{Server: tc.server, Tool: tc.tool, Name: tc.name})
		if err != nil || d.Decision != tc.want {
			t.Errorf("%s:%s: %+v %v, want %s", tc.server, tc.tool, d, err, tc.want)
		}
	}
}

// A deny written against the default names keeps matching when another
// scheme or a map_names plugin renames the tool.
func TestGlobPolicyMatchesDefaultNameAfterRenaming(t *testing.T) {
	p := GlobPolicy{Deny: []string{"mcp__ev__echo"}}
	d, err := p.Policy(context.Background(), &abi.PolicyRequest{Server: "ev", Tool: "echo", Name: "echo"})
	if err != nil || d.Decision != abi.Deny {
		t.Fatalf("renamed tool: %+v %v, want deny", d, err)
	}
}

func TestConfirmDestructive(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		c    ConfirmDestructive
		a    *abi.ToolAnnotations
		want abi.Decision
	}{
		{ConfirmDestructive{}, &abi.ToolAnnotations{DestructiveHint: &yes}, abi.Confirm},
		{ConfirmDestructive{}, &abi.ToolAnnotations{DestructiveHint: &no}, abi.Allow},
		{ConfirmDestructive{}, &abi.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: &yes}, abi.Allow},
		{ConfirmDestructive{}, nil, abi.Allow},
		{ConfirmDestructive{AssumeDestructive: true}, nil, abi.Confirm},
		{ConfirmDestructive{AssumeDestructive: true}, &abi.ToolAnnotations{}, abi.Confirm},
		{ConfirmDestructive{Except: []string{"s:t"}}, &abi.ToolAnnotations{DestructiveHint: &yes}, abi.Allow},
	} {
		d, _ := tc.c.Policy(context.Background(), &abi.PolicyRequest{Server: "s", Tool: "t", Name: "mcp__s__t", Annotations: tc.a})
		if d.Decision != tc.want {
			t.Errorf("%+v on %+v: %s, want %s", tc.c, tc.a, d.Decision, tc.want)
		}
	}
}

// The parts are kept in order while they fit: structuredContent (47 bytes
// with its key and comma), the image (54), then a text cut on a character
// boundary to the 27 bytes left ("h": "é" takes two more).
func TestTruncateCutsOnRuneBoundaryAndKeepsOtherContent(t *testing.T) {
	store := NewResultStore(0)
	in := `{"content":[{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"héllo wörld"},{"type":"text","text":"second"}],"structuredContent":{"n":12345678901234567890},"isError":true}`
	resp, err := Truncate{MaxBytes: 47 + 54 + 27 + 1, Store: store}.TransformResult(context.Background(), &abi.TransformResultRequest{Server: "s", Tool: "t", Result: json.RawMessage(in)})
	if err != nil {
		t.Fatal(err)
	}
	out := string(resp.Result)
	if !strings.Contains(out, `{"text":"h","type":"text"}`) || !strings.Contains(out, `"type":"image"`) || strings.Contains(out, "second") {
		t.Errorf("truncated = %s", out)
	}
	if !strings.Contains(out, "12345678901234567890") || !strings.Contains(out, `"isError":true`) {
		t.Errorf("other fields changed: %s", out)
	}
	if !strings.Contains(out, "showing 1 of 19 bytes of text; left out: 1 content item;") {
		t.Errorf("the marker does not say what was shown and left out: %s", out)
	}
	if !utf8.ValidString(out) {
		t.Error("invalid UTF-8")
	}
	if len(store.List()) != 1 {
		t.Fatalf("stored %d results", len(store.List()))
	}
	r, ok := store.Get(ResultURIPrefix + store.List()[0].ID)
	if !ok || string(r.JSON) != in {
		t.Errorf("stored = %s", r.JSON)
	}
	// Under the limit: unchanged, nothing stored.
	resp, _ = Truncate{MaxBytes: 1000, Store: store}.TransformResult(context.Background(), &abi.TransformResultRequest{Result: json.RawMessage(in)})
	if string(resp.Result) != in || len(store.List()) != 1 {
		t.Error("a small result was changed or stored")
	}
	if _, err := (Truncate{MaxBytes: 1}).TransformResult(context.Background(), &abi.TransformResultRequest{Result: json.RawMessage(`[1]`)}); err == nil {
		t.Error("a non-object result was accepted")
	}
}

func TestResultStoreEvictsOldest(t *testing.T) {
	s := NewResultStore(10)
	a := s.Put("s", "t", []byte("aaaa"))
	b := s.Put("s", "t", []byte("bbbb"))
	c := s.Put("s", "t", []byte("cccc"))
	if _, ok := s.Get(a); ok {
		t.Error("oldest not evicted")
	}
	for _, id := range []string{b, c} {
		if _, ok := s.Get(id); !ok {
			t.Errorf("%s evicted", id)
		}
	}
	if id := s.Put("s", "t", make([]byte, 11)); id != "" {
		t.Error("a result larger than the store was kept")
	}
	if a == b || len(a) != 24 {
		t.Errorf("ids %q %q", a, b)
	}
}

// Whatever the result, what Truncate hands on is JSON within MaxBytes plus
// the envelope, as it comes out and as go-sdk decodes and encodes it again
// (HTML escaped, numbers from float64) for the caller.
func FuzzTruncate(f *testing.F) {
	f.Add([]byte(`{"content":[{"type":"text","text":"héllo"}]}`), 3, "t")
	f.Add([]byte(`{"content":[{"type":"text","text":5},{"type":"text"},null,7]}`), 1, "t")
	f.Add([]byte(`null`), 0, "t")
	big := strings.Repeat("x", 2000)
	f.Add([]byte(`{"content":[{"type":"text","text":"`+strings.Repeat("<", 1000)+`"}],"structuredContent":{"content":"<&>\u2028`+big+`"}}`), 40, "t")
	f.Add([]byte(`{"content":[],"structuredContent":[1e20`+strings.Repeat(",1e20", 400)+`,9999999999999999999,1E-7]}`), 30, "t")
	f.Add([]byte(`{"content":[{"type":"image","data":"`+big+`","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///a","text":"`+big+`"}},`+
		`{"type":"resource","resource":{"uri":"file:///b","blob":"`+big+`"}},{"type":"resource_link","uri":"file:///c","name":"`+big+`"}],`+
		`"_meta":{"k":"`+big+`"},"isError":true,"resultType":"complete","other":"`+big+`"}`), 100, "t")
	f.Add([]byte(`{"content":[{"type":"text","text":"`+big+`"}]}`), 10, strings.Repeat("\x00<", 200))
	f.Fuzz(func(t *testing.T, data []byte, max int, tool string) {
		max %= 4096
		resp, err := Truncate{MaxBytes: max, Store: NewResultStore(1 << 16)}.TransformResult(context.Background(), &abi.TransformResultRequest{Server: "s", Tool: tool, Result: data})
		if err != nil {
			return
		}
		if json.Valid(data) && !json.Valid(resp.Result) {
			t.Fatalf("invalid JSON out: %s", resp.Result)
		}
		if max <= 0 {
			return
		}
		if len(resp.Result) > max+TruncateEnvelopeBytes {
			t.Fatalf("max_bytes %d: %d bytes out: %s", max, len(resp.Result), resp.Result)
		}
		var res mcp.CallToolResult
		if res.UnmarshalJSON(resp.Result) != nil {
			return // go-sdk refuses it: nothing reaches a caller
		}
		again, err := json.Marshal(&res)
		if err != nil {
			return
		}
		if len(again) > max+TruncateEnvelopeBytes {
			t.Fatalf("max_bytes %d: %d bytes as go-sdk encodes it: %s", max, len(again), again)
		}
	})
}

package plugins

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

func TestDecodeAnswers(t *testing.T) {
	filterReq := &abi.FilterToolsRequest{Tools: []abi.ToolInfo{{Name: "a"}, {Name: "b"}}}
	namesReq := &abi.MapNamesRequest{Tools: []abi.NameKey{{Server: "s", Tool: "a"}, {Server: "s", Tool: "b"}}}
	decode := map[abi.Hook]func([]byte) (any, error){
		abi.HookPolicy:          func(d []byte) (any, error) { return decodePolicy(d) },
		abi.HookFilterTools:     func(d []byte) (any, error) { return decodeFilterTools(filterReq, d) },
		abi.HookMapNames:        func(d []byte) (any, error) { return decodeMapNames(namesReq, d) },
		abi.HookTransformResult: func(d []byte) (any, error) { return decodeTransformResult(d) },
		abi.HookAuth:            func(d []byte) (any, error) { return decodeAuth(d) },
	}
	cases := []struct {
		hook abi.Hook
		out  string
		err  string // "" = valid
	}{
		{abi.HookPolicy, `{"decision":"allow"}`, ""},
		{abi.HookPolicy, ` {"decision":"confirm","reason":"sure?"} `, ""},
		{abi.HookPolicy, `{"decision":"deny","reason":"no","arguments":{"a":1}}`, ""},
		{abi.HookPolicy, `{"decision":"maybe"}`, `decision "maybe" is not`},
		{abi.HookPolicy, `{"reason":"x"}`, "no decision"},
		{abi.HookPolicy, `{"decision":"allow","arguments":[1]}`, "invalid output"},
		{abi.HookPolicy, `{"decision":"allow","extra":1}`, `unknown field "extra"`},
		{abi.HookPolicy, `{"decision":"allow"}{}`, "data after the JSON value"},
		{abi.HookPolicy, `null`, "no decision"},
		{abi.HookPolicy, ``, "empty output"},
		{abi.HookPolicy, `[`, "invalid output"},
		{abi.HookFilterTools, `{"tools":["b"]}`, ""},
		{abi.HookFilterTools, `{"tools":[]}`, ""},
		{abi.HookFilterTools, `{"tools":["c"]}`, `keeps tool "c", which is not in the list`},
		{abi.HookFilterTools, `{"tools":["a","a"]}`, `keeps tool "a" twice`},
		{abi.HookFilterTools, `{}`, `no "tools" list`},
		{abi.HookFilterTools, `{"tools":null}`, `no "tools" list`},
		{abi.HookMapNames, `{"names":["x","y"]}`, ""},
		{abi.HookMapNames, `{"names":["x"]}`, "gives 1 names for 2 tools"},
		{abi.HookMapNames, `{"names":null}`, `no "names" list`},
		{abi.HookTransformResult, `{"result":{"content":[{"type":"text","text":"hi"}],"isError":true}}`, ""},
		{abi.HookTransformResult, `{"result":{"content":[{"type":"teleport"}]}}`, "not a CallToolResult"},
		{abi.HookTransformResult, `{"result":"text"}`, "must be a CallToolResult object"},
		{abi.HookTransformResult, `{}`, "must be a CallToolResult object"},
		{abi.HookAuth, `{"headers":{"Authorization":"Bearer t"},"expires_in":30}`, ""},
		{abi.HookAuth, `{"headers":{}}`, ""},
		{abi.HookAuth, `{"headers":{"Bad Name":"x"}}`, `bad header name "Bad Name"`},
		{abi.HookAuth, `{"headers":{"X":"a\r\nInjected: 1"}}`, "control characters"},
		{abi.HookAuth, `{"headers":{"X":"v"},"expires_in":-1}`, "negative"},
		{abi.HookAuth, `{"expires_in":1}`, `no "headers" map`},
	}
	for _, tc := range cases {
		_, err := decode[tc.hook]([]byte(tc.out))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s %s: %v", tc.hook, tc.out, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s %s: error %v, want %q", tc.hook, tc.out, err, tc.err)
		}
	}
	// A credential in a bad header value is never quoted.
	if _, err := decodeAuth([]byte(`{"headers":{"X":"s3cret\n"}}`)); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("auth error %v", err)
	}
	// Guest text in reasons is made one-line.
	d, err := decodePolicy([]byte(`{"decision":"deny","reason":"a\nb\u0000c"}`))
	if err != nil || d.Reason != `a\nb\x00c` {
		t.Errorf("reason %q %v", d.Reason, err)
	}
	for _, h := range abi.Hooks {
		if _, err := DecodeOutput(h, []byte(`{}`)); err == nil && h != abi.HookMapNames {
			// {} is not a valid answer for any hook but... none.
			t.Errorf("%s accepted {}", h)
		}
	}
	if _, err := DecodeOutput("nope", []byte(`{}`)); err == nil {
		t.Error("unknown hook decoded")
	}
}

// FuzzDecodeOutput: arbitrary guest output never panics a decoder, and what
// a decoder accepts satisfies what the host relies on.
func FuzzDecodeOutput(f *testing.F) {
	for _, s := range []string{
		`{"decision":"allow"}`, `{"decision":"deny","arguments":{"a":[1,{"b":null}]}}`,
		`{"tools":["a"]}`, `{"names":["x","y"]}`, `{"result":{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}`,
		`{"headers":{"A":"b"},"expires_in":5}`, `{"result":{"structuredContent":{"x":1},"content":[]}}`,
		"\xff\xfe", `{"decision":"allow"} x`, `{"tools":null}`, `{"result":{"content":[{"type":"resource","resource":{"uri":"x"}}]}}`,
	} {
		for h := range abi.Hooks {
			f.Add(uint8(h), []byte(s))
		}
	}
	filterReq := &abi.FilterToolsRequest{Tools: []abi.ToolInfo{{Name: "a"}, {Name: "b"}}}
	namesReq := &abi.MapNamesRequest{Tools: []abi.NameKey{{Server: "s", Tool: "a"}, {Server: "s", Tool: "b"}}}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		switch abi.Hooks[int(which)%len(abi.Hooks)] {
		case abi.HookPolicy:
			d, err := decodePolicy(data)
			if err == nil && d.Decision != abi.Allow && d.Decision != abi.Deny && d.Decision != abi.Confirm {
				t.Fatalf("accepted decision %q", d.Decision)
			}
		case abi.HookFilterTools:
			r, err := decodeFilterTools(filterReq, data)
			if err == nil {
				for _, n := range r.Tools {
					if n != "a" && n != "b" {
						t.Fatalf("accepted unknown tool %q", n)
					}
				}
			}
		case abi.HookMapNames:
			r, err := decodeMapNames(namesReq, data)
			if err == nil && len(r.Names) != 2 {
				t.Fatalf("accepted %d names", len(r.Names))
			}
		case abi.HookTransformResult:
			if r, err := decodeTransformResult(data); err == nil && checkCallToolResult(r.Result) != nil {
				t.Fatal("accepted a result that does not check")
			}
		case abi.HookAuth:
			r, err := decodeAuth(data)
			if err == nil {
				for k, v := range r.Headers {
					if !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
						t.Fatalf("accepted header %q: %q", k, v)
					}
				}
			}
		}
		for _, h := range abi.Hooks {
			DecodeOutput(h, data)
		}
	})
}

// The requests the guests get decode to what encoding/json's encoding of
// them decodes to: the same JSON, whatever the strings hold.
func TestEncodeRequestLikeEncodingJSON(t *testing.T) {
	odd := "a<b>&c \u2028 \u2029 \x00 \x1f \"q\" \\ é ツ \xff\xfe end"
	reqs := []any{
		benchInputs[abi.HookPolicy], benchInputs[abi.HookFilterTools], benchInputs[abi.HookMapNames],
		benchInputs[abi.HookTransformResult], benchInputs[abi.HookAuth],
		&abi.PolicyRequest{Server: odd, Tool: odd, Name: odd,
			Arguments: map[string]any{odd: odd, "n": 1e21, "f": -0.000001, "i": float64(1 << 53), "z": nil, "l": []any{true, map[string]any{"b": 2, "a": 1}}},
			Meta:      map[string]any{"k": odd}},
		&abi.TransformResultRequest{Server: "s", Tool: "t", Name: "n", Arguments: map[string]any{"x": odd},
			Result: json.RawMessage(" {\"content\" : [ {\"type\":\"text\", \"text\":\"<&>\\u2028\"} ] } ")},
	}
	for i, req := range reqs {
		want, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeRequest(req)
		if err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		var a, b any
		if err := json.Unmarshal(want, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &b); err != nil {
			t.Fatalf("%d: %s: %v", i, got, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%d:\n%s\nencodes as\n%s", i, want, got)
		}
	}
	// A raw value that is not JSON is refused, as encoding/json does.
	if _, err := encodeRequest(&abi.TransformResultRequest{Result: json.RawMessage(`{"a":`)}); err == nil {
		t.Fatal("a broken raw result was encoded")
	}
}

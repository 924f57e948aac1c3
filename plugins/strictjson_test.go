package plugins

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

// encoding/json alone accepts each of these answers (it matches keys in any
// letter case and keeps the last of two equal keys); a plugin's answer is
// refused instead, so that the host never reads it otherwise than meant.
func TestAnswersDecodeStrictly(t *testing.T) {
	req := &abi.MapNamesRequest{Tools: []abi.NameKey{{Server: "s", Tool: "t"}}}
	cases := []struct {
		name, hook, answer, want string
	}{
		{"duplicate decision", "policy", `{"decision":"deny","decision":"allow"}`, `"decision" appears twice`},
		{"decision in capitals", "policy", `{"Decision":"allow"}`, `keys are case-sensitive, write "decision"`},
		{"unknown field", "policy", `{"decision":"allow","override":true}`, `unknown field "override"`},
		{"unknown decision", "policy", `{"decision":"permit"}`, `decision "permit" is not`},
		{"duplicate argument", "policy", `{"decision":"allow","arguments":{"cmd":"ls","cmd":"rm"}}`, `"arguments.cmd" appears twice`},
		{"names in capitals", "map_names", `{"Names":["a"]}`, `case-sensitive`},
		{"duplicate names", "map_names", `{"names":["a"],"names":["b"]}`, `appears twice`},
		{"duplicate in result", "transform_result", `{"result":{"content":[],"content":[{"type":"text","text":"x"}]}}`, `"result.content" appears twice`},
		{"result in capitals", "transform_result", `{"Result":{"content":[]}}`, `case-sensitive`},
		{"deeply nested", "policy", `{"decision":"allow","arguments":{"a":` + strings.Repeat("[", 1200) + strings.Repeat("]", 1200) + `}}`, "nest"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			switch tc.hook {
			case "policy":
				_, err = decodePolicy([]byte(tc.answer))
			case "map_names":
				_, err = decodeMapNames(req, []byte(tc.answer))
			case "transform_result":
				_, err = decodeTransformResult([]byte(tc.answer))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: err = %v, want one containing %q", tc.answer, err, tc.want)
			}
		})
	}
	if d, err := decodePolicy([]byte(`{"decision":"allow","reason":"ok","arguments":{"a":{"b":[1,{"c":2}]}}}`)); err != nil || d.Decision != abi.Allow {
		t.Fatalf("a good answer: %+v %v", d, err)
	}
}

func FuzzCheckKeys(f *testing.F) {
	f.Add(`{"decision":"allow","arguments":{"x":[1,2,{"y":null}]}}`)
	f.Add(`{"decision":"deny","decision":"allow"}`)
	f.Add(`{"Decision":"allow"}`)
	f.Fuzz(func(t *testing.T, answer string) {
		var d abi.PolicyDecision
		_ = strictUnmarshal([]byte(answer), &d) // must not panic or hang
	})
}

// FuzzStrictUnmarshal holds the fast path to the exact one: whatever it
// accepts, decodeExact accepts too, with the same value.
func FuzzStrictUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"decision":"allow","reason":"ok","arguments":{"a":{"b":[1,{"c":2.5e3}]},"s":"\u00e9\n"}}`,
		`{"decision":"deny","decision":"allow"}`,
		`{"Decision":"allow"}`,
		`{"names":["a","b"],"result":{"content":[{"type":"text","text":"x"}],"isError":false}}`,
		`{"headers":{"Authorization":"Bearer x"},"abi":1,"name":"n","hooks":["policy"]}`,
		`{"result":{"content":[],"structuredContent":{"k":[null,true,-0.0]}}}`,
		"{\"decision\":\"allow\",\"reason\":\"\xff\xfe\",\"arguments\":{\"k\xc3\":\"\xed\xa0\x80\"}}",
		`{"decision":"allow"} {}`,
		"{\"decision\":\"allow\",\"reason\":\"a\u2028b\"}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		data := []byte(answer)
		for _, newV := range []func() any{
			func() any { return new(abi.PolicyDecision) },
			func() any { return new(abi.FilterToolsResponse) },
			func() any { return new(abi.MapNamesResponse) },
			func() any { return new(abi.TransformResultResponse) },
			func() any { return new(abi.AuthResponse) },
			func() any { return new(abi.Description) },
			func() any { return new(abi.HTTPRequest) },
		} {
			fast, exact := newV(), newV()
			if !decodeFast(data, fast) {
				continue
			}
			if err := decodeExact(data, exact); err != nil {
				t.Fatalf("%T: the fast path accepted %q, the exact one says %v", fast, answer, err)
			}
			if !reflect.DeepEqual(fast, exact) {
				t.Fatalf("%T: %q decodes to\n%#v\nfast, and\n%#v\nexactly", fast, answer, fast, exact)
			}
		}
	})
}

package plugins

import (
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
				_, err = DecodePolicy([]byte(tc.answer))
			case "map_names":
				_, err = DecodeMapNames(req, []byte(tc.answer))
			case "transform_result":
				_, err = DecodeTransformResult([]byte(tc.answer))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: err = %v, want one containing %q", tc.answer, err, tc.want)
			}
		})
	}
	if d, err := DecodePolicy([]byte(`{"decision":"allow","reason":"ok","arguments":{"a":{"b":[1,{"c":2}]}}}`)); err != nil || d.Decision != abi.Allow {
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

package elicitform

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The schema of the conformance suite's SEP-1034 scenario.
var sep1034 = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":     map[string]any{"type": "string", "default": "John Doe"},
		"age":      map[string]any{"type": "integer", "default": 30},
		"score":    map[string]any{"type": "number", "default": 95.5},
		"status":   map[string]any{"type": "string", "enum": []any{"active", "inactive", "pending"}, "default": "active"},
		"verified": map[string]any{"type": "boolean", "default": true},
		"nickname": map[string]any{"type": "string"},
	},
	"required": []any{},
}

func TestDefaults(t *testing.T) {
	got, err := Defaults(sep1034)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "John Doe", "age": float64(30), "score": 95.5, "status": "active", "verified": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Defaults = %v, want %v", got, want)
	}
	// Raw JSON arrives the same way.
	raw, _ := json.Marshal(sep1034)
	got2, err := Defaults(json.RawMessage(raw))
	if err != nil || !reflect.DeepEqual(got2, want) {
		t.Errorf("Defaults(raw) = %v, %v", got2, err)
	}
	if got, err := Defaults(nil); err != nil || len(got) != 0 {
		t.Errorf("Defaults(nil) = %v, %v", got, err)
	}
	if _, err := Defaults([]int{1}); err == nil {
		t.Error("a non-object schema was accepted")
	}
}

func TestParseOrdersRequiredFirst(t *testing.T) {
	props, err := Parse(map[string]any{
		"properties": map[string]any{
			"b": map[string]any{"type": "string"}, "a": map[string]any{}, "z": map[string]any{"type": "boolean"},
			"pick": map[string]any{"oneOf": []any{map[string]any{"const": "x"}, map[string]any{"const": "y"}}},
		},
		"required": []any{"z"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range props {
		names = append(names, p.Name+":"+p.Type)
	}
	if got := strings.Join(names, " "); got != "z:boolean a:string b:string pick:string" {
		t.Errorf("order = %s", got)
	}
	if !reflect.DeepEqual(props[3].Enum, []string{"x", "y"}) {
		t.Errorf("oneOf consts = %v", props[3].Enum)
	}
}

func TestAsk(t *testing.T) {
	cases := []struct {
		name, input, action string
		want                map[string]any
	}{
		{"all defaults", "\n\n\n\n\n\n", "accept",
			map[string]any{"name": "John Doe", "age": float64(30), "score": 95.5, "status": "active", "verified": true}},
		// Properties are asked in name order: age, name, nickname, score, status, verified.
		{"typed answers", "41\nAda\nada\n1.5\npending\nno\n", "accept",
			map[string]any{"name": "Ada", "nickname": "ada", "age": int64(41), "score": 1.5, "status": "pending", "verified": false}},
		{"wrong answer asked again", "old\n41\n\n\n\nbogus\ninactive\ny\n", "accept",
			map[string]any{"name": "John Doe", "age": int64(41), "score": 95.5, "status": "inactive", "verified": true}},
		{"decline", "!decline\n", "decline", nil},
		{"cancel", "\n!cancel\n", "cancel", nil},
		{"end of input cancels", "x\n", "cancel", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			res, err := Ask(strings.NewReader(tc.input), &out, "Who are you?", sep1034)
			if err != nil {
				t.Fatal(err)
			}
			if res.Action != tc.action {
				t.Fatalf("action = %s, want %s\n%s", res.Action, tc.action, out.String())
			}
			if tc.want != nil && !reflect.DeepEqual(res.Content, tc.want) {
				t.Errorf("content = %#v\nwant %#v", res.Content, tc.want)
			}
			if !strings.Contains(out.String(), "Who are you?") {
				t.Error("the message was not shown")
			}
		})
	}
}

func TestAskRequiredField(t *testing.T) {
	schema := map[string]any{"properties": map[string]any{"token": map[string]any{"type": "string"}}, "required": []any{"token"}}
	var out strings.Builder
	res, err := Ask(strings.NewReader("\nabc\n"), &out, "token?", schema)
	if err != nil || res.Action != "accept" || res.Content["token"] != "abc" {
		t.Fatalf("got %+v %v", res, err)
	}
	if !strings.Contains(out.String(), "token is required") {
		t.Errorf("no hint for the empty required answer:\n%s", out.String())
	}
}

// FuzzParse feeds arbitrary JSON as a requested schema: servers send it, so
// it must never panic, and Defaults must agree with Parse.
func FuzzParse(f *testing.F) {
	raw, _ := json.Marshal(sep1034)
	f.Add(raw)
	f.Add([]byte(`{"properties":{"a":{"enum":[1,null,{"x":1}],"oneOf":[{"const":null}]}}}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"properties":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		props, err := Parse(json.RawMessage(data))
		defaults, derr := Defaults(json.RawMessage(data))
		if (err == nil) != (derr == nil) {
			t.Fatalf("Parse err %v, Defaults err %v", err, derr)
		}
		if err != nil {
			return
		}
		n := 0
		for _, p := range props {
			if p.Default != nil {
				n++
			}
			_ = prompt(p)
			_, _ = convert(p, fmt.Sprint(p.Default))
		}
		if n != len(defaults) {
			t.Fatalf("%d defaults in Parse, %d in Defaults", n, len(defaults))
		}
	})
}

package argcheck_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/argcheck"
)

// schema decodes a JSON schema as a client receives it.
func schema(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

const calcSchema = `{
	"type": "object",
	"properties": {
		"a": {"type": "number"},
		"b": {"type": "number", "description": "the second"},
		"n": {"type": "integer", "minimum": 1, "maximum": 10},
		"text": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"},
		"loud": {"type": "boolean"},
		"color": {"enum": ["red", "green", 3]},
		"opts": {"type": "object", "properties": {"depth": {"type": "integer"}}, "required": ["depth"], "additionalProperties": false},
		"tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
		"maybe": {"type": ["integer", "null"]},
		"either": {"type": ["boolean", "string"]},
		"free": {}
	},
	"required": ["a", "b"],
	"additionalProperties": false
}`

func TestAssignTypesValuesBySchema(t *testing.T) {
	t.Parallel()
	s := schema(t, calcSchema)
	got, err := argcheck.Assign(map[string]any{"a": 9.0, "text": "from --args"}, []string{
		"a=1", "b=-2.5e1", "n=3", "text=42", "loud=true", "color=3", "opts={\"depth\":2}",
		"tags=[\"x\"]", "maybe=null", "either=true", "free=7", "unlisted=8", "raw:=[1,{\"k\":null}]",
	}, s)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a": 1.0, "b": -25.0, "n": 3.0, "text": "42", "loud": true, "color": 3.0,
		"opts": map[string]any{"depth": 2.0}, "tags": []any{"x"}, "maybe": nil, "either": true,
		"free": "7", "unlisted": "8", "raw": []any{1.0, map[string]any{"k": nil}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Assign =\n%#v\nwant\n%#v", got, want)
	}
	// A union tries the narrow reading first, text last.
	got, _ = argcheck.Assign(nil, []string{"either=yes", "maybe=5", "color=red"}, s)
	if got["either"] != "yes" || got["maybe"] != 5.0 || got["color"] != "red" {
		t.Errorf("unions: %v", got)
	}
	// Without a schema everything is text, and := is JSON.
	got, _ = argcheck.Assign(nil, []string{"a=1", "b:=1", "c=", "d==x"}, nil)
	if !reflect.DeepEqual(got, map[string]any{"a": "1", "b": 1.0, "c": "", "d": "=x"}) {
		t.Errorf("without a schema: %v", got)
	}
}

func TestAssignErrors(t *testing.T) {
	t.Parallel()
	s := schema(t, calcSchema)
	for _, tc := range []struct {
		item, want string
	}{
		{"a=x", `argument a: "x" is not a number`},
		{"a=0x10", `argument a: "0x10" is not a number`},
		{"a=NaN", `argument a: "NaN" is not a number`},
		{"a=1e400", `argument a: "1e400" is out of range for a number`},
		{"n=1.5", `argument n: "1.5" is not an integer`},
		{"n=9007199254740993", `argument n: "9007199254740993" is too large to be sent exactly`},
		{"loud=yes", `argument loud: "yes" is not a boolean: write true or false`},
		{"opts=[1]", `argument opts: not an object: the JSON is an array`},
		{"opts={", `argument opts: not an object in JSON (unexpected end of JSON input`},
		{"maybe=x", `argument maybe: "x" is not an integer or null`},
		{"raw:={", `argument raw: not valid JSON after ":="`},
		{"novalue", `argument 1 has no "="`},
		{"=v", `argument 1 has no name before "="`},
		{":=1", `argument 1 has no name before "="`},
	} {
		_, err := argcheck.Assign(nil, []string{tc.item}, s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Assign(%q) = %v, want %q", tc.item, err, tc.want)
		}
	}
	_, err := argcheck.Assign(nil, []string{"a=1", "b=2", "a=3"}, s)
	if err == nil || err.Error() != "argument a is given twice" {
		t.Errorf("a key given twice: %v", err)
	}
	// The item without "=" is named by position, never shown: it may be
	// a secret typed in the wrong place.
	_, err = argcheck.Assign(nil, []string{"a=1", "s3cret-token"}, s)
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "argument 2") {
		t.Errorf("item without =: %v", err)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	s := schema(t, calcSchema)
	for _, tc := range []struct {
		args string
		want []string // problems, in order; nil: none
	}{
		{`{"a":1,"b":2}`, nil},
		{`{"a":1}`, []string{"missing required argument b (number)"}},
		{`{}`, []string{"missing required argument a (number)", "missing required argument b (number)"}},
		{`{"a":"1","b":2}`, []string{`argument a must be a number, not a string "1"`}},
		{`{"a":1,"b":2,"n":1.5}`, []string{"argument n must be an integer, not 1.5"}},
		{`{"a":1,"b":2,"n":0}`, []string{"argument n must be at least 1, not 0"}},
		{`{"a":1,"b":2,"n":11}`, []string{"argument n must be at most 10, not 11"}},
		{`{"a":1,"b":2,"text":"A"}`, []string{
			"argument text must have at least 2 characters, not 1",
			`argument text must match the pattern "^[a-z]+$", not "A"`}},
		{`{"a":1,"b":2,"color":"pink"}`, []string{`argument color must be one of "red", "green", 3, not "pink"`}},
		{`{"a":1,"b":2,"colour":"red"}`, []string{`unknown argument "colour": did you mean "color"?`}},
		{`{"a":1,"b":2,"zzz":1}`, []string{`unknown argument "zzz" (the tool takes a, b, color, either, free, loud, maybe, n, opts, tags, text)`}},
		{`{"a":1,"zzz":1}`, []string{"missing required argument b (number)", `unknown argument "zzz": did you mean "b"?`}},
		{`{"a":1,"b":2,"opts":{}}`, []string{"missing required argument opts.depth (integer)"}},
		{`{"a":1,"b":2,"opts":{"depth":1,"x":2}}`, []string{`unknown argument "opts.x" (the tool takes depth)`}},
		{`{"a":1,"b":2,"tags":["x",2,"z"]}`, []string{"argument tags must have at most 2 items, not 3", "argument tags[1] must be a string, not a number 2"}},
		{`{"a":1,"b":2,"maybe":null,"either":"x","free":[1]}`, nil},
		{`{"a":1,"b":2,"maybe":"x"}`, []string{`argument maybe must be an integer or null, not a string "x"`}},
		{`{"a":1,"b":null}`, []string{"argument b must be a number, not null"}},
	} {
		var args map[string]any
		if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
			t.Fatal(err)
		}
		err := argcheck.Check(s, args)
		if tc.want == nil {
			if err != nil {
				t.Errorf("Check(%s) = %v, want no problem", tc.args, err)
			}
			continue
		}
		e, ok := argcheck.AsError(err)
		if !ok {
			t.Errorf("Check(%s) = %v, want %q", tc.args, err, tc.want)
			continue
		}
		if !reflect.DeepEqual(e.Problems, tc.want) {
			t.Errorf("Check(%s) problems\n got %q\nwant %q", tc.args, e.Problems, tc.want)
		}
	}
}

// What the check does not understand, it lets pass: the server decides.
func TestCheckLetsUnknownKeywordsPass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ schema, args string }{
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`, `{"a":1}`},
		{`{"type":"object","properties":{"a":{"type":"file"}}}`, `{"a":1}`},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"(?<=x)y"}}}`, `{"a":"zzz"}`},
		{`{"type":"object","patternProperties":{"^x_":{}},"additionalProperties":false}`, `{"x_1":1}`},
		{`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"$ref":"#/x"}]}}}`, `{"a":1}`},
		{`{"type":"object","properties":{"a":{"type":"number","exclusiveMinimum":true,"minimum":0}}}`, `{"a":0}`},
		{`true`, `{"a":1}`},
		{`null`, `{"a":1}`},
		{`{"type":"object","required":[1,null]}`, `{}`},
	} {
		var args map[string]any
		if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
			t.Fatal(err)
		}
		if err := argcheck.Check(schema(t, tc.schema), args); err != nil {
			t.Errorf("Check(%s, %s) = %v, want it to pass", tc.schema, tc.args, err)
		}
	}
	// A schema given as raw JSON or as a Go value is read the same way.
	raw := json.RawMessage(`{"type":"object","required":["x"]}`)
	if err := argcheck.Check(raw, map[string]any{}); err == nil || err.Error() != "missing required argument x" {
		t.Errorf("raw schema: %v", err)
	}
	if err := argcheck.Check(json.RawMessage(`{`), map[string]any{}); err != nil {
		t.Errorf("a schema that is not JSON must check nothing: %v", err)
	}
}

func TestCheckAnyOfAndBounds(t *testing.T) {
	t.Parallel()
	s := schema(t, `{"type":"object","properties":{
		"id": {"anyOf": [{"type":"string","minLength":3}, {"type":"integer"}]},
		"x": {"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},
		"off": false,
		"nested": {"type":"object","additionalProperties":{"type":"integer"}},
		"generated": {"type":"object","properties":{"a":{}},"additionalProperties":{"not":{}}}
	}}`)
	args := map[string]any{"id": "ab", "x": 1.0, "off": 1.0, "nested": map[string]any{"k": "v"}, "generated": map[string]any{"b": 1.0}}
	e, ok := argcheck.AsError(argcheck.Check(s, args))
	if !ok {
		t.Fatal("want problems")
	}
	want := []string{
		`unknown argument "generated.b" (the tool takes a)`,
		`argument id ("ab") matches none of the 2 forms the schema allows`,
		`argument nested.k must be an integer, not a string "v"`,
		"argument off is not allowed",
		"argument x must be less than 1, not 1",
	}
	if !reflect.DeepEqual(e.Problems, want) {
		t.Errorf("problems\n got %q\nwant %q", e.Problems, want)
	}
	if argcheck.Check(s, map[string]any{"id": 5.0, "x": 0.5}) != nil {
		t.Error("valid arguments refused")
	}
}

func TestCheckBoundsProblems(t *testing.T) {
	t.Parallel()
	s := schema(t, `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}}}`)
	many := make([]any, 1000)
	for i := range many {
		many[i] = float64(i)
	}
	e, ok := argcheck.AsError(argcheck.Check(s, map[string]any{"l": many}))
	if !ok || len(e.Problems) != 21 || e.Problems[20] != "and more" {
		t.Errorf("1000 bad items: %d problems, want 20 and \"and more\"", len(e.Problems))
	}
}

func TestParamsAndLabel(t *testing.T) {
	t.Parallel()
	params, err := argcheck.Params(schema(t, calcSchema))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range params {
		got = append(got, fmt.Sprintf("%s:%s:%v", p.Name, p.Label, p.Required))
	}
	want := []string{
		"a:number:true", "b:number:true", `color:one of "red", "green", 3:false`, "either:boolean or string:false",
		"free::false", "loud:boolean:false", "maybe:integer or null:false", "n:integer:false",
		"opts:object:false", "tags:array of string:false", "text:string:false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Params\n got %q\nwant %q", got, want)
	}
	if params[1].Description != "the second" {
		t.Errorf("description of b: %q", params[1].Description)
	}
}

func ExampleAssign() {
	s := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"},"note":{"type":"string"}}}`)
	args, err := argcheck.Assign(nil, []string{"a=1", "b=2", "note=42", "extra:={\"k\":true}"}, s)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(args)
	fmt.Println(string(out))
	// Output: {"a":1,"b":2,"extra":{"k":true},"note":"42"}
}

func ExampleCheck() {
	s := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"],"additionalProperties":false}`)
	fmt.Println(argcheck.Check(s, map[string]any{"a": 1.0, "c": 2.0}))
	// Output: missing required argument b (number); unknown argument "c": did you mean "b"?
}

// Whatever is typed and whatever schema a server sends: no panic, the
// result encodes as JSON, and a key=value the schema types is checked
// clean for that type.
func FuzzAssign(f *testing.F) {
	f.Add("a=1\x00b:=[1]", calcSchema)
	f.Add("n=3\x00maybe=null\x00either=x", calcSchema)
	f.Add("x=\x00=\x00:=", `{"properties":{"x":{"type":["integer","string"]}}}`)
	f.Add("e=2", `{"properties":{"e":{"enum":[2,"2",null]}}}`)
	f.Add("d=1", `{"properties":{"d":{"anyOf":[{"type":"boolean"},{"anyOf":[{"type":"number"}]}]}}}`)
	f.Fuzz(func(t *testing.T, items, schemaJSON string) {
		var s any
		if json.Unmarshal([]byte(schemaJSON), &s) != nil {
			s = json.RawMessage(schemaJSON)
		}
		list := strings.Split(items, "\x00")
		args, err := argcheck.Assign(map[string]any{"base": 1.0}, list, s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if _, err := json.Marshal(args); err != nil {
			t.Fatalf("arguments do not encode: %v", err)
		}
		_ = argcheck.Check(s, args)
		_, _ = argcheck.Params(s)
	})
}

// Any schema against any arguments: no panic, and every problem is one
// non-empty line.
func FuzzCheck(f *testing.F) {
	f.Add(calcSchema, `{"a":1,"opts":{"x":1},"tags":[1,2,3]}`)
	f.Add(`{"type":["object"],"properties":{"a":{"allOf":[{"minimum":3},{"enum":[1]}]}}}`, `{"a":2}`)
	f.Add(`{"properties":{"a":{"items":{"items":{"type":"string"}}}}}`, `{"a":[[1]]}`)
	f.Fuzz(func(t *testing.T, schemaJSON, argsJSON string) {
		var args map[string]any
		if json.Unmarshal([]byte(argsJSON), &args) != nil {
			return
		}
		var s any
		if json.Unmarshal([]byte(schemaJSON), &s) != nil {
			return
		}
		warnings, err := argcheck.Review(s, args)
		oneLines(t, "warning", warnings)
		if err == nil {
			return
		}
		e, ok := argcheck.AsError(err)
		if !ok {
			t.Fatalf("not an *Error: %v", err)
		}
		oneLines(t, "problem", e.Problems)
	})
}

func oneLines(t *testing.T, what string, lines []string) {
	t.Helper()
	if len(lines) > 21 {
		t.Fatalf("%d %ss, want at most 21", len(lines), what)
	}
	for _, l := range lines {
		if l == "" || strings.Contains(l, "\n") {
			t.Fatalf("%s %q", what, l)
		}
	}
}

// Whatever names a server gives a prompt's arguments and a person types:
// no panic, one line per problem and warning, and a declared name given
// is never called unknown.
func FuzzReviewPrompt(f *testing.F) {
	f.Add("topic\x00style", "topic\x00stlye\x00x")
	f.Add("", "a")
	f.Add("a\x00A\x00a_", "A_\x00\n")
	f.Fuzz(func(t *testing.T, declaredNames, givenNames string) {
		var declared []argcheck.PromptArgument
		for i, n := range strings.Split(declaredNames, "\x00") {
			declared = append(declared, argcheck.PromptArgument{Name: n, Required: i%2 == 0})
		}
		given := map[string]string{}
		for _, n := range strings.Split(givenNames, "\x00") {
			given[n] = "v"
		}
		warnings, err := argcheck.ReviewPrompt(declared, given)
		oneLines(t, "warning", warnings)
		if e, ok := argcheck.AsError(err); ok {
			oneLines(t, "problem", e.Problems)
			for _, p := range e.Problems {
				for _, d := range declared {
					if _, ok := given[d.Name]; ok && strings.HasPrefix(p, "unknown argument "+strconv.Quote(d.Name)+":") {
						t.Fatalf("declared %q called unknown: %q", d.Name, p)
					}
				}
			}
		} else if err != nil {
			t.Fatalf("not an *Error: %v", err)
		}
	})
}

// The input schemas of server-everything's get-sum and server-filesystem's
// read_text_file, as those servers send them: no additionalProperties.
const (
	getSumSchema   = `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`
	readFileSchema = `{"type":"object","properties":{"path":{"type":"string"},"head":{"type":"number"},"tail":{"type":"number"}},"required":["path"]}`
)

// An argument a schema does not declare, where the schema does not forbid
// others: a slip of the keys, or a name in place of a missing required
// one, is refused; any other name is sent with a warning.
func TestReviewUndeclaredArguments(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema, args string
		problems     []string
		warnings     []string
	}{
		{readFileSchema, `{"path":"x","haed":1}`, []string{`unknown argument "haed": did you mean "head"?`}, nil},
		{readFileSchema, `{"path":"x","Tail":1}`, []string{`unknown argument "Tail": did you mean "tail"?`}, nil},
		{readFileSchema, `{"path":"x","encoding":"utf-8"}`, nil,
			[]string{`argument "encoding" is not in the tool's input schema; it is sent as it is (the tool takes head, path, tail)`}},
		{readFileSchema, `{"path":"x","head":1}`, nil, nil},
		{getSumSchema, `{"a":1,"c":2}`, []string{"missing required argument b (number)", `unknown argument "c": did you mean "b"?`}, nil},
		{getSumSchema, `{"c":1,"d":2}`, []string{"missing required argument a (number)", "missing required argument b (number)",
			`unknown argument "c": did you mean "a" or "b"?`, `unknown argument "d": did you mean "a" or "b"?`}, nil},
		{getSumSchema, `{"a":1,"b":2,"c":3}`, nil, []string{`argument "c" is not in the tool's input schema; it is sent as it is (the tool takes a, b)`}},
		// Declared welcome, or nothing declared: no word.
		{`{"type":"object","properties":{"head":{}},"additionalProperties":true}`, `{"haed":1}`, nil, nil},
		{`{"type":"object","properties":{"head":{}},"additionalProperties":{"type":"number"}}`, `{"haed":1}`, nil, nil},
		{`{"type":"object"}`, `{"haed":1}`, nil, nil},
		// Forbidden: refused whether near or not.
		{`{"type":"object","properties":{"head":{}},"additionalProperties":false}`, `{"haed":1,"zzz":2}`,
			[]string{`unknown argument "haed": did you mean "head"?`, `unknown argument "zzz" (the tool takes head)`}, nil},
		// Nested objects follow the same rules.
		{`{"type":"object","properties":{"opts":{"type":"object","properties":{"depth":{}}}}}`, `{"opts":{"detph":1,"other":2}}`,
			[]string{`unknown argument "opts.detph": did you mean "depth"?`},
			[]string{`argument "opts.other" is not in the tool's input schema; it is sent as it is (the tool takes depth)`}},
	} {
		var args map[string]any
		if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
			t.Fatal(err)
		}
		warnings, err := argcheck.Review(schema(t, tc.schema), args)
		var problems []string
		if e, ok := argcheck.AsError(err); ok {
			problems = e.Problems
		} else if err != nil {
			t.Fatalf("Review(%s, %s): %v", tc.schema, tc.args, err)
		}
		if !reflect.DeepEqual(problems, tc.problems) || !reflect.DeepEqual(warnings, tc.warnings) {
			t.Errorf("Review(%s, %s)\n problems %q\n     want %q\n warnings %q\n     want %q", tc.schema, tc.args, problems, tc.problems, warnings, tc.warnings)
		}
	}
}

// Many undeclared names against many declared ones: the comparisons stop
// at a bound, and what was not compared is refused, not let through.
func TestReviewBoundsUndeclaredNames(t *testing.T) {
	t.Parallel()
	props := map[string]any{}
	for i := range 20_000 {
		props[fmt.Sprintf("declared_argument_%05d", i)] = map[string]any{}
	}
	args := map[string]any{}
	for i := range 10_000 {
		args[fmt.Sprintf("other_%05d", i)] = 1.0
	}
	warnings, err := argcheck.Review(map[string]any{"type": "object", "properties": props}, args)
	e, ok := argcheck.AsError(err)
	if !ok || len(e.Problems) != 1 || !strings.HasPrefix(e.Problems[0], "more than 64 arguments that the input schema does not declare") {
		t.Fatalf("Review = %v", err)
	}
	if len(warnings) != 21 || warnings[20] != "and more" {
		t.Errorf("%d warnings, want 20 and \"and more\"", len(warnings))
	}
}

func TestReviewPrompt(t *testing.T) {
	t.Parallel()
	declared := []argcheck.PromptArgument{{Name: "topic", Required: true}, {Name: "style"}}
	for _, tc := range []struct {
		args     map[string]string
		problems []string
		warnings []string
	}{
		{map[string]string{"topic": "x"}, nil, nil},
		{map[string]string{}, []string{"missing required argument topic"}, nil},
		{map[string]string{"topic": "x", "stlye": "y"}, []string{`unknown argument "stlye": did you mean "style"?`}, nil},
		{map[string]string{"subject": "x"}, []string{"missing required argument topic", `unknown argument "subject": did you mean "topic"?`}, nil},
		{map[string]string{"topic": "x", "lang": "de"}, nil, []string{`argument "lang" is not one the prompt declares; it is sent as it is (the prompt takes style, topic)`}},
	} {
		warnings, err := argcheck.ReviewPrompt(declared, tc.args)
		var problems []string
		if e, ok := argcheck.AsError(err); ok {
			problems = e.Problems
		}
		if !reflect.DeepEqual(problems, tc.problems) || !reflect.DeepEqual(warnings, tc.warnings) {
			t.Errorf("ReviewPrompt(%v)\n problems %q\n     want %q\n warnings %q\n     want %q", tc.args, problems, tc.problems, warnings, tc.warnings)
		}
	}
}

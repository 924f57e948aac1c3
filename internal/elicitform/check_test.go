package elicitform

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	ok := []string{
		`null`,
		`{"type":"object"}`,
		`{"type":"object","properties":{"name":{"type":"string","format":"email","minLength":1,"maxLength":9,"default":"a@b"}}}`,
		`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":3,"default":2},"ok":{"type":"boolean","default":true}}}`,
		`{"type":"object","properties":{"e":{"type":"string","enum":["a","b"],"enumNames":["A","B"]}}}`,
		`{"type":"object","properties":{"e":{"type":"string","oneOf":[{"const":"a","title":"A"}]}}}`,
		`{"type":"object","properties":{"m":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}`,
		`{"type":"object","properties":{"m":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}}}`,
		// What schema generators write (go-sdk's jsonschema.For, zod).
		`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`,
		// What go-sdk's own check refuses and the specification allows.
		`{"type":"object","properties":{"m":{"type":"array","items":{"type":"string","anyOf":[{"const":"a","title":"A"}]}}}}`,
	}
	for _, s := range ok {
		if _, err := Check(json.RawMessage(s)); err != nil {
			t.Errorf("Check(%s): %v; want it accepted", s, err)
		}
	}
	bad := map[string]string{
		`{"type":"array"}`: "must be an object",
		`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"string"}}}}}`:         `keyword "properties"`,
		`{"type":"object","properties":{"x":{"type":"null"}}}`:                                                "not allowed",
		`{"type":"object","properties":{"x":{"type":"string","format":"regex"}}}`:                             "format",
		`{"type":"object","properties":{"x":{"type":"string","minLength":3,"maxLength":2}}}`:                  "maxLength",
		`{"type":"object","properties":{"x":{"type":"number","minimum":3,"maximum":2}}}`:                      "maximum",
		`{"type":"object","properties":{"x":{"type":"boolean","default":"yes"}}}`:                             "default",
		`{"type":"object","properties":{"x":{"type":"string","enum":["a"],"enumNames":["A","B"]}}}`:           "enumNames",
		`{"type":"object","properties":{"x":{"type":"string","oneOf":[{"const":"a"}]}}}`:                      "title",
		`{"type":"object","properties":{"x":{"type":"array"}}}`:                                               "items",
		`{"type":"object","properties":{"x":{"type":"array","items":{"type":"integer"}}}}`:                    "strings",
		`{"type":"object","properties":{"x":{"type":"array","items":{"type":"string"}}}}`:                     "enum or anyOf",
		`{"type":"object","properties":{"x":{"type":"array","items":{"anyOf":[{"const":1,"title":"One"}]}}}}`: "non-empty string",
		// What the specification keeps out of forms, by the back door.
		`{"type":"object","allOf":[{"properties":{"o":{"type":"object"}}}]}`:                                                  `keyword "allOf"`,
		`{"type":"object","additionalProperties":{"type":"object"}}`:                                                          "only be true or false",
		`{"type":"object","$defs":{"x":{}},"properties":{"x":{"$ref":"#/$defs/x"}}}`:                                          `keyword "$defs"`,
		`{"type":["object","null"]}`:                                                                                          "must be an object",
		`{"type":"object","properties":{"x":{"type":"string","anyOf":[{"type":"object"}]}}}`:                                  `keyword "anyOf"`,
		`{"type":"object","properties":{"x":{"type":"string","oneOf":[]}}}`:                                                   "non-empty list",
		`{"type":"object","properties":{"x":{"type":"string","enum":[1,2]}}}`:                                                 "must be strings",
		`{"type":"object","properties":{"x":{"type":"array","items":{"enum":[{"a":1}]}}}}`:                                    "must be strings",
		`{"type":"object","properties":{"x":{"type":"array","items":{"anyOf":[{"const":"a","title":"A","properties":{}}]}}}}`: `keyword "properties"`,
	}
	for s, want := range bad {
		_, err := Check(json.RawMessage(s))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%s): %v; want an error about %q", s, err, want)
		}
	}
	var many strings.Builder
	many.WriteString(`{"type":"object","properties":{`)
	for i := range maxElicitFields + 1 {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`"f` + strings.Repeat("x", i) + `":{"type":"string"}`)
	}
	many.WriteString(`}}`)
	if _, err := Check(json.RawMessage(many.String())); err == nil {
		t.Errorf("a form of %d fields was accepted", maxElicitFields+1)
	}
}

// A server's form is outside input: no form panics the check.
func FuzzCheck(f *testing.F) {
	f.Add(`{"type":"object","properties":{"m":{"type":"array","items":{"type":"string","anyOf":[{"const":"a","title":"A"}]}}}}`)
	f.Add(`{"type":"object","properties":{"e":{"type":"string","enum":["a"],"enumNames":["A"],"default":"a"}}}`)
	f.Add(`{"properties":{"n":{"type":"number","minimum":1,"maximum":0}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		// What the check passes is resolved next (answers are checked
		// against it): neither may panic.
		if sch, err := Check(json.RawMessage(s)); err == nil && sch != nil {
			_, _ = sch.Resolve(nil)
		}
	})
}

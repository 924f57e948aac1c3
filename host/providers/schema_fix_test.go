package providers_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/providers"
)

// What a schema sent with strict false holds that OpenAI refuses anyway
// (an array without items: "array schema missing items", for the whole
// request) is fixed; the rest is sent as written.
func TestOpenAINonStrictFixes(t *testing.T) {
	runSchemaCases(t, providers.OpenAI, []schemaCase{{
		name:   "an array without items gets items {}",
		schema: `{"type":"object","properties":{"tags":{"type":"array"}}}`,
		want:   `{"type":"object","properties":{"tags":{"type":"array","items":{}}}}`,
		warns: []warn{{"/properties/tags/items", []string{"not strict-safe"}},
			{"/properties/tags/items", []string{"OpenAI refuses an array without items"}}},
	}, {
		name:   "also deep inside what makes the schema non-strict",
		schema: `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":["array","null"]}}}}`,
		want:   `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":["array","null"],"items":{}}}}}`,
		warns:  []warn{{"/properties/m/additionalProperties/items", []string{"items {}"}}},
	}, {
		name:   "a tuple becomes an array of the common type, its order told",
		schema: `{"type":"object","properties":{"pt":{"type":"array","items":[{"type":"number"},{"type":"number"}],"additionalItems":false}}}`,
		want: `{"type":"object","properties":{"pt":{"type":"array","items":{"type":"number"},
			"description":"Elements in order: [{\"type\":\"number\"},{\"type\":\"number\"}]."}}}`,
		warns: []warn{{"/properties/pt/items", []string{"tuples", "of type number"}}},
	}, {
		name: "draft 4 bounds, non-schema properties, draft 3 required",
		schema: `{"type":"object","required":["n","n"],"properties":{"m":{"type":"object","additionalProperties":{}},"x":"number",
			"n":{"type":"number","minimum":0,"exclusiveMinimum":true,"required":true}}}`,
		want: `{"type":"object","required":["n"],"properties":{"m":{"type":"object","additionalProperties":{}},
			"n":{"type":"number","exclusiveMinimum":0}}}`,
		warns: []warn{{"/properties/x", []string{"where a schema belongs", "dropped"}}, {"/properties/n/required", []string{"not a list of names"}}},
	}})
	// NonStrict: the same fixes, nothing else.
	c := convertSchema(t, providers.OpenAIResponses, "t", `{"type":"object","properties":{"tags":{"type":"array"}}}`,
		&providers.Options{NonStrict: true})
	if got := mustJSON(t, c.params); c.strict || got != `{"properties":{"tags":{"items":{},"type":"array"}},"type":"object"}` {
		t.Errorf("NonStrict: strict %v, %s", c.strict, got)
	}
}

// Anthropic validates input_schema against JSON Schema draft 2020-12 and
// refuses the whole request for a schema that breaks it.
func TestAnthropicNormalizes(t *testing.T) {
	runSchemaCases(t, providers.Anthropic, []schemaCase{{
		name:   "a property whose schema is not a schema is dropped",
		schema: `{"type":"object","properties":{"x":"number","y":{"type":"string"}}}`,
		want:   `{"type":"object","properties":{"y":{"type":"string"}}}`,
		warns:  []warn{{"/properties/x", []string{"a JSON string where a schema belongs"}}},
	}, {
		name: "draft 4's boolean exclusive bounds take the numeric form",
		schema: `{"type":"object","properties":{"n":{"type":"integer","maximum":10,"exclusiveMaximum":true},
			"o":{"type":"integer","minimum":1,"exclusiveMinimum":false}}}`,
		want: `{"type":"object","properties":{"n":{"type":"integer","exclusiveMaximum":10},"o":{"type":"integer","minimum":1}}}`,
	}, {
		name:   "a draft 7 tuple becomes prefixItems",
		schema: `{"type":"object","properties":{"pt":{"type":"array","items":[{"type":"number"},{"type":"string"}],"additionalItems":false}}}`,
		want:   `{"type":"object","properties":{"pt":{"type":"array","prefixItems":[{"type":"number"},{"type":"string"}],"items":false}}}`,
		warns:  []warn{{"/properties/pt/items", []string{"prefixItems"}}},
	}, {
		name:   "required: true on a property is dropped, required names listed once",
		schema: `{"type":"object","required":["a","a"],"properties":{"a":{"type":"string","required":true}}}`,
		want:   `{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}`,
		warns:  []warn{{"/properties/a/required", []string{"not a list of names"}}},
	}, {
		name:   "counts that are not non-negative integers are dropped; 2.0 is 2",
		schema: `{"type":"object","properties":{"s":{"type":"string","minLength":1.5,"maxLength":2.0,"pattern":7}}}`,
		want:   `{"type":"object","properties":{"s":{"type":"string","maxLength":2}}}`,
		warns:  []warn{{"/properties/s/minLength", []string{"not a count"}}, {"/properties/s/pattern", []string{"takes a string"}}},
	}, {
		name:   "a type list keeps the JSON types, each once",
		schema: `{"type":"object","properties":{"v":{"type":["string","string","null","any"]}}}`,
		want:   `{"type":"object","properties":{"v":{"type":["string","null"]}}}`,
		warns:  []warn{{"/properties/v/type", []string{"each once"}}},
	}, {
		name: "a $ref into a top-level anyOf merged away is dropped",
		schema: `{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},
			{"type":"object","properties":{"b":{"$ref":"#/anyOf/0/properties/a"},"c":{"$ref":"#/properties/a"}}}]}`,
		want:  `{"type":"object","required":[],"properties":{"a":{"type":"string"},"b":{},"c":{"$ref":"#/properties/a"}}}`,
		warns: []warn{{"/anyOf", []string{"merged"}}, {"/properties/b/$ref", []string{"points to nothing"}}},
	}})
}

func TestStrictSchemaFixes(t *testing.T) {
	enum := func(n, size int) string {
		vals := make([]string, n)
		for i := range vals {
			vals[i] = `"` + strconv.Itoa(i) + strings.Repeat("v", size) + `"`
		}
		return `[` + strings.Join(vals, ",") + `]`
	}
	runSchemaCases(t, providers.OpenAI, []schemaCase{{
		name:   "enum values of another type: not strict",
		schema: `{"type":"object","properties":{"e":{"type":"string","enum":[1,2]}},"required":["e"]}`,
		want:   `{"type":"object","properties":{"e":{"type":"string","enum":[1,2]}},"required":["e"]}`,
		warns:  []warn{{"/properties/e/enum", []string{"does not match the type string", "strict false"}}},
	}, {
		name:   "an empty enum is dropped, not made [null]",
		schema: `{"type":"object","properties":{"e":{"type":"string","enum":[]}}}`,
		want:   `{"type":"object","additionalProperties":false,"required":["e"],"properties":{"e":{"type":["string","null"]}}}`,
		strict: true,
		warns:  []warn{{"/properties/e/enum", []string{"empty enum"}}},
	}, {
		name:   "types, enum values and required names each once",
		schema: `{"type":"object","properties":{"a":{"type":["string","string"]},"b":{"type":"string","enum":["x","x"]}},"required":["a","a"]}`,
		want: `{"type":"object","additionalProperties":false,"required":["a","b"],
			"properties":{"a":{"type":"string"},"b":{"type":["string","null"],"enum":["x",null]}}}`,
		strict: true,
	}, {
		name:   "counts that are not integers are dropped",
		schema: `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"},"minItems":1.5,"maxItems":3.0}},"required":["l"]}`,
		want: `{"type":"object","additionalProperties":false,"required":["l"],
			"properties":{"l":{"type":"array","items":{"type":"string"},"maxItems":3}}}`,
		strict: true,
		warns:  []warn{{"/properties/l/minItems", []string{"not a count"}}},
	}, {
		name:   "more than 250 strings of more than 15,000 characters: not strict",
		schema: `{"type":"object","properties":{"e":{"type":"string","enum":` + enum(251, 60) + `}},"required":["e"]}`,
		want:   `{"type":"object","properties":{"e":{"type":"string","enum":` + enum(251, 60) + `}},"required":["e"]}`,
		warns:  []warn{{"/properties/e/enum", []string{"more than 250", "strict false"}}},
	}, {
		name:   "the nulls of optional enums count toward the 1000 values",
		schema: `{"type":"object","properties":{"a":{"type":"string","enum":` + enum(500, 1) + `},"b":{"type":"string","enum":` + enum(500, 1) + `}}}`,
		want:   `{"type":"object","properties":{"a":{"type":"string","enum":` + enum(500, 1) + `},"b":{"type":"string","enum":` + enum(500, 1) + `}}}`,
		warns:  []warn{{"", []string{"over strict mode's limits", "strict false"}}},
	}, {
		name:   "additionalProperties true beside properties is closed, with a warning",
		schema: `{"type":"object","additionalProperties":true,"properties":{"a":{"type":"string"}},"required":["a"]}`,
		want:   `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string"}}}`,
		strict: true,
		warns:  []warn{{"/additionalProperties", []string{"closes the object"}}},
	}, {
		name:   "a property whose schema is not a schema is dropped",
		schema: `{"type":"object","properties":{"x":"number","y":{"type":"string"}},"required":["x","y"]}`,
		want:   `{"type":"object","additionalProperties":false,"required":["y"],"properties":{"y":{"type":"string"}}}`,
		strict: true,
		warns:  []warn{{"/properties/x", []string{"a JSON string where a schema belongs"}}},
	}, {
		name:   "draft 4's boolean exclusiveMinimum takes the numeric form",
		schema: `{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}},"required":["n"]}`,
		want:   `{"type":"object","additionalProperties":false,"required":["n"],"properties":{"n":{"type":"number","exclusiveMinimum":0}}}`,
		strict: true,
	}, {
		name: "a $ref merged by allOf is not in use below the node: no false recursion",
		schema: `{"type":"object","$defs":{"Name":{"type":"object","properties":{"first":{"type":"string"}},"required":["first"]}},
			"properties":{"p":{"allOf":[{"$ref":"#/$defs/Name"},{"properties":{"friend":{"$ref":"#/$defs/Name"}},"required":["friend"]}]}},"required":["p"]}`,
		want: `{"type":"object","additionalProperties":false,"required":["p"],"properties":{"p":{"type":"object","additionalProperties":false,
			"required":["first","friend"],"properties":{"first":{"type":"string"},
			"friend":{"type":"object","additionalProperties":false,"required":["first"],"properties":{"first":{"type":"string"}}}}}}}`,
		strict: true,
	}})
}

func TestGeminiSchemaFixes(t *testing.T) {
	runSchemaCases(t, providers.Gemini, []schemaCase{{
		name: "counts must be non-negative integers within int64",
		schema: `{"type":"object","properties":{"s":{"type":"string","minLength":1.5,"maxLength":1e30},
			"l":{"type":"array","items":{"type":"string"},"minItems":2.0,"maxItems":-1}}}`,
		want: `{"type":"object","properties":{"s":{"type":"string"},"l":{"type":"array","items":{"type":"string"},"minItems":2}}}`,
		warns: []warn{{"/properties/s/minLength", []string{"not a count"}}, {"/properties/s/maxLength", []string{"not a count"}},
			{"/properties/l/maxItems", []string{"not a count"}}},
	}, {
		name:   "a property whose schema is not a schema is dropped; types once",
		schema: `{"type":"object","properties":{"x":"number","y":{"type":["string","string","null"]}}}`,
		want:   `{"type":"object","properties":{"y":{"type":"string","nullable":true}}}`,
		warns:  []warn{{"/properties/x", []string{"where a schema belongs"}}},
	}, {
		name:   "draft 4's boolean exclusiveMinimum is told",
		schema: `{"type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}`,
		want:   `{"type":"object","properties":{"n":{"type":"number","minimum":0,"description":"The minimum is exclusive."}}}`,
		warns:  []warn{{"/properties/n/exclusiveMinimum", []string{"description"}}},
	}})
}

func TestWarningString(t *testing.T) {
	for _, tc := range []struct {
		w    providers.Warning
		want string
	}{
		{providers.Warning{Tool: "t", Path: "/a", Message: "m"}, "t: /a: m"},
		{providers.Warning{Tool: "t", Message: "m"}, "t: m"},
		{providers.Warning{Message: "200 tools: filter them"}, "200 tools: filter them"},
	} {
		if got := tc.w.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.w, got, tc.want)
		}
	}
}

package providers_test

import (
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/providers"
)

// warn is a warning a conversion must give: at path, with these words.
type warn struct {
	path  string
	words []string
}

type schemaCase struct {
	name   string
	schema string // the tool's input schema, "" for none
	want   string // the converted parameters, "" for none
	strict bool   // OpenAI formats: sent in strict mode
	warns  []warn
}

func runSchemaCases(t *testing.T, f providers.Format, cases []schemaCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := convertSchema(t, f, "mcp__srv__tool", tc.schema, nil)
			got := ""
			if c.params != nil {
				got = mustJSON(t, c.params)
			}
			want := ""
			if tc.want != "" {
				want = canonical(t, tc.want)
			}
			if got != want {
				t.Errorf("parameters\n got %s\nwant %s", got, want)
			}
			if (f == providers.OpenAI || f == providers.OpenAIResponses) && c.strict != tc.strict {
				t.Errorf("strict = %v, want %v (warnings %v)", c.strict, tc.strict, c.warnings)
			}
			for _, w := range tc.warns {
				if !hasWarning(c.warnings, w.path, w.words...) {
					t.Errorf("no warning at %q saying %q; got %v", w.path, w.words, c.warnings)
				}
			}
			if len(tc.warns) == 0 && len(c.warnings) > 0 {
				t.Errorf("unexpected warnings: %v", c.warnings)
			}
		})
	}
}

func TestOpenAIStrictSchemas(t *testing.T) {
	runSchemaCases(t, providers.OpenAI, []schemaCase{{
		name:   "no schema: a tool without parameters",
		want:   `{"type":"object","properties":{},"required":[],"additionalProperties":false}`,
		strict: true,
	}, {
		name: "optional properties become nullable and required (server-filesystem read_file)",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
			"properties":{"path":{"type":"string"},"head":{"type":"number","description":"first N lines"}},"required":["path"]}`,
		want: `{"type":"object","additionalProperties":false,"required":["path","head"],
			"properties":{"path":{"type":"string"},"head":{"type":["number","null"],"description":"first N lines"}}}`,
		strict: true,
	}, {
		name:   "optional enum gets null in its values; default told in the description",
		schema: `{"type":"object","properties":{"sortBy":{"type":"string","enum":["name","size"],"default":"name"}}}`,
		want: `{"type":"object","additionalProperties":false,"required":["sortBy"],
			"properties":{"sortBy":{"type":["string","null"],"enum":["name","size",null],"description":"Default: \"name\"."}}}`,
		strict: true,
	}, {
		name: "local $ref inlined, nested objects closed",
		schema: `{"type":"object","$defs":{"Edit":{"type":"object","properties":{"old":{"type":"string"},"new":{"type":"string"}},"required":["old","new"]}},
			"properties":{"edits":{"type":"array","items":{"$ref":"#/$defs/Edit"}}},"required":["edits"]}`,
		want: `{"type":"object","additionalProperties":false,"required":["edits"],"properties":{"edits":{"type":"array","items":
			{"type":"object","additionalProperties":false,"required":["old","new"],"properties":{"old":{"type":"string"},"new":{"type":"string"}}}}}}`,
		strict: true,
	}, {
		name: "allOf merged, oneOf sent as anyOf",
		schema: `{"type":"object","required":["v"],"properties":{"v":{"oneOf":[{"type":"string"},{"type":"integer"}]}},
			"allOf":[{"properties":{"w":{"type":"boolean"}},"required":["w"]}]}`,
		want: `{"type":"object","additionalProperties":false,"required":["v","w"],
			"properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]},"w":{"type":"boolean"}}}`,
		strict: true,
		warns:  []warn{{"/properties/v/oneOf", []string{"anyOf"}}},
	}, {
		name:   "unsupported format and minLength told in the description",
		schema: `{"type":"object","properties":{"u":{"type":"string","format":"uri","minLength":1}},"required":["u"]}`,
		want: `{"type":"object","additionalProperties":false,"required":["u"],
			"properties":{"u":{"type":"string","description":"Format: \"uri\". minLength: 1."}}}`,
		strict: true,
		warns:  []warn{{"/properties/u/format", []string{"uri"}}, {"/properties/u/minLength", []string{"description"}}},
	}, {
		name:   "const becomes a one-value enum, also when optional",
		schema: `{"type":"object","properties":{"kind":{"const":"file","enum":["file","dir"]},"v":{"type":"integer","const":2}},"required":["kind"]}`,
		want: `{"type":"object","additionalProperties":false,"required":["kind","v"],
			"properties":{"kind":{"type":"string","enum":["file"]},"v":{"type":["integer","null"],"enum":[2,null]}}}`,
		strict: true,
	}, {
		name:   "already nullable optional property",
		schema: `{"type":"object","properties":{"n":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`,
		want: `{"type":"object","additionalProperties":false,"required":["n"],
			"properties":{"n":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`,
		strict: true,
	}, {
		name:   "a map (additionalProperties schema) is sent non-strict, as written",
		schema: `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`,
		want:   `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`,
		warns:  []warn{{"/properties/env/additionalProperties", []string{"not strict-safe", "strict false"}}},
	}, {
		name:   "patternProperties is sent non-strict",
		schema: `{"type":"object","properties":{"h":{"type":"object","patternProperties":{"^x-":{"type":"string"}}}}}`,
		want:   `{"type":"object","properties":{"h":{"type":"object","patternProperties":{"^x-":{"type":"string"}}}}}`,
		warns:  []warn{{"/properties/h/patternProperties", []string{"strict false"}}},
	}, {
		name: "a recursive $ref is sent non-strict with its $defs",
		schema: `{"type":"object","$defs":{"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}},
			"properties":{"root":{"$ref":"#/$defs/Node"}}}`,
		want: `{"type":"object","$defs":{"Node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}},
			"properties":{"root":{"$ref":"#/$defs/Node"}}}`,
		warns: []warn{{"/$defs/Node/properties/kids/items", []string{"recursive"}}},
	}, {
		name:   "a property without a type is sent non-strict",
		schema: `{"type":"object","properties":{"value":{"description":"anything"}}}`,
		want:   `{"type":"object","properties":{"value":{"description":"anything"}}}`,
		warns:  []warn{{"/properties/value", []string{"without a type"}}},
	}, {
		name:   "a top-level $ref is resolved",
		schema: `{"$ref":"#/definitions/Args","definitions":{"Args":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}}`,
		want:   `{"type":"object","additionalProperties":false,"required":["q"],"properties":{"q":{"type":"string"}}}`,
		strict: true,
	}, {
		name: "a top-level anyOf is merged into one object",
		schema: `{"anyOf":[{"type":"object","properties":{"id":{"type":"string"},"all":{"type":"boolean"}},"required":["id","all"]},
			{"type":"object","properties":{"name":{"type":"string"},"all":{"type":"boolean"}},"required":["name","all"]}]}`,
		want: `{"type":"object","additionalProperties":false,"required":["all","id","name"],"properties":{
			"all":{"type":"boolean"},"id":{"type":["string","null"]},"name":{"type":["string","null"]}}}`,
		strict: true,
		warns:  []warn{{"/anyOf", []string{"merged into one object"}}},
	}})
}

func TestGeminiSchemas(t *testing.T) {
	runSchemaCases(t, providers.Gemini, []schemaCase{{
		name:   "no properties: parameters left out",
		schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{}}`,
	}, {
		name: "type arrays and null alternatives become nullable, const a one-value enum",
		schema: `{"type":"object","properties":{
			"a":{"type":["string","null"]},
			"b":{"anyOf":[{"type":"integer"},{"type":"null"}]},
			"c":{"const":"fixed"}},"required":["c"]}`,
		want: `{"type":"object","required":["c"],"properties":{
			"a":{"type":"string","nullable":true},
			"b":{"type":"integer","nullable":true},
			"c":{"type":"string","enum":["fixed"]}}}`,
	}, {
		name:   "several types become anyOf",
		schema: `{"type":"object","properties":{"v":{"type":["string","number"],"description":"a value"}}}`,
		want:   `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"}],"description":"a value"}}}`,
	}, {
		name: "$ref resolved; a recursive one approximated by an object",
		schema: `{"type":"object","definitions":{"Node":{"type":"object","description":"a node","properties":{
			"name":{"type":"string"},"kids":{"type":"array","items":{"$ref":"#/definitions/Node"}}}}},
			"properties":{"root":{"$ref":"#/definitions/Node"}}}`,
		want: `{"type":"object","properties":{"root":{"type":"object","description":"a node","properties":{
			"name":{"type":"string"},"kids":{"type":"array","items":{"type":"object","description":"a node"}}}}}}`,
		warns: []warn{{"/definitions/Node/properties/kids/items", []string{"recursive", "object"}}},
	}, {
		name: "oneOf becomes anyOf; additionalProperties and examples dropped",
		schema: `{"type":"object","additionalProperties":false,"properties":{"x":{"oneOf":[
			{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false,"examples":[{"a":"b"}]},
			{"type":"boolean"}]}}}`,
		want:  `{"type":"object","properties":{"x":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"boolean"}]}}}`,
		warns: []warn{{"/properties/x/oneOf", []string{"anyOf"}}},
	}, {
		name: "what Gemini lacks is told in the description",
		schema: `{"type":"object","properties":{
			"level":{"type":"integer","enum":[1,2,3]},
			"ratio":{"type":"number","exclusiveMinimum":0,"default":0.5},
			"url":{"type":"string","format":"uri"}}}`,
		want: `{"type":"object","properties":{
			"level":{"type":"integer","description":"Allowed values: [1,2,3]."},
			"ratio":{"type":"number","description":"Default: 0.5. exclusiveMinimum: 0."},
			"url":{"type":"string","description":"Format: \"uri\"."}}}`,
		warns: []warn{{"/properties/level/enum", []string{"strings"}}, {"/properties/ratio/exclusiveMinimum", []string{"description"}},
			{"/properties/url/format", []string{"uri"}}},
	}, {
		name:   "a map is an object without properties, its values described",
		schema: `{"type":"object","properties":{"env":{"type":"object","additionalProperties":{"type":"string"}}}}`,
		want:   `{"type":"object","properties":{"env":{"type":"object","description":"Other keys may be given, each value: {\"type\":\"string\"}."}}}`,
		warns:  []warn{{"/properties/env/additionalProperties", []string{"map"}}},
	}, {
		name:   "an array without items gets string items",
		schema: `{"type":"object","properties":{"tags":{"type":"array"}}}`,
		want:   `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`,
		warns:  []warn{{"/properties/tags/items", []string{"strings"}}},
	}, {
		name:   "required names without a property are dropped",
		schema: `{"type":"object","properties":{"a":{"type":"string"}},"required":["a","ghost"]}`,
		want:   `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
	}, {
		name:   "a $ref that cannot be followed keeps its siblings",
		schema: `{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json","type":"string"}}}`,
		want:   `{"type":"object","properties":{"a":{"type":"string"}}}`,
		warns:  []warn{{"/properties/a", []string{"cannot be followed"}}},
	}})
}

func TestAnthropicSchemas(t *testing.T) {
	runSchemaCases(t, providers.Anthropic, []schemaCase{{
		name: "no schema",
		want: `{"type":"object","properties":{}}`,
	}, {
		name:   "JSON Schema kept as written",
		schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}}}}`,
		want:   `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"integer"}}}}`,
	}, {
		name:   "type object added at the top",
		schema: `{"properties":{"q":{"type":"string"}}}`,
		want:   `{"type":"object","properties":{"q":{"type":"string"}}}`,
	}, {
		name:   "a top level that is not an object is declared one",
		schema: `{"type":"string"}`,
		want:   `{"type":"object","properties":{}}`,
		warns:  []warn{{"/type", []string{"not an object"}}},
	}, {
		name:   "a schema that is not an object",
		schema: `[1,2]`,
		want:   `{"type":"object","properties":{}}`,
		warns:  []warn{{"", []string{"not a schema object"}}},
	}, {
		name:   "a schema that is not JSON",
		schema: `{"type":`,
		want:   `{"type":"object","properties":{}}`,
		warns:  []warn{{"", []string{"not JSON", "without parameters"}}},
	}})
}

// Every tool of real servers (@modelcontextprotocol/server-everything,
// server-filesystem, server-memory, as their tools/list gave them)
// converts to schemas each provider accepts, and OpenAI's in strict mode.
func TestRealServerSchemas(t *testing.T) {
	for _, server := range []string{"everything", "filesystem", "memory"} {
		tools := serverTools(t, server)
		for _, f := range providers.Formats() {
			ts, err := providers.Convert(f, tools, nil)
			if err != nil {
				t.Fatalf("%s %s: %v", server, f, err)
			}
			if len(ts.Tools) != len(tools) {
				t.Fatalf("%s %s: %d tools, want %d", server, f, len(ts.Tools), len(tools))
			}
			for i := range ts.Tools {
				c := readBack(t, ts, i)
				if c.name != tools[i].Name {
					t.Errorf("%s %s: name %q, want %q", server, f, c.name, tools[i].Name)
				}
				switch f {
				case providers.OpenAI, providers.OpenAIResponses:
					if !c.strict {
						t.Errorf("%s %s %s: not strict", server, f, c.name)
					}
					if p := strictProblem(c.params, ""); p != "" {
						t.Errorf("%s %s %s: %s", server, f, c.name, p)
					}
				case providers.Gemini:
					if c.params != nil {
						if p := geminiProblem(c.params, ""); p != "" {
							t.Errorf("%s %s: %s", server, c.name, p)
						}
					}
				case providers.Anthropic:
					if c.params["type"] != "object" {
						t.Errorf("%s anthropic %s: top level %v", server, c.name, c.params["type"])
					}
				}
			}
			for _, w := range ts.Warnings {
				// The only loss in these servers: a "uri" format.
				if !strings.Contains(w.Message, `format "uri"`) {
					t.Errorf("%s %s: unexpected warning %v", server, f, w)
				}
			}
		}
	}
}

func TestNonStrictOption(t *testing.T) {
	c := convertSchema(t, providers.OpenAIResponses, "t", `{"type":"object","properties":{"a":{"type":"string"}}}`,
		&providers.Options{NonStrict: true})
	if c.strict || mustJSON(t, c.params) != canonical(t, `{"type":"object","properties":{"a":{"type":"string"}}}`) {
		t.Errorf("strict %v, params %s", c.strict, mustJSON(t, c.params))
	}
	// Strict is written even when false: the Responses API takes a missing
	// strict as true.
	if s := mustJSON(t, c.ts.Tools[0]); !strings.Contains(s, `"strict":false`) {
		t.Errorf("tool %s: strict not written", s)
	}
}

package providers_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/providers"
)

// seedSchemas adds the schemas of the table tests and of the real servers.
func seedSchemas(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `true`, `false`, `null`, `[]`, `"x"`,
		readFileSchema,
		`{"$ref":"#"}`,
		`{"type":"object","properties":{"a":{"$ref":"#/properties/a"}}}`,
		`{"type":"object","$defs":{"N":{"type":"object","properties":{"k":{"type":"array","items":{"$ref":"#/$defs/N"}}}}},"properties":{"n":{"$ref":"#/$defs/N"}}}`,
		`{"type":"object","properties":{"v":{"allOf":[{"$ref":"#/properties/v"},{"type":"string"}]}}}`,
		`{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"$ref":"#/anyOf/0"}]}`,
		`{"type":"object","properties":{"a":{"type":["string","number","null"],"enum":["x",1,null],"const":true}}}`,
		`{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"object","additionalProperties":true}}}}`,
		`{"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}]},"p":{"prefixItems":[{"const":1}]}}}`,
		`{"type":"object","properties":{"x":{"oneOf":[{"type":"null"}],"anyOf":[{"type":"null"}]},"y":{"type":"object","nullable":true,"properties":{}}}}`,
		`{"type":"object","required":["a","a",1],"properties":{"a":{"not":{"type":"string"},"if":{},"then":{},"else":{}}}}`,
		`{"type":"object","properties":{"~/a":{"$ref":"#/properties/~0~1a"},"%25":{"$ref":"#/properties/%2525"}}}`,
		`{"type":"object","required":true,"properties":{"x":"number","t":{"type":"array","items":[{"type":"string"}],"additionalItems":{}},
			"n":{"type":["number","number"],"minimum":1,"exclusiveMinimum":true,"maxLength":1.5,"multipleOf":0}}}`,
		`{"type":"object","properties":{"a":{"type":"array"},"e":{"type":"string","enum":[]},"f":{"type":"string","enum":[1]}}}`,
		`{"anyOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"$ref":"#/anyOf/0/properties/a"}}}]}`,
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*-tools.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var list struct {
			Tools []struct{ InputSchema json.RawMessage }
		}
		if err := json.Unmarshal(data, &list); err != nil {
			f.Fatal(err)
		}
		for _, t := range list.Tools {
			f.Add([]byte(t.InputSchema))
		}
	}
}

// FuzzConvert: whatever a server's schema holds, every format converts it
// without panicking, into JSON with an object at the top; what OpenAI gets
// in strict mode keeps strict mode's rules, and what Gemini gets keeps
// Gemini's.
func FuzzConvert(f *testing.F) {
	seedSchemas(f)
	f.Fuzz(func(t *testing.T, schema []byte) {
		tool := host.Tool{Name: "mcp__s__t", InputSchema: json.RawMessage(schema)}
		for _, format := range providers.Formats() {
			ts, err := providers.Convert(format, []host.Tool{tool}, nil)
			if err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			c := readBack(t, ts, 0)
			switch format {
			case providers.OpenAI, providers.OpenAIResponses:
				if c.params["type"] != "object" {
					t.Fatalf("%s: top level %v", format, c.params["type"])
				}
				if c.strict {
					if p := strictProblem(c.params, ""); p != "" {
						t.Fatalf("%s strict: %s\n%s", format, p, mustJSON(t, c.params))
					}
				} else if p := schemaProblem(c.params, "", true); p != "" {
					t.Fatalf("%s not strict: %s\n%s", format, p, mustJSON(t, c.params))
				}
			case providers.Anthropic:
				if c.params["type"] != "object" {
					t.Fatalf("anthropic: top level %v", c.params["type"])
				}
				if p := schemaProblem(c.params, "", false); p != "" {
					t.Fatalf("anthropic: %s\n%s", p, mustJSON(t, c.params))
				}
			case providers.Gemini:
				if c.params != nil {
					if c.params["type"] != "object" {
						t.Fatalf("gemini: top level %v", c.params["type"])
					}
					if p := geminiProblem(c.params, ""); p != "" {
						t.Fatalf("gemini: %s\n%s", p, mustJSON(t, c.params))
					}
				}
			}
		}
	})
}

// FuzzParseCall: a model's tool call, however malformed, gives a Call or
// an error, never a panic; a Call's arguments are an object.
func FuzzParseCall(f *testing.F) {
	for _, s := range []string{
		`{"id":"c","type":"function","function":{"name":"mcp__fs__read_file","arguments":"{\"path\":\"a\",\"head\":null,\"edits\":[{\"old\":\"x\",\"dry\":null}]}"}}`,
		`{"type":"function_call","call_id":"c","name":"mcp__fs__read_file","arguments":"{\"opts\":{\"deep\":null}}"}`,
		`{"type":"tool_use","id":"t","name":"mcp__fs__read_file","input":{"path":"a","edits":null}}`,
		`{"functionCall":{"name":"mcp__fs__read_file","args":{"edits":[null,1,{"dry":null}]}}}`,
		`{"name":"mcp__fs__read_file","arguments":"\"{}\""}`,
		`{"name":"mcp__fs__read_file","arguments":[1]}`, `{"function":{"name":"x","arguments":7}}`,
		`null`, `[]`, `{`, `{"input":"` + strings.Repeat(`\"`, 20) + `"}`,
	} {
		f.Add([]byte(s))
	}
	sets := map[providers.Format]*providers.Toolset{}
	for _, format := range providers.Formats() {
		ts, err := providers.Convert(format, readFileTools(), nil)
		if err != nil {
			f.Fatal(err)
		}
		sets[format] = ts
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range providers.Formats() {
			ts := sets[format]
			c, err := ts.ParseCall(data)
			if c == nil || err != nil && c.Arguments != nil {
				t.Fatalf("%s: call %+v for error %v", format, c, err)
			}
			if err == nil {
				if c == nil || c.Arguments == nil || c.Tool != "mcp__fs__read_file" {
					t.Fatalf("%s: call %+v", format, c)
				}
				if _, err := json.Marshal(c.Arguments); err != nil {
					t.Fatalf("%s: arguments do not encode: %v", format, err)
				}
			}
			// The result of any call, even a failed one, encodes.
			if _, err := json.Marshal(ts.Result(c, nil, err)); err != nil {
				t.Fatalf("%s: result: %v", format, err)
			}
		}
	})
}

package providers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/providers"
)

// converted is one tool after Convert, read back from its JSON.
type converted struct {
	name     string
	params   map[string]any // nil when the tool has none (Gemini)
	strict   bool
	warnings []providers.Warning
	ts       *providers.Toolset
}

// convertSchema converts one tool with the given input schema (JSON text).
func convertSchema(t testing.TB, f providers.Format, name, schema string, opts *providers.Options) converted {
	t.Helper()
	tool := host.Tool{Name: name, Description: "a tool"}
	if schema != "" {
		tool.InputSchema = json.RawMessage(schema)
	}
	ts, err := providers.Convert(f, []host.Tool{tool}, opts)
	if err != nil {
		t.Fatalf("Convert(%s): %v", f, err)
	}
	return readBack(t, ts, 0)
}

// readBack decodes ts.Tools[i] as the provider would.
func readBack(t testing.TB, ts *providers.Toolset, i int) converted {
	t.Helper()
	data, err := json.Marshal(ts.Tools[i])
	if err != nil {
		t.Fatalf("marshal %s tool: %v", ts.Format, err)
	}
	var raw map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // as the provider reads them: 1e400 is a number too
	if err := dec.Decode(&raw); err != nil {
		t.Fatal(err)
	}
	c := converted{warnings: ts.Warnings, ts: ts}
	switch ts.Format {
	case providers.OpenAI:
		fn, _ := raw["function"].(map[string]any)
		c.name, _ = fn["name"].(string)
		c.params, _ = fn["parameters"].(map[string]any)
		c.strict, _ = fn["strict"].(bool)
	case providers.OpenAIResponses:
		c.name, _ = raw["name"].(string)
		c.params, _ = raw["parameters"].(map[string]any)
		c.strict, _ = raw["strict"].(bool)
	case providers.Anthropic:
		c.name, _ = raw["name"].(string)
		c.params, _ = raw["input_schema"].(map[string]any)
	case providers.Gemini:
		c.name, _ = raw["name"].(string)
		c.params, _ = raw["parameters"].(map[string]any)
	case providers.MCP:
		c.name, _ = raw["name"].(string)
		c.params, _ = raw["inputSchema"].(map[string]any)
	}
	return c
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// canonical re-encodes JSON text with sorted keys, for comparisons.
func canonical(t testing.TB, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON in test: %v\n%s", err, s)
	}
	return mustJSON(t, v)
}

// hasWarning reports whether a warning at path says something containing
// each of the words.
func hasWarning(ws []providers.Warning, path string, words ...string) bool {
	return slices.ContainsFunc(ws, func(w providers.Warning) bool {
		if w.Path != path {
			return false
		}
		for _, word := range words {
			if !strings.Contains(w.Message, word) {
				return false
			}
		}
		return true
	})
}

// strictProblem says how a schema breaks OpenAI's strict-mode rules, or "".
func strictProblem(v any, path string) string {
	m, ok := v.(map[string]any)
	if !ok {
		return path + ": not a schema object"
	}
	allowed := map[string]bool{"type": true, "description": true, "title": true, "enum": true, "const": true,
		"pattern": true, "format": true, "multipleOf": true, "maximum": true, "exclusiveMaximum": true,
		"minimum": true, "exclusiveMinimum": true, "minItems": true, "maxItems": true, "properties": true,
		"required": true, "additionalProperties": true, "items": true, "anyOf": true}
	for k := range m {
		if !allowed[k] {
			return fmt.Sprintf("%s: keyword %q", path, k)
		}
	}
	if m["type"] == nil && m["anyOf"] == nil {
		return path + ": no type"
	}
	types := fmt.Sprint(m["type"])
	if strings.Contains(types, "object") {
		if m["additionalProperties"] != false {
			return path + ": object not closed"
		}
		props, _ := m["properties"].(map[string]any)
		req, _ := m["required"].([]any)
		if len(req) != len(props) {
			return path + ": not every property required"
		}
		for _, r := range req {
			if _, ok := props[r.(string)]; !ok {
				return path + ": required lists an unknown property"
			}
		}
		for k, p := range props {
			if s := strictProblem(p, path+"/properties/"+k); s != "" {
				return s
			}
		}
	}
	if strings.Contains(types, "array") {
		if s := strictProblem(m["items"], path+"/items"); s != "" {
			return s
		}
	}
	if bs, ok := m["anyOf"].([]any); ok {
		for i, b := range bs {
			if s := strictProblem(b, fmt.Sprintf("%s/anyOf/%d", path, i)); s != "" {
				return s
			}
		}
	}
	return ""
}

// geminiProblem says how a schema breaks Gemini's schema rules, or "".
func geminiProblem(v any, path string) string {
	m, ok := v.(map[string]any)
	if !ok {
		return path + ": not a schema object"
	}
	allowed := map[string]bool{"type": true, "format": true, "title": true, "description": true, "nullable": true,
		"enum": true, "maxItems": true, "minItems": true, "properties": true, "required": true,
		"minProperties": true, "maxProperties": true, "minLength": true, "maxLength": true, "pattern": true,
		"example": true, "anyOf": true, "items": true, "minimum": true, "maximum": true}
	for k := range m {
		if !allowed[k] {
			return fmt.Sprintf("%s: keyword %q", path, k)
		}
	}
	typ, _ := m["type"].(string)
	switch typ {
	case "string", "number", "integer", "boolean", "array", "object":
	case "":
		if m["anyOf"] == nil {
			return path + ": no type"
		}
	default:
		return fmt.Sprintf("%s: type %v", path, m["type"])
	}
	if e, ok := m["enum"].([]any); ok {
		if typ != "string" || len(e) == 0 {
			return path + ": enum on a non-string or empty"
		}
		for _, v := range e {
			if _, ok := v.(string); !ok {
				return path + ": enum value not a string"
			}
		}
	}
	if f, ok := m["format"].(string); ok && !slices.Contains([]string{"enum", "date-time", "float", "double", "int32", "int64"}, f) {
		return path + ": format " + f
	}
	props, hasProps := m["properties"].(map[string]any)
	if hasProps && (typ != "object" || len(props) == 0) {
		return path + ": properties empty or on a non-object"
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if _, ok := props[r.(string)]; !ok {
				return path + ": required lists an unknown property"
			}
		}
	}
	for k, p := range props {
		if s := geminiProblem(p, path+"/properties/"+k); s != "" {
			return s
		}
	}
	if typ == "array" {
		if s := geminiProblem(m["items"], path+"/items"); s != "" {
			return s
		}
	}
	if bs, ok := m["anyOf"].([]any); ok {
		for i, b := range bs {
			if s := geminiProblem(b, fmt.Sprintf("%s/anyOf/%d", path, i)); s != "" {
				return s
			}
		}
	}
	return ""
}

// serverTools reads a tools/list result saved from a real server.
func serverTools(t testing.TB, server string) []host.Tool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", server+"-tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name, Title, Description string
			InputSchema              json.RawMessage
		}
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	var tools []host.Tool
	for _, tl := range list.Tools {
		tools = append(tools, host.Tool{Name: "mcp__" + server + "__" + tl.Name, Server: server, Tool: tl.Name,
			Display: server + ":" + tl.Name, Title: tl.Title, Description: tl.Description, InputSchema: tl.InputSchema})
	}
	return tools
}

// schemaProblem says how a schema breaks what JSON Schema draft 2020-12's
// meta-schema requires (Anthropic checks input_schema against it) or, with
// openAI, what OpenAI refuses with strict off (an array without items);
// "" when nothing.
func schemaProblem(v any, path string, openAI bool) string {
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool {
			return ""
		}
		return path + ": not a schema"
	}
	isNumber := func(x any) bool { _, ok := x.(json.Number); return ok }
	isCount := func(x any) bool {
		n, ok := x.(json.Number)
		i, err := n.Int64()
		return ok && err == nil && i >= 0
	}
	isNames := func(x any, nonEmpty bool) bool {
		l, ok := x.([]any)
		seen := map[any]bool{}
		for _, e := range l {
			if _, isStr := e.(string); !isStr || seen[e] {
				return false
			}
			seen[e] = true
		}
		return ok && (!nonEmpty || len(l) > 0)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		val, p := m[k], path+"/"+k
		bad := false
		switch k {
		case "type":
			if s, ok := val.(string); ok {
				val = []any{s}
			}
			bad = !isNames(val, true)
			for _, t := range stringsOf(val) {
				bad = bad || !slices.Contains([]string{"string", "number", "integer", "boolean", "object", "array", "null"}, t)
			}
		case "required":
			bad = !isNames(val, false)
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			sm, ok := val.(map[string]any)
			bad = !ok
			for _, name := range slices.Sorted(maps.Keys(sm)) {
				if s := schemaProblem(sm[name], p+"/"+name, openAI); s != "" {
					return s
				}
			}
		case "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames":
			if s := schemaProblem(val, p, openAI); s != "" {
				return s
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			l, ok := val.([]any)
			bad = !ok || len(l) == 0
			for i, s := range l {
				if s := schemaProblem(s, fmt.Sprintf("%s/%d", p, i), openAI); s != "" {
					return s
				}
			}
		case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
			bad = !isCount(val)
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			bad = !isNumber(val)
		case "multipleOf":
			f, err := strconv.ParseFloat(string(mustJSONValue(val)), 64)
			bad = !isNumber(val) || err != nil || f <= 0
		case "enum", "examples":
			_, ok := val.([]any)
			bad = !ok
		case "title", "description", "pattern", "format", "$ref", "$id", "$schema", "$comment":
			_, ok := val.(string)
			bad = !ok
		case "uniqueItems":
			_, ok := val.(bool)
			bad = !ok
		}
		if bad {
			return fmt.Sprintf("%s: %s", p, mustJSONValue(val))
		}
	}
	if _, hasItems := m["items"]; openAI && !hasItems && slices.Contains(stringsOf(m["type"]), "array") {
		return path + ": an array without items"
	}
	return ""
}

func stringsOf(v any) []string {
	if s, ok := v.(string); ok {
		return []string{s}
	}
	var out []string
	l, _ := v.([]any)
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func mustJSONValue(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

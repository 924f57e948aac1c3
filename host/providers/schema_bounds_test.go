package providers_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/providers"
)

func TestSchemaBounds(t *testing.T) {
	// $refs that double at every level: 2^40 nodes if expanded blindly.
	var defs []string
	for i := 0; i < 40; i++ {
		defs = append(defs, `"d`+strconv.Itoa(i)+`":{"type":"object","properties":{"a":{"$ref":"#/$defs/d`+strconv.Itoa(i+1)+`"},"b":{"$ref":"#/$defs/d`+strconv.Itoa(i+1)+`"}}}`)
	}
	defs = append(defs, `"d40":{"type":"string"}`)
	schema := `{"type":"object","$defs":{` + strings.Join(defs, ",") + `},"properties":{"x":{"$ref":"#/$defs/d0"}}}`
	for _, f := range []providers.Format{providers.OpenAI, providers.Gemini} {
		c := convertSchema(t, f, "t", schema, nil)
		if len(mustJSON(t, c.params)) > 4*providers.MaxSchemaBytes {
			t.Errorf("%s: output of %d bytes", f, len(mustJSON(t, c.params)))
		}
		if len(c.warnings) == 0 {
			t.Errorf("%s: no warning about the size", f)
		}
	}
	// Deeper than the JSON limit: refused and offered without parameters.
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 60) + `{"type":"string"}` + strings.Repeat(`}}`, 60)
	c := convertSchema(t, providers.Anthropic, "t", deep, nil)
	if !hasWarning(c.warnings, "", "nests") {
		t.Errorf("deep schema: warnings %v", c.warnings)
	}
	big := `{"type":"object","description":"` + strings.Repeat("x", providers.MaxSchemaBytes) + `"}`
	c = convertSchema(t, providers.Gemini, "t", big, nil)
	if !hasWarning(c.warnings, "", "over the limit") {
		t.Errorf("big schema: warnings %v", c.warnings)
	}
}

// maxConvertWork bounds the work of converting one hostile tool, in units
// counted by the package (map entries copied, list entries, reference and
// path bytes read): each walker has a budget of MaxWork, and a conversion
// runs a few. Counted, never timed.
const maxConvertWork = 4 * providers.MaxWork

// $ref targets read from thousands of places cost what reading them costs,
// every time: the conversion stops at its budget instead of multiplying a
// schema of a few hundred KiB into gigabytes, or into minutes of work.
func TestSchemaAmplification(t *testing.T) {
	list := func(n int, item func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = item(i)
		}
		return strings.Join(parts, ",")
	}
	props := func(n int, schema func(i int) string) string {
		return `{` + list(n, func(i int) string { return `"p` + strconv.Itoa(i) + `":` + schema(i) }) + `}`
	}
	wide := props(5000, func(int) string { return `{"type":"string"}` })
	refs := props(5000, func(int) string { return `{"$ref":"#/$defs/B"}` })
	allOf := `[` + list(64, func(int) string { return `{"$ref":"#/$defs/B"}` }) + `]`
	// A chain of 32 $refs, each adding 1000 keywords, read from each of 64
	// top-level alternatives: every hop used to copy all the keywords so far.
	chain := list(32, func(i int) string {
		return `"c` + strconv.Itoa(i) + `":{"$ref":"#/$defs/c` + strconv.Itoa(i+1) + `",` +
			list(1000, func(j int) string { return `"x-` + strconv.Itoa(i) + `-` + strconv.Itoa(j) + `":1` }) + `}`
	}) + `,"c32":{"type":"object"}`
	cases := map[string]string{
		"properties": `{"type":"object","$defs":{"B":{"type":"object","properties":` + wide + `},
			"A":{"type":"object","properties":` + refs + `}},"properties":{"x":{"$ref":"#/$defs/A"}}}`,
		"allOf": `{"type":"object","$defs":{"B":{"type":"object","properties":` + wide + `},
			"A":{"allOf":` + allOf + `}},"properties":` + props(5000, func(int) string { return `{"$ref":"#/$defs/A"}` }) + `}`,
		"keywords": `{"type":"object","$defs":{"K":` + strings.Replace(props(5000, func(int) string { return `1` }), `{`, `{"type":"string",`, 1) + `},
			"properties":` + props(5000, func(int) string { return `{"$ref":"#/$defs/K"}` }) + `}`,
		// A type list of 6000 entries beside 6000 keywords: Gemini made one
		// alternative per entry, each a copy of the node.
		"type list": `{"type":"object","properties":{"a":{"type":[` + list(6000, func(int) string { return `"string"` }) + `,"number"],` +
			list(6000, func(i int) string { return `"x-k` + strconv.Itoa(i) + `":1` }) + `}}}`,
		"type names": `{"type":"object","properties":{"a":{"type":[` + list(6000, func(i int) string { return `"t` + strconv.Itoa(i) + `"` }) + `],` +
			list(6000, func(i int) string { return `"x-k` + strconv.Itoa(i) + `":1` }) + `}}}`,
		"$ref chains in a top-level anyOf": `{"$defs":{` + chain + `},"anyOf":[` + list(64, func(int) string { return `{"$ref":"#/$defs/c0"}` }) + `]}`,
		"required of top-level alternatives": `{"$defs":{"R":{"type":"object","required":[` + list(20000, func(i int) string { return `"r` + strconv.Itoa(i) + `"` }) +
			`]}},"anyOf":[` + list(64, func(int) string { return `{"$ref":"#/$defs/R"}` }) + `]}`,
		"a long $ref read from many places": `{"type":"object","$defs":{"s":{"$ref":"#/$defs/` + strings.Repeat("%61", 150000) + `"}},"properties":` +
			props(5000, func(int) string { return `{"$ref":"#/$defs/s"}` }) + `}`,
		"a long name above many nodes": `{"type":"object","properties":{"` + strings.Repeat("n", 400000) + `":{"type":"object","properties":` + wide + `}}}`,
	}
	for name, schema := range cases {
		for _, f := range []providers.Format{providers.OpenAI, providers.Gemini, providers.Anthropic} {
			before := providers.WorkDone()
			c := convertSchema(t, f, "t", schema, nil)
			if work := providers.WorkDone() - before; work > maxConvertWork {
				t.Errorf("%s %s: %d units of work, over %d", name, f, work, maxConvertWork)
			}
			if n := len(mustJSON(t, c.params)); n > 16<<20 {
				t.Errorf("%s %s: %d bytes of output", name, f, n)
			}
			if len(c.warnings) > 60 {
				t.Errorf("%s %s: %d warnings", name, f, len(c.warnings))
			}
		}
	}
}

package argcheck_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/argcheck"
)

// hugeNames is n names, every one given twice, as a JSON list.
func hugeNames(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range 2 * n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"n%d"`, i%n)
	}
	b.WriteByte(']')
	return b.String()
}

// A hostile server's schema of about 1 MiB listing some hundred thousand
// required names or types: each name was compared with every one kept
// before it, which took over ten seconds per Check or Params and stalled
// "mcphost call" and "tools show". With a set it is linear; at this size a
// quadratic pass would make this test crawl.
func TestHugeNameListsAreLinear(t *testing.T) {
	const n = 58_000 // twice: 116,000 names, about 1 MiB
	names := hugeNames(n)
	if len(names) < 1_000_000 {
		t.Fatalf("the schema is %d bytes, want about 1 MiB", len(names))
	}
	s := schema(t, `{"type": "object", "required": `+names+`, "properties": {"n1": {"type": "string"}}}`)
	err := argcheck.Check(s, map[string]any{})
	e, ok := argcheck.AsError(err)
	if !ok || len(e.Problems) != 21 || e.Problems[0] != "missing required argument n0" || e.Problems[20] != "and more" {
		t.Fatalf("Check = %v", err)
	}
	params, err := argcheck.Params(s)
	if err != nil || len(params) != 1 || !params[0].Required {
		t.Fatalf("Params = %+v, %v", params, err)
	}

	// The same with the types of one argument, read directly and through
	// anyOf branches.
	for _, prop := range []string{
		`{"type": ` + names + `}`,
		`{"anyOf": [{"type": ` + names + `}, {"type": ` + names + `}]}`,
	} {
		s := schema(t, `{"type": "object", "properties": {"a": `+prop+`}}`)
		params, err := argcheck.Params(s)
		if err != nil || len(params) != 1 || !strings.HasPrefix(params[0].Label, "n0 or n1 or n2 or") ||
			strings.Count(params[0].Label, " or ") != n-1 {
			t.Fatalf("Params: %v", err)
		}
		// Unknown type names fit anything: the value passes.
		if err := argcheck.Check(s, map[string]any{"a": "x"}); err != nil {
			t.Fatalf("Check = %v", err)
		}
		if _, err := argcheck.Assign(nil, []string{"a=x"}, s); err != nil {
			t.Fatalf("Assign = %v", err)
		}
	}
}

// The schema as a server sends it (raw JSON) is read the same way.
func TestHugeNameListRaw(t *testing.T) {
	raw := json.RawMessage(`{"required": ` + hugeNames(20_000) + `}`)
	params, err := argcheck.Params(raw)
	if err != nil || len(params) != 0 {
		t.Fatalf("Params = %v, %v", params, err)
	}
	if e, ok := argcheck.AsError(argcheck.Check(raw, nil)); !ok || len(e.Problems) != 21 {
		t.Fatalf("Check = %v", e)
	}
}

// A type list that repeats a name is quoted once in a message.
func TestRepeatedTypesQuotedOnce(t *testing.T) {
	types := `["string"` + strings.Repeat(`,"string","null"`, 1000) + `]`
	s := schema(t, `{"type": "object", "properties": {"a": {"type": `+types+`}}}`)
	e, ok := argcheck.AsError(argcheck.Check(s, map[string]any{"a": 1.0}))
	if !ok || len(e.Problems) != 1 || e.Problems[0] != "argument a must be a string or null, not a number 1" {
		t.Fatalf("Check = %v", e)
	}
}

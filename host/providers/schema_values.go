package providers

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// workDone counts, for the whole process, the units of work of schema
// conversions that grow with the input: map entries copied, list entries
// and reference bytes scanned, path bytes built. Tests read it to hold
// hostile schemas to a bound by a count, never by a time.
var workDone atomic.Int64

// Bounds on what one look at a node reads of its lists.
const (
	// maxTypeEntries: a "type" list is read this far (there are 7 JSON
	// types; a longer list only repeats them or names unknown ones).
	maxTypeEntries = 32
	// maxInferValues: enum values looked at to guess a missing type.
	maxInferValues = 64
	// maxPathLen: a warning's path stops growing past this many bytes, and
	// maxPathToken cuts each name in it.
	maxPathLen   = 512
	maxPathToken = 128
)

var jsonTypes = map[string]bool{
	"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true, "null": true,
}

// typeList lists the JSON types a node allows by its "type" keyword (and the
// OpenAPI "nullable"), each once; nil when it has none. Of the names that
// are not JSON types only the first is kept, enough to say it is unknown,
// and only the first maxTypeEntries entries are read: the list has at most
// 8 entries, and costs as much, however long the schema's is.
func typeList(m map[string]any) []string {
	var ts []string
	add := func(t string) {
		if slices.Contains(ts, t) ||
			!jsonTypes[t] && slices.ContainsFunc(ts, func(s string) bool { return !jsonTypes[s] }) {
			return
		}
		ts = append(ts, t)
	}
	switch t := m["type"].(type) {
	case string:
		ts = []string{t}
	case []any:
		n := min(len(t), maxTypeEntries)
		workDone.Add(int64(n))
		for _, e := range t[:n] {
			if s, ok := e.(string); ok {
				add(s)
			}
		}
	}
	if m["nullable"] == true && len(ts) > 0 && !slices.Contains(ts, "null") {
		ts = append(ts, "null")
	}
	return ts
}

// valueType is the JSON type of a decoded value.
func valueType(v any) string {
	switch n := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		if _, err := n.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// count reads a keyword that holds a count (minLength, maxItems…): a
// non-negative integer within int64, also when written 2.0 or 2e3. ok is
// false for anything else (1.5, -1, 1e30, "3").
func count(v any) (n json.Number, ok bool) {
	num, isNum := v.(json.Number)
	if !isNum {
		return "", false
	}
	if i, err := num.Int64(); err == nil {
		return num, i >= 0
	}
	f, err := num.Float64()
	if err != nil || f < 0 || f != math.Trunc(f) || f >= math.MaxInt64 {
		return "", false
	}
	return json.Number(strconv.FormatInt(int64(f), 10)), true
}

// countKeywords hold counts, which every provider wants as non-negative
// integers.
var countKeywords = map[string]bool{
	"minLength": true, "maxLength": true, "minItems": true, "maxItems": true,
	"minProperties": true, "maxProperties": true, "minContains": true, "maxContains": true,
}

// isSchema reports whether v can stand where a schema is expected: an
// object, or true or false.
func isSchema(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}

// inferType guesses the type of a node without one from its other
// keywords (the first maxInferValues enum values); "" when nothing tells.
func inferType(m map[string]any) string {
	vals, _ := m["enum"].([]any)
	if c, ok := m["const"]; ok {
		vals = []any{c}
	}
	t := ""
	for _, v := range vals[:min(len(vals), maxInferValues)] {
		vt := valueType(v)
		switch {
		case vt == "null":
		case t == "" || t == vt:
			t = vt
		case t == "integer" && vt == "number" || t == "number" && vt == "integer":
			t = "number"
		default:
			return ""
		}
	}
	if t != "" {
		return t
	}
	switch {
	case m["properties"] != nil || m["additionalProperties"] != nil:
		return "object"
	case m["items"] != nil || m["prefixItems"] != nil:
		return "array"
	}
	return ""
}

// allowsNull reports whether a schema certainly accepts null (looked at
// one level deep: enough for the "optional and nullable" pattern of
// generated schemas).
func allowsNull(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return v == true
	}
	if len(m) == 0 || slices.Contains(typeList(m), "null") {
		return true
	}
	if vals, ok := m["enum"].([]any); ok && slices.Contains(vals[:min(len(vals), maxInferValues)], nil) {
		return true
	}
	if c, ok := m["const"]; ok && c == nil {
		return true
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		bs, _ := m[kw].([]any)
		for _, b := range bs[:min(len(bs), maxBranches)] {
			if bm, ok := b.(map[string]any); ok && slices.Contains(typeList(bm), "null") {
				return true
			}
		}
	}
	return false
}

// note appends a sentence to a node's description, so that what a
// provider cannot express as a keyword still reaches the model.
func note(m map[string]any, sentence string) {
	d, _ := m["description"].(string)
	if d != "" && !strings.HasSuffix(d, ".") && !strings.HasSuffix(d, "\n") {
		d += "."
	}
	if d != "" {
		d += " "
	}
	m["description"] = d + sentence
}

// jsonTextMax bounds jsonText's rendering.
const jsonTextMax = 200

// jsonText is a short JSON rendering of a value for a description. It
// stops once it has jsonTextMax bytes, so that a huge default or enum read
// from many places costs little each time.
func jsonText(v any) string {
	var b strings.Builder
	writeShort(&b, v, 0)
	return cut(b.String(), jsonTextMax)
}

func writeShort(b *strings.Builder, v any, depth int) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 32 || depth > 8 {
			b.WriteString("{…}")
			return
		}
		b.WriteByte('{')
		for i, k := range sortedKeys(x) {
			if b.Len() > jsonTextMax {
				break
			}
			if i > 0 {
				b.WriteByte(',')
			}
			writeShort(b, k, depth+1)
			b.WriteByte(':')
			writeShort(b, x[k], depth+1)
		}
		b.WriteByte('}')
	case []any:
		if depth > 8 {
			b.WriteString("[…]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if b.Len() > jsonTextMax {
				break
			}
			if i > 0 {
				b.WriteByte(',')
			}
			writeShort(b, e, depth+1)
		}
		b.WriteByte(']')
	case string:
		q, _ := json.Marshal(cut(x, jsonTextMax))
		b.Write(q)
	case json.Number:
		b.WriteString(cut(x.String(), jsonTextMax))
	default:
		q, err := json.Marshal(x)
		if err != nil {
			q = []byte("?")
		}
		b.Write(q)
	}
}

// without copies m, leaving out keys.
func without(m map[string]any, keys ...string) map[string]any {
	workDone.Add(int64(len(m)))
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	workDone.Add(int64(len(m)))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// stringList returns the strings of a JSON array (others are skipped).
func stringList(v any) []string {
	a, _ := v.([]any)
	workDone.Add(int64(len(a)))
	out := make([]string, 0, len(a))
	for _, e := range a {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// unite returns a's strings then b's, each once, as a JSON array.
func unite(a, b []string) []any {
	workDone.Add(int64(len(a) + len(b)))
	out := make([]any, 0, len(a)+len(b))
	seen := make(map[string]bool, len(a)+len(b))
	for _, s := range slices.Concat(a, b) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// listEntries is the number of entries of m's list values (enum, required,
// type…): what a look at the node reads beyond its keywords.
func listEntries(m map[string]any) int {
	n := 0
	for _, v := range m {
		if a, ok := v.([]any); ok {
			n += len(a)
		}
	}
	return n
}

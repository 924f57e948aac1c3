// Package argcheck reads a tool's arguments the way people type them on a
// command line (key=value, typed by the tool's input schema) and checks
// arguments against the input schema before they are sent, so that a
// missing or mistyped argument is reported by name at once instead of as
// whatever error the server returns.
//
// The check covers the keywords that tools use in practice (type,
// required, properties, additionalProperties, enum, const, the numeric and
// length bounds, pattern, items, allOf/anyOf/oneOf). What it does not
// understand ($ref, not, if/then/else, ...) it lets pass: the server has
// the last word, and a local check must not refuse arguments the server
// would take. The one exception is an argument the schema does not declare
// while it declares one near it ("haed" beside "head"), or while a
// required one is missing: a server that takes unknown arguments mostly
// ignores them, so the call would run without what the person meant (see
// Review).
package argcheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// maxSchemaBytes bounds a schema that is not already a decoded JSON object
// and has to be re-encoded to be read; the host keeps tools with larger
// schemas out of its listings anyway.
const maxSchemaBytes = 4 << 20

// maxDepth bounds how deep the check follows a schema (and with it the
// arguments): deeper parts pass unchecked.
const maxDepth = 64

// object returns schema as a decoded JSON object: a map as it is, anything
// else (a json.RawMessage, a struct of the SDK) through JSON. A schema that
// is not an object (true, nil) gives nil: it constrains nothing.
func object(schema any) (map[string]any, error) {
	switch s := schema.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return s, nil
	case bool:
		return nil, nil
	}
	var raw []byte
	switch s := schema.(type) {
	case json.RawMessage:
		raw = s
	case []byte:
		raw = s
	default:
		b, err := json.Marshal(schema)
		if err != nil {
			return nil, fmt.Errorf("argcheck: the input schema cannot be read: %w", err)
		}
		raw = b
	}
	if len(raw) > maxSchemaBytes {
		return nil, fmt.Errorf("argcheck: the input schema is over %d bytes", maxSchemaBytes)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("argcheck: the input schema is not valid JSON: %w", err)
	}
	m, _ := v.(map[string]any)
	return m, nil
}

// types lists the JSON types a schema allows, from "type" (a name or a
// list), else from the values of enum or const, else from the branches of
// anyOf/oneOf. nil means "not known": anything may do.
func types(s map[string]any, depth int) []string {
	if s == nil || depth > maxDepth {
		return nil
	}
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out names
		for _, x := range t {
			if name, ok := x.(string); ok {
				out.add(name)
			}
		}
		return out.list
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		var out names
		for _, v := range enum {
			out.add(kind(v))
		}
		return out.list
	}
	if c, ok := s["const"]; ok {
		return []string{kind(c)}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches, ok := s[key].([]any)
		if !ok {
			continue
		}
		var out names
		for _, b := range branches {
			bt := types(asObject(b), depth+1)
			if bt == nil {
				return nil // one branch allows anything
			}
			for _, t := range bt {
				out.add(t)
			}
		}
		return out.list
	}
	return nil
}

// names is a list of strings without repeats, in the order first added. A
// hostile schema may list a hundred thousand names: checking each against
// the list would take quadratic time, so a set keeps what was seen.
type names struct {
	list []string
	seen map[string]struct{}
}

func (n *names) add(s string) {
	if _, dup := n.seen[s]; dup {
		return
	}
	if n.seen == nil {
		n.seen = map[string]struct{}{}
	}
	n.seen[s] = struct{}{}
	n.list = append(n.list, s)
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// kind is the JSON type of a decoded value, as a schema names it
// ("integer" only for whole numbers of a schema that asks, see fits).
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64, float32, int, int64, int32, json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// label describes what a schema asks for, for a message or a usage line:
// "number", "string or null", "array of string", one of "a", "b"...
// "" when the schema says nothing about it.
func label(s map[string]any) string {
	if s == nil {
		return ""
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return "one of " + listValues(enum, 6)
	}
	t := types(s, 0)
	if len(t) == 1 && t[0] == "array" {
		if it := types(asObject(s["items"]), 1); len(it) > 0 {
			return "array of " + strings.Join(it, " or ")
		}
	}
	return strings.Join(t, " or ")
}

// listValues writes values as JSON, comma separated, at most n of them.
func listValues(values []any, n int) string {
	var parts []string
	for i, v := range values {
		if i == n {
			parts = append(parts, fmt.Sprintf("(%d more)", len(values)-n))
			break
		}
		parts = append(parts, short(v))
	}
	return strings.Join(parts, ", ")
}

// short writes a value as JSON for a message, cut to a few dozen runes:
// arguments can be long, and one line says enough.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("(%T)", v)
	}
	s := string(b)
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	return s
}

// Param is one argument a tool takes, for a usage listing.
type Param struct {
	Name        string
	Label       string // see Label
	Required    bool
	Description string
}

// Params lists the arguments of an input schema: the required ones first,
// then the others, each group by name.
func Params(schema any) ([]Param, error) {
	s, err := object(schema)
	if err != nil || s == nil {
		return nil, err
	}
	props := asObject(s["properties"])
	required := requiredSet(s)
	var out []Param
	for name, p := range props {
		ps := asObject(p)
		desc, _ := ps["description"].(string)
		_, isRequired := required.seen[name]
		out = append(out, Param{Name: name, Label: label(ps), Required: isRequired, Description: desc})
	}
	slices.SortFunc(out, func(a, b Param) int {
		if a.Required != b.Required {
			if a.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, nil
}

// requiredNames lists the schema's required names, once each, in order.
func requiredNames(s map[string]any) []string { return requiredSet(s).list }

func requiredSet(s map[string]any) names {
	list, _ := s["required"].([]any)
	var out names
	for _, r := range list {
		if name, ok := r.(string); ok {
			out.add(name)
		}
	}
	return out
}

// property returns the schema of argument name: its entry in properties,
// else the schema additionalProperties gives every other argument. nil
// when nothing is known.
func property(s map[string]any, name string) map[string]any {
	if props := asObject(s["properties"]); props != nil {
		if p, ok := props[name]; ok {
			return asObject(p)
		}
	}
	return asObject(s["additionalProperties"])
}

// Error is every problem found with a call's arguments, one message each.
type Error struct {
	Problems []string
}

func (e *Error) Error() string { return strings.Join(e.Problems, "; ") }

// AsError returns err's *Error, if it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

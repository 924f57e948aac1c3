package argcheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// maxExact is the largest integer below which a float64 (what JSON numbers
// decode to) holds every integer exactly: 2^53+1 already reads as 2^53.
const maxExact = 1<<53 - 1

// Assign returns a copy of base with each item set, as people write
// arguments on a command line:
//
//	key=value    the value typed by the argument's schema: a number for
//	             "number" and "integer", true/false for "boolean", null
//	             for "null", JSON for "object" and "array", text otherwise
//	             (a union such as ["integer","string"] tries the types in
//	             the order null, boolean, integer, number, object, array,
//	             string); a value that matches an enum entry's JSON takes
//	             that entry
//	key:=json    the JSON value as it is, whatever the schema says
//
// An item overrides the same key of base; an item given twice is an
// error, and so is a value that cannot be the type asked for. schema may
// be nil: every key=value is then a string.
func Assign(base map[string]any, items []string, schema any) (map[string]any, error) {
	s, err := object(schema)
	if err != nil {
		s = nil // a schema that cannot be read types nothing: values stay text
	}
	out := make(map[string]any, len(base)+len(items))
	for k, v := range base {
		out[k] = v
	}
	seen := make(map[string]bool, len(items))
	for i, item := range items {
		key, value, raw, err := split(item, i+1)
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("argument %s is given twice", showKey(key))
		}
		seen[key] = true
		var v any
		if raw {
			v, err = rawJSON(key, value)
		} else {
			v, err = typed(key, value, property(s, key))
		}
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	return out, nil
}

// split cuts "key=value" or "key:=json". The item is not quoted in an
// error: only its position, since the value may be a secret.
func split(item string, pos int) (key, value string, raw bool, err error) {
	i := strings.IndexByte(item, '=')
	if i < 0 {
		return "", "", false, fmt.Errorf("argument %d has no \"=\": write key=value, or key:=JSON for a JSON value", pos)
	}
	key, value = item[:i], item[i+1:]
	if k, ok := strings.CutSuffix(key, ":"); ok {
		key, raw = k, true
	}
	if key == "" {
		return "", "", false, fmt.Errorf("argument %d has no name before \"=\": write key=value", pos)
	}
	return key, value, raw, nil
}

// showKey writes an argument name for a message: bare when it is plain,
// quoted (escaped) otherwise.
func showKey(k string) string {
	if plainKey.MatchString(k) {
		return k
	}
	return strconv.Quote(k)
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_.$@-]{1,64}$`)

func rawJSON(key, value string) (any, error) {
	var v any
	if err := json.Unmarshal([]byte(value), &v); err != nil {
		return nil, fmt.Errorf("argument %s: not valid JSON after \":=\" (%s); write key=value for text", showKey(key), jsonProblem(err))
	}
	return v, nil
}

// jsonProblem is a JSON error without the "json: " of its package.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s at byte %d", se.Error(), se.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// typeOrder is the order in which a value is tried against a union of
// types: the narrowest readings first, text last.
var typeOrder = []string{"null", "boolean", "integer", "number", "object", "array", "string"}

// typed reads value as the schema s of one argument asks.
func typed(key, value string, s map[string]any) (any, error) {
	if enum, ok := s["enum"].([]any); ok {
		for _, e := range enum {
			if str, isStr := e.(string); isStr && str == value {
				return str, nil
			}
		}
		for _, e := range enum {
			if _, isStr := e.(string); !isStr && jsonText(e) == value {
				return e, nil
			}
		}
	}
	ts := types(s, 0)
	if len(ts) == 0 {
		return value, nil
	}
	var firstErr error
	for _, t := range typeOrder {
		if !slices.Contains(ts, t) {
			continue
		}
		v, err := as(t, value)
		if err == nil {
			return v, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		// Only types this reader does not know ("file", a typo): text,
		// and the server decides.
		return value, nil
	}
	if len(ts) > 1 {
		return nil, fmt.Errorf("argument %s: %s is not %s", showKey(key), short(value), strings.Join(article(ts), " or "))
	}
	return nil, fmt.Errorf("argument %s: %w", showKey(key), firstErr)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// article puts "a"/"an" before type names, for "is not a number or null".
func article(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		switch t {
		case "null":
			out[i] = "null"
		case "integer", "object", "array":
			out[i] = "an " + t
		default:
			out[i] = "a " + t
		}
	}
	return out
}

var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// as reads value as JSON type t.
func as(t, value string) (any, error) {
	switch t {
	case "null":
		if value == "null" {
			return nil, nil
		}
		return nil, fmt.Errorf("%s is not null", short(value))
	case "boolean":
		switch value {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return nil, fmt.Errorf("%s is not a boolean: write true or false", short(value))
	case "integer", "number":
		if !jsonNumber.MatchString(value) {
			return nil, fmt.Errorf("%s is not %s", short(value), article([]string{t})[0])
		}
		n, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsInf(n, 0) {
			return nil, fmt.Errorf("%s is out of range for a number", short(value))
		}
		if t == "integer" {
			if n != math.Trunc(n) {
				return nil, fmt.Errorf("%s is not an integer", short(value))
			}
			if math.Abs(n) > maxExact {
				return nil, fmt.Errorf("%s is too large to be sent exactly (at most %d)", short(value), int64(maxExact))
			}
		}
		return n, nil
	case "object", "array":
		var v any
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			return nil, fmt.Errorf("not %s in JSON (%s)", article([]string{t})[0], jsonProblem(err))
		}
		if kind(v) != t {
			return nil, fmt.Errorf("not %s: the JSON is %s", article([]string{t})[0], article([]string{kind(v)})[0])
		}
		return v, nil
	case "string":
		return value, nil
	}
	return nil, fmt.Errorf("type %q is not known", t)
}

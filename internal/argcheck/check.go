package argcheck

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcphost/mcphost/internal/suggest"
)

// maxProblems bounds what one check reports: the first few say enough.
const maxProblems = 20

// Check checks args against a tool's input schema and returns an *Error
// listing every problem found, or nil. A schema that cannot be read checks
// nothing (nil): the server still checks.
func Check(schema any, args map[string]any) error {
	s, err := object(schema)
	if err != nil || s == nil {
		return nil
	}
	c := &checker{}
	obj := make(map[string]any, len(args))
	for k, v := range args {
		obj[k] = v
	}
	c.value("", s, obj, 0)
	if c.more {
		c.problems = append(c.problems, "and more")
	}
	if len(c.problems) == 0 {
		return nil
	}
	return &Error{Problems: c.problems}
}

type checker struct {
	problems []string
	more     bool                      // problems beyond maxProblems were left out
	patterns map[string]*regexp.Regexp // compiled once per check; nil entry: not Go syntax
}

func (c *checker) add(format string, args ...any) {
	if len(c.problems) >= maxProblems {
		c.more = true
		return
	}
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// name is how a message names the value at path: "argument a.b", or
// "the arguments" for the whole object.
func name(path string) string {
	if path == "" {
		return "the arguments"
	}
	return "argument " + path
}

func join(path, key string) string {
	k := showKey(key)
	if path == "" {
		return k
	}
	return path + "." + k
}

// value checks v at path against schema s.
func (c *checker) value(path string, s map[string]any, v any, depth int) {
	if s == nil || depth > maxDepth {
		return
	}
	if _, ok := s["$ref"]; ok {
		return // not followed: whatever it says, the server checks
	}
	if !c.typeOK(path, s, v) {
		return // the other keywords would only repeat it
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 && !slices.ContainsFunc(enum, func(e any) bool { return equal(e, v) }) {
		c.add("%s must be one of %s, not %s", name(path), listValues(enum, 10), short(v))
	}
	if want, ok := s["const"]; ok && !equal(want, v) {
		c.add("%s must be %s, not %s", name(path), short(want), short(v))
	}
	switch v := v.(type) {
	case string:
		c.text(path, s, v)
	case []any:
		c.array(path, s, v, depth)
	case map[string]any:
		c.object(path, s, v, depth)
	default:
		if n, ok := number(v); ok {
			c.bounds(path, s, n)
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, b := range all {
			c.value(path, asObject(b), v, depth+1)
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches, ok := s[key].([]any)
		if !ok || len(branches) == 0 {
			continue
		}
		// One branch that takes the value is enough, for oneOf too: the
		// check is for mistakes a person makes, not for the schema's
		// finer points.
		if !slices.ContainsFunc(branches, func(b any) bool {
			probe := &checker{patterns: c.patterns}
			probe.value(path, asObject(b), v, depth+1)
			return len(probe.problems) == 0
		}) {
			c.add("%s (%s) matches none of the %d forms the schema allows", name(path), short(v), len(branches))
		}
	}
}

// typeOK checks "type"; false when v has the wrong type (reported).
func (c *checker) typeOK(path string, s map[string]any, v any) bool {
	var want []string
	switch t := s["type"].(type) {
	case string:
		want = []string{t}
	case []any:
		var set names // once each: the list may be long, and is quoted below
		for _, x := range t {
			if name, ok := x.(string); ok {
				set.add(name)
			}
		}
		want = set.list
	default:
		return true
	}
	if len(want) == 0 || slices.ContainsFunc(want, func(t string) bool { return fits(t, v) }) {
		return true
	}
	got := kind(v)
	if n, ok := number(v); ok && slices.Contains(want, "integer") && n != math.Trunc(n) {
		c.add("%s must be an integer, not %s", name(path), short(v))
		return false
	}
	if v == nil {
		c.add("%s must be %s, not null", name(path), strings.Join(article(want), " or "))
		return false
	}
	c.add("%s must be %s, not %s %s", name(path), strings.Join(article(want), " or "), article([]string{got})[0], short(v))
	return false
}

// fits reports whether v is of JSON type t. A type this check does not
// know fits anything.
func fits(t string, v any) bool {
	switch t {
	case "integer":
		n, ok := number(v)
		return ok && n == math.Trunc(n) && !math.IsInf(n, 0)
	case "number":
		_, ok := number(v)
		return ok
	case "null", "boolean", "string", "array", "object":
		return kind(v) == t
	}
	return true
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// equal compares two decoded JSON values, numbers by value.
func equal(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	switch a := a.(type) {
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !equal(a[i], bs[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, x := range a {
			y, ok := bm[k]
			if !ok || !equal(x, y) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func intKeyword(s map[string]any, key string) (int, bool) {
	n, ok := number(s[key])
	if !ok || n < 0 || n > math.MaxInt32 {
		return 0, false
	}
	return int(n), true
}

func (c *checker) text(path string, s map[string]any, v string) {
	n := utf8.RuneCountInString(v)
	if m, ok := intKeyword(s, "minLength"); ok && n < m {
		c.add("%s must have at least %d characters, not %d", name(path), m, n)
	}
	if m, ok := intKeyword(s, "maxLength"); ok && n > m {
		c.add("%s must have at most %d characters, not %d", name(path), m, n)
	}
	if p, ok := s["pattern"].(string); ok {
		if re := c.pattern(p); re != nil && !re.MatchString(v) {
			c.add("%s must match the pattern %s, not %s", name(path), short(p), short(v))
		}
	}
}

// pattern compiles a schema's regular expression. Patterns are ECMA-262;
// one that Go's syntax does not take is not checked.
func (c *checker) pattern(p string) *regexp.Regexp {
	if re, ok := c.patterns[p]; ok {
		return re
	}
	if c.patterns == nil {
		c.patterns = map[string]*regexp.Regexp{}
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	c.patterns[p] = re
	return re
}

func (c *checker) bounds(path string, s map[string]any, n float64) {
	if m, ok := number(s["minimum"]); ok && n < m {
		c.add("%s must be at least %s, not %s", name(path), short(m), short(n))
	}
	if m, ok := number(s["maximum"]); ok && n > m {
		c.add("%s must be at most %s, not %s", name(path), short(m), short(n))
	}
	// Draft 4 wrote these as booleans beside minimum/maximum: only the
	// numeric form is read.
	if m, ok := number(s["exclusiveMinimum"]); ok && n <= m {
		c.add("%s must be greater than %s, not %s", name(path), short(m), short(n))
	}
	if m, ok := number(s["exclusiveMaximum"]); ok && n >= m {
		c.add("%s must be less than %s, not %s", name(path), short(m), short(n))
	}
}

func (c *checker) array(path string, s map[string]any, v []any, depth int) {
	if m, ok := intKeyword(s, "minItems"); ok && len(v) < m {
		c.add("%s must have at least %d items, not %d", name(path), m, len(v))
	}
	if m, ok := intKeyword(s, "maxItems"); ok && len(v) > m {
		c.add("%s must have at most %d items, not %d", name(path), m, len(v))
	}
	items := asObject(s["items"]) // the draft-07 list form is not checked
	if items == nil {
		return
	}
	for i, x := range v {
		if len(c.problems) >= maxProblems {
			c.more = true
			return
		}
		c.value(fmt.Sprintf("%s[%d]", path, i), items, x, depth+1)
	}
}

func (c *checker) object(path string, s map[string]any, v map[string]any, depth int) {
	props := asObject(s["properties"])
	for _, r := range requiredNames(s) {
		if _, ok := v[r]; ok {
			continue
		}
		what := label(asObject(props[r]))
		if what != "" {
			c.add("missing required argument %s (%s)", join(path, r), what)
		} else {
			c.add("missing required argument %s", join(path, r))
		}
	}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys) // messages in a stable order
	for _, k := range keys {
		if p, ok := props[k]; ok {
			if p == false {
				c.add("argument %s is not allowed", join(path, k))
				continue
			}
			c.value(join(path, k), asObject(p), v[k], depth+1)
			continue
		}
		if c.matchesPatternProperty(s, k) {
			continue
		}
		switch extra := s["additionalProperties"].(type) {
		case bool:
			if !extra {
				c.unknown(path, k, props)
			}
		case map[string]any:
			if not, ok := extra["not"].(map[string]any); ok && len(not) == 0 {
				c.unknown(path, k, props) // {"not": {}}: how some generators write false
				continue
			}
			c.value(join(path, k), extra, v[k], depth+1)
		}
	}
}

// matchesPatternProperty reports whether key is covered by one of the
// schema's patternProperties (such a key is not "additional"). A pattern
// Go cannot compile counts as matching: nothing is refused on a guess.
func (c *checker) matchesPatternProperty(s map[string]any, key string) bool {
	pp := asObject(s["patternProperties"])
	for p := range pp {
		re := c.pattern(p)
		if re == nil || re.MatchString(key) {
			return true
		}
	}
	return false
}

func (c *checker) unknown(path, key string, props map[string]any) {
	known := make([]string, 0, len(props))
	for k := range props {
		known = append(known, k)
	}
	slices.Sort(known)
	msg := fmt.Sprintf("unknown argument %s", join(path, key))
	if p := suggest.Phrase(suggest.Closest(key, known)); p != "" {
		msg += "; " + p
	} else if len(known) > 0 && len(known) <= 12 {
		msg += " (the tool takes " + strings.Join(known, ", ") + ")"
	}
	c.add("%s", msg)
}

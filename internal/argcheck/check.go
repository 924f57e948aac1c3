package argcheck

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcphost/mcphost/internal/suggest"
)

// maxProblems bounds what one check reports: the first few say enough.
const maxProblems = 20

// Check checks args against a tool's input schema and returns an *Error
// listing every problem found, or nil. A schema that cannot be read checks
// nothing (nil): the server still checks. Check is Review without the
// warnings.
func Check(schema any, args map[string]any) error {
	_, err := Review(schema, args)
	return err
}

// Review checks args against a tool's input schema as Check does, and also
// says which arguments the schema does not declare although it does not
// forbid others: those are sent, and the warnings name them.
//
// An argument the schema does not declare is refused (a problem, not a
// warning) when it is near a declared name ("haed" for "head": see
// suggest.Near), or when a required argument is missing (it is probably
// that one, misnamed), or when the schema forbids other arguments
// (additionalProperties: false). A schema that declares others welcome
// (additionalProperties true or a schema) gets no warning.
func Review(schema any, args map[string]any) (warnings []string, err error) {
	return review(schema, args, "tool")
}

// PromptArgument is one argument a prompt declares.
type PromptArgument struct {
	Name     string
	Required bool
}

// ReviewPrompt checks the arguments of a prompt as Review checks a tool's:
// every required one given, and a name the prompt does not declare refused
// when it is near a declared one or stands for a missing one, else a
// warning. Prompt arguments are text: there is no type to check.
func ReviewPrompt(declared []PromptArgument, args map[string]string) (warnings []string, err error) {
	props := make(map[string]any, len(declared))
	var required []any
	for _, d := range declared {
		props[d.Name] = map[string]any{}
		if d.Required {
			required = append(required, d.Name)
		}
	}
	given := make(map[string]any, len(args))
	for k, v := range args {
		given[k] = v
	}
	return review(map[string]any{"type": "object", "properties": props, "required": required}, given, "prompt")
}

func review(schema any, args map[string]any, subject string) ([]string, error) {
	s, err := object(schema)
	if err != nil || s == nil {
		return nil, nil
	}
	c := &checker{subject: subject}
	obj := make(map[string]any, len(args))
	for k, v := range args {
		obj[k] = v
	}
	c.value("", s, obj, 0)
	if c.more {
		c.problems = append(c.problems, "and more")
	}
	if c.warnMore {
		c.warnings = append(c.warnings, "and more")
	}
	if len(c.problems) == 0 {
		return c.warnings, nil
	}
	return c.warnings, &Error{Problems: c.problems}
}

type checker struct {
	problems []string
	more     bool // problems beyond maxProblems were left out
	warnings []string
	warnMore bool                      // warnings beyond maxProblems were left out
	patterns map[string]*regexp.Regexp // compiled once per check; nil entry: not Go syntax
	// subject is what takes the arguments, "tool" or "prompt", for "the
	// tool takes a, b".
	subject string
	// undeclaredSeen counts the names compared with the declared ones, which
	// costs a distance per declared name: see maxUndeclared.
	undeclaredSeen int
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
	var missing []string
	for _, r := range requiredNames(s) {
		if _, ok := v[r]; ok {
			continue
		}
		missing = append(missing, r)
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
	slices.Sort(keys)     // messages in a stable order
	var declared []string // sorted names of props, made on first use
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
		if declared == nil {
			declared = sortedKeys(props)
		}
		extra, stated := s["additionalProperties"]
		if !stated {
			c.undeclared(path, k, declared, missing)
			continue
		}
		switch extra := extra.(type) {
		case bool:
			if !extra {
				c.unknown(path, k, declared, missing)
			}
		case map[string]any:
			if not, ok := extra["not"].(map[string]any); ok && len(not) == 0 {
				c.unknown(path, k, declared, missing) // {"not": {}}: how some generators write false
				continue
			}
			c.value(join(path, k), extra, v[k], depth+1)
		}
	}
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
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

// unknown reports key, which the schema forbids: with the declared names
// it is near, else the required ones that are missing, else the list of
// those the schema declares.
func (c *checker) unknown(path, key string, declared, missing []string) {
	msg := "unknown argument " + strconv.Quote(join(path, key))
	near := suggest.Closest(key, declared)
	if len(near) == 0 {
		near = missingOffer(key, missing)
	}
	if p := suggest.Phrase(near); p != "" {
		msg += ": " + p
	} else if len(declared) > 0 && len(declared) <= 12 {
		msg += " (the " + c.subject + " takes " + strings.Join(declared, ", ") + ")"
	}
	c.add("%s", msg)
}

// maxUndeclared bounds the undeclared names of one check that are compared
// with the declared ones: a name costs one distance per declared name, and
// both lists come from outside. Past it, the check refuses rather than
// let an unchecked name through.
const maxUndeclared = 64

// undeclared handles key, which the schema neither declares nor forbids.
// A slip of the keys ("haed" for "head") or a name standing in for a
// missing required one is refused: the server would most likely ignore
// it and run without it. Any other name is sent with a warning: the
// schema allows it, and the server may know it.
func (c *checker) undeclared(path, key string, declared, missing []string) {
	if len(declared) == 0 && len(missing) == 0 {
		return // the schema names no argument: nothing to compare with
	}
	if len(c.problems) >= maxProblems {
		c.more = true // refused already: spare the comparisons
		return
	}
	c.undeclaredSeen++
	if c.undeclaredSeen > maxUndeclared {
		if c.undeclaredSeen == maxUndeclared+1 {
			c.add("more than %d arguments that the input schema does not declare: they were not checked", maxUndeclared)
		}
		return
	}
	name := strconv.Quote(join(path, key))
	if near := suggest.Near(key, declared); len(near) > 0 {
		c.add("unknown argument %s: %s", name, suggest.Phrase(near))
		return
	}
	if offer := missingOffer(key, missing); len(offer) > 0 {
		c.add("unknown argument %s: %s", name, suggest.Phrase(offer))
		return
	}
	msg := "argument " + name + " is not in the " + c.subject + "'s input schema; it is sent as it is"
	if c.subject == "prompt" {
		msg = "argument " + name + " is not one the prompt declares; it is sent as it is"
	}
	if len(declared) > 0 && len(declared) <= 12 {
		msg += " (the " + c.subject + " takes " + strings.Join(declared, ", ") + ")"
	}
	c.warn(msg)
}

// missingOffer is what to offer for an unknown key when required
// arguments are missing: the nearest of them, else all of them (three at
// most), since the key most likely stands for one.
func missingOffer(key string, missing []string) []string {
	if len(missing) == 0 {
		return nil
	}
	if near := suggest.Closest(key, missing); len(near) > 0 {
		return near
	}
	offer := slices.Clone(missing)
	slices.Sort(offer)
	return offer[:min(len(offer), 3)]
}

func (c *checker) warn(msg string) {
	if len(c.warnings) >= maxProblems {
		c.warnMore = true
		return
	}
	c.warnings = append(c.warnings, msg)
}

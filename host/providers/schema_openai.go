package providers

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// OpenAI's documented limits for strict schemas.
const (
	strictMaxObjectDepth = 10
	strictMaxProperties  = 5000
	strictMaxEnumValues  = 1000
	// strictMaxChars counts property names, enum and const values.
	strictMaxChars = 120_000
)

// strictFormats are the string formats strict mode accepts.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// notStrict says why a schema cannot be sent in strict mode.
type notStrict struct{ path, reason string }

func (e *notStrict) Error() string {
	if e.path == "" {
		return e.reason
	}
	return e.path + ": " + e.reason
}

// Keywords dropped without a warning: they tell the model nothing, or
// nothing a converted schema can still honour ($defs are expanded).
var annotationKeywords = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$defs": true, "definitions": true,
	"$anchor": true, "$dynamicAnchor": true, "$vocabulary": true, "examples": true, "example": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "contentMediaType": true,
	"contentEncoding": true, "contentSchema": true,
}

// Validation keywords strict mode refuses but whose meaning a sentence in
// the description keeps.
var strictDescribed = map[string]bool{
	"minLength": true, "maxLength": true, "uniqueItems": true, "minProperties": true,
	"maxProperties": true, "contains": true, "minContains": true, "maxContains": true,
	"dependentRequired": true,
}

// Keywords that change which values are valid in a way strict mode cannot
// express at all: such a schema is sent non-strict.
var strictRefused = map[string]bool{
	"patternProperties": true, "propertyNames": true, "not": true, "if": true, "then": true,
	"else": true, "dependentSchemas": true, "dependencies": true, "prefixItems": true,
	"additionalItems": true, "unevaluatedProperties": true, "unevaluatedItems": true,
	"$dynamicRef": true, "$recursiveRef": true,
}

// strictWalker converts a schema to OpenAI's strict subset: every object
// closed (additionalProperties false) with all its properties required,
// the optional ones made nullable, and an argPlan that takes the nulls out
// of the model's arguments again.
type strictWalker struct {
	*walker
	props, enums, chars int
}

func (w *strictWalker) fail(path, format string, args ...any) error {
	return &notStrict{path: path, reason: fmt.Sprintf(format, args...)}
}

// toStrict converts root (from rootObject) or says why it cannot.
func toStrict(tool string, decodedRoot map[string]any, root map[string]any) (map[string]any, *argPlan, []Warning, error) {
	w := &strictWalker{walker: newWalker(tool, decodedRoot)}
	out, plan, err := w.node(root, "", 0, 0, true)
	if err != nil {
		return nil, nil, nil, err
	}
	return out, plan, w.allWarnings(), nil
}

func (w *strictWalker) node(v any, path string, depth, objDepth int, isRoot bool) (map[string]any, *argPlan, error) {
	m, ok := v.(map[string]any)
	if !ok {
		if _, isBool := v.(bool); isBool {
			return nil, nil, w.fail(path, "a schema of true or false cannot be strict")
		}
		return nil, nil, w.fail(path, "a JSON %s where a schema belongs", valueType(v))
	}
	if depth > maxNesting {
		return nil, nil, w.fail(path, "the schema nests deeper than %d levels", maxNesting)
	}
	if w.nodes++; w.nodes > maxNodes {
		return nil, nil, w.fail(path, "the schema has more than %d nodes with its $refs expanded", maxNodes)
	}
	r := w.resolve(m, path)
	defer w.release(r)
	if r.cycle {
		return nil, nil, w.fail(path, "the schema is recursive ($ref)")
	}
	m, path = r.m, r.path
	if !w.visit(m) {
		return nil, nil, w.fail(path, "the schema is too large with its $refs expanded")
	}

	ts := typeList(m)
	_, hasAnyOf := m["anyOf"]
	_, hasOneOf := m["oneOf"]
	switch {
	case hasAnyOf && hasOneOf:
		return nil, nil, w.fail(path, "anyOf and oneOf at one node")
	case (hasAnyOf || hasOneOf) && len(ts) > 0:
		return nil, nil, w.fail(path, "type beside anyOf/oneOf")
	case !hasAnyOf && !hasOneOf && len(ts) == 0:
		if t := inferType(m); t != "" {
			ts = []string{t}
		} else {
			return nil, nil, w.fail(path, "a schema without a type (any value)")
		}
	}
	for _, t := range ts {
		if !jsonTypes[t] {
			return nil, nil, w.fail(path, "unknown type %q", cut(t, 32))
		}
	}

	out := map[string]any{}
	var notes []string
	_, hasConst := m["const"]
	for _, k := range sortedKeys(m) {
		val := m[k]
		switch {
		case k == "type" || k == "nullable" || k == "properties" || k == "required" ||
			k == "additionalProperties" || k == "items" || k == "anyOf" || k == "oneOf":
			// Below.
		case k == "title" || k == "description" || k == "pattern":
			if s, ok := val.(string); ok {
				out[k] = s
			}
		case k == "enum" && hasConst: // const says more
		case k == "enum" || k == "const": // const as a one-value enum, which strict mode surely takes
			vals, ok := val.([]any)
			if k == "const" {
				vals, ok = []any{val}, true
			}
			if !ok {
				return nil, nil, w.fail(child(path, k), "enum is not an array")
			}
			if len(vals) == 0 {
				w.warn(child(path, k), "an empty enum (no value allowed) is dropped: any value of the type may be sent")
				continue
			}
			if err := w.enum(vals, ts, child(path, k)); err != nil {
				return nil, nil, err
			}
			out["enum"] = uniqueValues(vals)
		case k == "format":
			if s, ok := val.(string); ok && strictFormats[s] {
				out[k] = s
			} else {
				notes = append(notes, "Format: "+jsonText(val)+".")
				w.warn(child(path, k), "format %s is not accepted in strict mode: it is told in the description", jsonText(val))
			}
		case k == "minItems" || k == "maxItems":
			if n, ok := count(val); ok {
				out[k] = n
			} else {
				w.warn(child(path, k), "%s %s is not a count (a non-negative integer): dropped", k, jsonText(val))
			}
		case k == "multipleOf" || k == "maximum" || k == "minimum" || k == "exclusiveMaximum" || k == "exclusiveMinimum":
			if vt := valueType(val); vt == "integer" || vt == "number" {
				out[k] = val
			} else if vt != "boolean" { // draft 4's boolean form: below
				w.warn(child(path, k), "%s %s is not a number: dropped", k, jsonText(val))
			}
		case k == "default":
			notes = append(notes, "Default: "+jsonText(val)+".")
		case annotationKeywords[k] || strings.HasPrefix(k, "x-"):
		case strictDescribed[k]:
			notes = append(notes, k+": "+jsonText(val)+".")
			w.warn(child(path, k), "%s is not accepted in strict mode: it is told in the description, the model is not held to it", k)
		case strictRefused[k]:
			return nil, nil, w.fail(child(path, k), "%s cannot be expressed in strict mode", k)
		default:
			w.warn(child(path, k), "unknown keyword %q dropped", cut(k, 64))
		}
	}
	draft4Bounds(m, out)
	if len(ts) == 1 {
		out["type"] = ts[0]
	} else if len(ts) > 1 {
		out["type"] = anySlice(ts)
	}

	plan := &argPlan{}
	if slices.Contains(ts, "object") {
		if err := w.object(m, out, plan, path, depth, objDepth, isRoot); err != nil {
			return nil, nil, err
		}
	}
	if slices.Contains(ts, "array") {
		items, ok := m["items"].(map[string]any)
		if !ok {
			return nil, nil, w.fail(child(path, "items"), "an array whose items are not described by one schema")
		}
		is, ip, err := w.node(items, child(path, "items"), depth+1, objDepth, false)
		if err != nil {
			return nil, nil, err
		}
		out["items"], plan.items = is, ip
	}
	if hasAnyOf || hasOneOf {
		kw := "anyOf"
		if hasOneOf {
			kw = "oneOf"
			w.warn(child(path, kw), "oneOf is sent as anyOf: the model is not told that only one alternative may match")
		}
		bs, ok := m[kw].([]any)
		if !ok || len(bs) == 0 || len(bs) > maxBranches {
			return nil, nil, w.fail(child(path, kw), "%s is not an array of 1 to %d schemas", kw, maxBranches)
		}
		branches := make([]any, len(bs))
		plans := make([]*argPlan, len(bs))
		for i, b := range bs {
			s, sp, err := w.node(b, child(path, kw, strconv.Itoa(i)), depth+1, objDepth, false)
			if err != nil {
				return nil, nil, err
			}
			branches[i], plans[i] = s, sp
		}
		out["anyOf"] = branches
		plan = mergePlans(plans)
	}
	if len(notes) > 0 {
		note(out, strings.Join(notes, " "))
	}
	if w.props > strictMaxProperties || w.enums > strictMaxEnumValues || w.chars > strictMaxChars {
		return nil, nil, w.fail("", "the schema is over strict mode's limits (%d properties, %d enum values, %d characters of names and values)",
			strictMaxProperties, strictMaxEnumValues, strictMaxChars)
	}
	return out, plan.orNil(), nil
}

// object closes an object node: all properties required, the optional
// ones nullable (and in plan, so that a null the model sends for them is
// taken out again), no other properties.
func (w *strictWalker) object(m, out map[string]any, plan *argPlan, path string, depth, objDepth int, isRoot bool) error {
	if objDepth+1 > strictMaxObjectDepth {
		return w.fail(path, "objects nest deeper than strict mode's %d levels", strictMaxObjectDepth)
	}
	props, _ := m["properties"].(map[string]any)
	switch ap := m["additionalProperties"].(type) {
	case map[string]any:
		if len(ap) > 0 || len(props) == 0 {
			return w.fail(child(path, "additionalProperties"), "an object with free-form keys (additionalProperties) cannot be strict")
		}
	case bool:
		if ap && len(props) == 0 && !isRoot {
			return w.fail(path, "an object with free-form keys cannot be strict")
		}
	case nil:
		// Closing an object that lists its properties is what its author
		// meant; one without properties is a free-form map, except at the
		// top, where it means a tool without parameters.
		if len(props) == 0 && !isRoot {
			return w.fail(path, "an object without properties (any keys) cannot be strict")
		}
	}
	if ap, _ := m["additionalProperties"].(bool); ap && (len(props) > 0 || isRoot) {
		w.warn(child(path, "additionalProperties"), "strict mode closes the object: the model sends only the properties described, not the other keys additionalProperties true allows")
	}
	reqList := stringList(m["required"])
	if !w.spend(len(reqList)) {
		return w.fail(path, "the schema is too large with its $refs expanded")
	}
	required := make(map[string]bool, len(reqList))
	var order []string
	for _, r := range reqList {
		switch _, described := props[r]; {
		case required[r]:
		case !described:
			w.warn(child(path, "required"), "required property %q is not described: dropped from required", cut(r, 64))
		case isSchema(props[r]):
			order = append(order, r)
		}
		required[r] = true
	}
	outProps := make(map[string]any, len(props))
	for _, p := range sortedKeys(props) {
		ppath := child(path, "properties", p)
		if !isSchema(props[p]) {
			w.warn(ppath, "a JSON %s where a schema belongs: the property is dropped", valueType(props[p]))
			continue
		}
		if w.props++; w.props > strictMaxProperties {
			return w.fail(path, "more than strict mode's %d properties", strictMaxProperties)
		}
		w.chars += len(p)
		ps, pp, err := w.node(props[p], ppath, depth+1, objDepth+1, false)
		if err != nil {
			return err
		}
		if !required[p] {
			enums := enumLen(ps)
			ps = nullable(ps)
			if added := enumLen(ps) - enums; added > 0 { // the null
				w.enums += added
			}
			order = append(order, p)
			if w.acceptsNull(props[p]) {
				plan.keepNull(p)
			} else {
				plan.dropNull(p)
			}
		}
		outProps[p] = ps
		if pp != nil {
			plan.prop(p, pp)
		}
	}
	out["properties"] = outProps
	out["required"] = anySlice(order)
	out["additionalProperties"] = false
	return nil
}

// acceptsNull is allowsNull after following a $ref.
func (w *strictWalker) acceptsNull(v any) bool {
	if m, ok := v.(map[string]any); ok {
		if ref, ok := m["$ref"].(string); ok {
			if t, _, err := w.lookup(ref); err == nil {
				return allowsNull(t)
			}
		}
	}
	return allowsNull(v)
}

// nullable lets a strict schema also accept null.
func nullable(s map[string]any) map[string]any {
	s = without(s)
	switch t := s["type"].(type) {
	case string:
		if t != "null" {
			s["type"] = []any{t, "null"}
		}
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(slices.Clip(t), "null")
		}
	default:
		if bs, ok := s["anyOf"].([]any); ok {
			for _, b := range bs {
				if bm, ok := b.(map[string]any); ok && bm["type"] == "null" {
					return s
				}
			}
			s["anyOf"] = append(slices.Clip(bs), map[string]any{"type": "null"})
			return s
		}
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	if c, ok := s["const"]; ok {
		delete(s, "const")
		s["enum"] = []any{c}
	}
	if e, ok := s["enum"].([]any); ok && !slices.Contains(e, nil) {
		s["enum"] = append(slices.Clip(e), nil)
	}
	return s
}

// OpenAI's limit on one enum of strings: more than strictBigEnum values
// may total at most strictBigEnumChars characters.
const (
	strictBigEnum      = 250
	strictBigEnumChars = 15_000
)

// enum checks an enum's values against the node's types and strict mode's
// limits, and counts them toward the schema's.
func (w *strictWalker) enum(vals []any, ts []string, path string) error {
	if len(vals) > strictMaxEnumValues {
		return w.fail(path, "an enum of %d values, over strict mode's %d", len(vals), strictMaxEnumValues)
	}
	chars := 0
	for _, e := range vals {
		if vt := valueType(e); len(ts) > 0 && !slices.Contains(ts, vt) && (vt != "integer" || !slices.Contains(ts, "number")) {
			return w.fail(path, "the value %s does not match the type %s", jsonText(e), strings.Join(ts, " or "))
		}
		if s, ok := e.(string); ok {
			chars += len(s)
		}
	}
	if len(vals) > strictBigEnum && chars > strictBigEnumChars {
		return w.fail(path, "an enum of more than %d strings totalling more than %d characters", strictBigEnum, strictBigEnumChars)
	}
	w.enums += len(vals)
	w.chars += chars
	return nil
}

// uniqueValues is vals with repeated strings, numbers, booleans and nulls
// left out.
func uniqueValues(vals []any) []any {
	seen := make(map[any]bool, len(vals))
	out := make([]any, 0, len(vals))
	for _, v := range vals {
		switch v.(type) {
		case string, json.Number, bool, nil:
			if seen[v] {
				continue
			}
			seen[v] = true
		}
		out = append(out, v)
	}
	return out
}

func enumLen(s map[string]any) int {
	e, _ := s["enum"].([]any)
	return len(e)
}

// draft4Bounds turns draft 4's boolean exclusiveMinimum/exclusiveMaximum
// (true makes minimum/maximum exclusive) in m into the numeric form of
// later drafts in out, which holds m's keywords as converted so far.
func draft4Bounds(m, out map[string]any) {
	for _, b := range [...]struct{ excl, bound string }{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		e, isBool := m[b.excl].(bool)
		if !isBool {
			continue
		}
		delete(out, b.excl)
		if v, ok := out[b.bound]; ok && e {
			out[b.excl] = v
			delete(out, b.bound)
		}
	}
}

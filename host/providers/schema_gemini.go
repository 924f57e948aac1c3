package providers

import (
	"slices"
	"strconv"
	"strings"
)

// geminiFormats are the formats Gemini's API accepts for each type (its
// Developer API refuses a request with any other).
var geminiFormats = map[string][]string{
	"string":  {"enum", "date-time"},
	"number":  {"float", "double"},
	"integer": {"int32", "int64"},
}

// Keywords Gemini's schema keeps, by the type they apply to ("" for any).
var geminiKept = map[string]string{
	"title": "", "description": "", "example": "",
	"pattern": "string", "minLength": "string", "maxLength": "string",
	"minimum": "number", "maximum": "number",
	"minItems": "array", "maxItems": "array",
	"minProperties": "object", "maxProperties": "object",
}

// Keywords Gemini lacks whose value a sentence in the description keeps.
var geminiDescribed = map[string]bool{
	"exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true, "uniqueItems": true,
	"minContains": true, "maxContains": true, "dependentRequired": true,
}

// Keywords Gemini lacks that no sentence can carry: dropped with a warning.
var geminiDropped = map[string]bool{
	"patternProperties": true, "propertyNames": true, "not": true, "if": true, "then": true,
	"else": true, "dependentSchemas": true, "dependencies": true, "contains": true,
	"unevaluatedProperties": true, "unevaluatedItems": true, "additionalItems": true,
	"$dynamicRef": true, "$recursiveRef": true,
}

// toGemini converts a tool's schema to Gemini's OpenAPI 3.0 subset: $refs
// expanded (a recursive one approximated by an object), type arrays turned
// into a type and nullable (or anyOf), const into a one-value enum, oneOf
// into anyOf, and what Gemini lacks dropped or told in the description. It
// returns nil for a tool without parameters, which Gemini wants left out.
func toGemini(tool string, decodedRoot, root map[string]any) (map[string]any, []Warning) {
	w := newWalker(tool, decodedRoot)
	g := &geminiWalker{walker: w}
	out := g.node(root, "", 0)
	if props, _ := out["properties"].(map[string]any); len(props) == 0 {
		return nil, w.allWarnings()
	}
	return out, w.allWarnings()
}

type geminiWalker struct{ *walker }

func (w *geminiWalker) node(v any, path string, depth int) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		if v == false {
			w.warn(path, "a schema that accepts nothing is offered as a string")
		} else {
			w.warn(path, "a schema that accepts any value is offered as a string")
		}
		return map[string]any{"type": "string"}
	}
	if depth > maxNesting || w.nodes >= maxNodes || w.work > maxWork {
		w.nodes++
		w.tooLarge(path)
		return approximate(m)
	}
	w.nodes++
	r := w.resolve(m, path)
	defer w.release(r)
	m, path = r.m, r.path
	if !w.visit(m) {
		w.tooLarge(path)
		return approximate(m)
	}
	if r.cycle {
		w.warn(path, "a recursive $ref is approximated by an object whose properties are not described")
		out := map[string]any{"type": "object"}
		if d, ok := m["description"].(string); ok {
			out["description"] = d
		}
		return out
	}

	ts := typeList(m)
	nullable := slices.Contains(ts, "null")
	ts = slices.DeleteFunc(ts, func(t string) bool { return t == "null" })
	_, hasAnyOf := m["anyOf"]
	_, hasOneOf := m["oneOf"]
	if len(ts) == 0 && !hasAnyOf && !hasOneOf {
		if t := inferType(m); t != "" {
			ts = []string{t}
		}
	}
	if len(ts) > 1 && slices.ContainsFunc(ts, func(t string) bool { return !jsonTypes[t] }) {
		w.warn(child(path, "type"), "unknown types in the type list are dropped")
		ts = slices.DeleteFunc(ts, func(t string) bool { return !jsonTypes[t] })
	}
	var t string
	switch {
	case len(ts) > 1: // ["string","number"]: one alternative per type
		branches := make([]any, 0, len(ts))
		for _, t := range ts { // typeList: at most 6 types left, each once
			if !w.spend(len(m)) {
				w.tooLarge(path)
				return approximate(m)
			}
			b := without(m, "type", "nullable", "title", "description", "default")
			b["type"] = t
			branches = append(branches, w.node(b, path, depth+1))
		}
		return withNullable(describedLike(map[string]any{"anyOf": branches}, m), nullable)
	case len(ts) == 1:
		t = ts[0]
		if hasAnyOf || hasOneOf {
			w.warn(path, "anyOf/oneOf beside type %q is dropped", cut(t, 32))
		}
	case hasAnyOf || hasOneOf:
		return w.alternatives(m, path, depth, nullable)
	default:
		w.warn(path, "a schema without a type is offered as a string")
		t = "string"
	}
	if !jsonTypes[t] {
		w.warn(child(path, "type"), "unknown type %q is offered as a string", cut(t, 32))
		t = "string"
	}

	out := map[string]any{"type": t}
	if nullable {
		out["nullable"] = true
	}
	var notes []string
	_, hasConst := m["const"]
	for _, k := range sortedKeys(m) {
		val := m[k]
		if applies, ok := geminiKept[k]; ok {
			if applies == "" || applies == t || applies == "number" && t == "integer" {
				switch vt := valueType(val); {
				case k == "example":
					out[k] = val
				case k == "title" || k == "description" || k == "pattern":
					if vt == "string" {
						out[k] = val
					}
				case countKeywords[k]:
					if n, ok := count(val); ok {
						out[k] = n
					} else {
						w.warn(child(path, k), "%s %s is not a count (a non-negative integer): dropped", k, jsonText(val))
					}
				case vt == "integer" || vt == "number":
					out[k] = val
				}
			}
			continue
		}
		switch {
		case k == "type" || k == "nullable" || k == "anyOf" || k == "oneOf" || k == "properties" ||
			k == "required" || k == "additionalProperties" || k == "items" || k == "prefixItems":
			// Below.
		case k == "enum" && hasConst: // const says more
		case k == "enum" || k == "const":
			vals, _ := val.([]any)
			if k == "const" {
				vals = []any{val}
			}
			var strs []any
			other := false
			for _, e := range vals {
				switch e := e.(type) {
				case string:
					strs = append(strs, e)
				case nil:
					out["nullable"] = true
				default:
					other = true
				}
			}
			if t == "string" && !other {
				if len(strs) > 0 {
					out["enum"] = strs
				}
			} else {
				notes = append(notes, "Allowed values: "+jsonText(vals)+".")
				w.warn(child(path, k), "Gemini takes only strings in an enum: the allowed values are told in the description")
			}
		case k == "format":
			f, _ := val.(string)
			if slices.Contains(geminiFormats[t], f) {
				out[k] = f
			} else {
				notes = append(notes, "Format: "+jsonText(val)+".")
				w.warn(child(path, k), "format %s is not accepted by Gemini: it is told in the description", jsonText(val))
			}
		case k == "default":
			notes = append(notes, "Default: "+jsonText(val)+".")
		case (k == "exclusiveMinimum" || k == "exclusiveMaximum") && val == true: // draft 4
			bound := "minimum"
			if k == "exclusiveMaximum" {
				bound = "maximum"
			}
			notes = append(notes, "The "+bound+" is exclusive.")
			w.warn(child(path, k), "%s is not supported by Gemini: it is told in the description, the model is not held to it", k)
		case geminiDescribed[k]:
			if val != false {
				notes = append(notes, k+": "+jsonText(val)+".")
				w.warn(child(path, k), "%s is not supported by Gemini: it is told in the description, the model is not held to it", k)
			}
		case geminiDropped[k]:
			w.warn(child(path, k), "%s is not supported by Gemini and is dropped", k)
		case annotationKeywords[k] || strings.HasPrefix(k, "x-"):
		default:
			w.warn(child(path, k), "unknown keyword %q dropped", cut(k, 64))
		}
	}
	switch t {
	case "object":
		notes = append(notes, w.object(m, out, path, depth)...)
	case "array":
		w.array(m, out, path, depth)
	}
	if len(notes) > 0 {
		note(out, strings.Join(notes, " "))
	}
	return out
}

// spent: the limits were passed far enough that even approximations stop
// being added (a huge $ref target read from thousands of places).
func (w *geminiWalker) spent() bool { return w.nodes >= 2*maxNodes || w.work > 2*maxWork }

func (w *geminiWalker) object(m, out map[string]any, path string, depth int) (notes []string) {
	props, _ := m["properties"].(map[string]any)
	if len(props) > 0 {
		outProps := make(map[string]any, len(props))
		for _, p := range sortedKeys(props) {
			if w.spent() {
				w.tooLarge(path)
				break
			}
			if !isSchema(props[p]) {
				w.warn(child(path, "properties", p), "a JSON %s where a schema belongs: the property is dropped", valueType(props[p]))
				continue
			}
			outProps[p] = w.node(props[p], child(path, "properties", p), depth+1)
		}
		if len(outProps) > 0 { // Gemini refuses empty properties
			out["properties"] = outProps
		}
		var required []any
		for _, r := range unite(stringList(m["required"]), nil) {
			if _, ok := outProps[r.(string)]; ok {
				required = append(required, r)
			}
		}
		if len(required) > 0 {
			out["required"] = required
		}
	}
	// An object schema is left without "properties" rather than with an
	// empty one, which Gemini refuses.
	if ap, ok := m["additionalProperties"].(map[string]any); ok && len(ap) > 0 {
		w.warn(child(path, "additionalProperties"), "Gemini cannot describe an object's other keys (a map): the model is told in the description")
		return []string{"Other keys may be given, each value: " + jsonText(ap) + "."}
	}
	return nil
}

func (w *geminiWalker) array(m, out map[string]any, path string, depth int) {
	switch items := m["items"].(type) {
	case map[string]any:
		out["items"] = w.node(items, child(path, "items"), depth+1)
		return
	case []any: // a draft 4 tuple
		if len(items) > 0 {
			w.warn(child(path, "items"), "a tuple is offered as an array whose elements may be any of its types")
			out["items"] = w.alternatives(map[string]any{"anyOf": items}, child(path, "items"), depth+1, false)
			return
		}
	}
	if pi, ok := m["prefixItems"].([]any); ok && len(pi) > 0 {
		w.warn(child(path, "prefixItems"), "a tuple is offered as an array whose elements may be any of its types")
		out["items"] = w.alternatives(map[string]any{"anyOf": pi}, child(path, "prefixItems"), depth+1, false)
		return
	}
	// Gemini wants the elements described.
	w.warn(child(path, "items"), "the array's elements are not described: they are offered as strings")
	out["items"] = map[string]any{"type": "string"}
}

// alternatives converts an anyOf (or oneOf) node: a null alternative makes
// the others nullable, and a single remaining alternative stands alone.
func (w *geminiWalker) alternatives(m map[string]any, path string, depth int, nullable bool) map[string]any {
	kw := "anyOf"
	if _, ok := m["anyOf"]; !ok {
		kw = "oneOf"
		w.warn(child(path, kw), "oneOf is sent as anyOf: the model is not told that only one alternative may match")
	} else if _, ok := m["oneOf"]; ok {
		w.warn(child(path, "oneOf"), "oneOf beside anyOf is dropped")
	}
	bs, _ := m[kw].([]any)
	var branches []any
	for i, b := range bs {
		if i == maxBranches || w.spent() {
			w.warn(child(path, kw), "alternatives from here on are dropped (more than %d, or the schema is too large)", maxBranches)
			break
		}
		if bm, ok := b.(map[string]any); ok && slices.Equal(typeList(bm), []string{"null"}) {
			nullable = true
			continue
		}
		branches = append(branches, w.node(b, child(path, kw, strconv.Itoa(i)), depth+1))
	}
	var out map[string]any
	switch len(branches) {
	case 0:
		w.warn(child(path, kw), "no alternative besides null: offered as a string")
		out = map[string]any{"type": "string"}
	case 1:
		b, _ := branches[0].(map[string]any)
		out = without(b)
	default:
		out = map[string]any{"anyOf": branches}
	}
	return withNullable(describedLike(out, m), nullable)
}

// describedLike gives out m's title and description (m's win) and its
// default, told in the description.
func describedLike(out, m map[string]any) map[string]any {
	for _, k := range []string{"title", "description"} {
		if s, ok := m[k].(string); ok {
			out[k] = s
		}
	}
	if d, ok := m["default"]; ok {
		note(out, "Default: "+jsonText(d)+".")
	}
	return out
}

// withNullable marks a converted node nullable; on an anyOf, each
// alternative is marked, as Gemini reads nullable beside a type.
func withNullable(out map[string]any, nullable bool) map[string]any {
	if !nullable {
		return out
	}
	if bs, ok := out["anyOf"].([]any); ok {
		marked := make([]any, len(bs))
		for i, b := range bs {
			bm, _ := b.(map[string]any)
			bm = without(bm)
			bm["nullable"] = true
			marked[i] = bm
		}
		out["anyOf"] = marked
		return out
	}
	out["nullable"] = true
	return out
}

// approximate is a node past the size limits: its type (or a string) and
// its description, nothing below.
func approximate(m map[string]any) map[string]any {
	t := inferType(m)
	if ts := typeList(m); len(ts) > 0 && ts[0] != "null" && jsonTypes[ts[0]] {
		t = ts[0]
	}
	if t == "" {
		t = "string"
	}
	out := map[string]any{"type": t}
	if t == "array" {
		out["items"] = map[string]any{"type": "string"}
	}
	if d, ok := m["description"].(string); ok {
		out["description"] = d
	}
	return out
}

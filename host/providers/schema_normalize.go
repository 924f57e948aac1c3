package providers

import (
	"slices"
	"strconv"
	"strings"
)

// The kinds of value a JSON Schema keyword takes, for the normalizer: what
// JSON Schema draft 2020-12's meta-schema (which Anthropic validates
// against) wants there.
type keywordKind int

const (
	kindString keywordKind = iota + 1
	kindNumber
	kindPositive // a number above 0
	kindBool
	kindArray
	kindCount      // a non-negative integer
	kindSchema     // a schema: an object, true or false
	kindSchemaMap  // an object of schemas
	kindSchemaList // a non-empty array of schemas
)

var keywordKinds = func() map[string]keywordKind {
	kinds := map[string]keywordKind{}
	for kind, words := range map[keywordKind]string{
		kindString: "title description pattern format $comment $id $schema $anchor $dynamicRef " +
			"$dynamicAnchor contentMediaType contentEncoding",
		kindNumber:     "minimum maximum exclusiveMinimum exclusiveMaximum",
		kindPositive:   "multipleOf",
		kindBool:       "uniqueItems deprecated readOnly writeOnly",
		kindArray:      "examples enum",
		kindCount:      "minLength maxLength minItems maxItems minProperties maxProperties minContains maxContains",
		kindSchemaMap:  "properties patternProperties $defs definitions dependentSchemas",
		kindSchemaList: "allOf anyOf oneOf prefixItems",
		kindSchema: "additionalProperties items contains not if then else propertyNames unevaluatedProperties " +
			"unevaluatedItems additionalItems contentSchema",
	} {
		for _, w := range strings.Fields(words) {
			kinds[w] = kind
		}
	}
	return kinds
}()

// normalizer fixes what a provider's validator refuses in a schema that is
// otherwise sent as the server wrote it (Anthropic's input_schema, OpenAI's
// parameters with strict false), and nothing else: a keyword value of the
// wrong kind is dropped (a property whose schema is "number", a
// "required": true of draft 3, a count of 1.5), draft 4's boolean
// exclusiveMinimum/Maximum becomes the numeric form, a draft 7 tuple
// ("items": [...]) becomes prefixItems, "required" lists each name once,
// a type list each type once, and a $ref to a part of the schema that the
// top-level rewrite removed is dropped. For OpenAI every array also gets
// "items" (OpenAI refuses an array without), a tuple becoming an array of
// its elements' common type. Each change is a warning.
type normalizer struct {
	*walker
	out    map[string]any // the document sent, which $refs point into
	openAI bool
}

// normalize returns root, fixed; root itself is not changed (its subtrees
// are shared with the decoded schema).
func normalize(tool string, root map[string]any, openAI bool) (map[string]any, []Warning) {
	n := &normalizer{walker: newWalker(tool, nil), out: root, openAI: openAI}
	out := n.node(root, "", 0)
	return out, n.allWarnings()
}

func (n *normalizer) node(m map[string]any, path string, depth int) map[string]any {
	if depth > maxJSONDepth || !n.visit(m) {
		n.tooLarge(path)
		return m
	}
	out := without(m)
	draft4Bounds(m, out)
	if items, ok := m["items"].([]any); ok { // a draft 7 tuple
		n.tuple(m, out, items, path)
	}
	for _, k := range sortedKeys(out) {
		v := out[k]
		kind := keywordKinds[k]
		if kind == 0 && k != "type" && k != "required" && k != "$ref" && k != "dependencies" {
			continue // a keyword of no known kind: any value will do
		}
		kpath := child(path, k)
		switch {
		case k == "type":
			n.types(out, v, kpath)
		case k == "required":
			n.required(out, v, kpath)
		case k == "$ref":
			n.ref(out, v, kpath)
		case k == "dependencies": // draft 7: schemas or lists of names
			n.dependencies(out, v, kpath, depth)
		case kind == kindSchemaMap:
			n.schemaMap(out, k, v, kpath, depth)
		case kind == kindSchemaList:
			n.schemaList(out, k, v, kpath, depth)
		case kind == kindSchema:
			if sm, ok := v.(map[string]any); ok {
				out[k] = n.node(sm, kpath, depth+1)
			} else if !isSchema(v) {
				n.drop(out, k, kpath, "a JSON %s where a schema belongs", valueType(v))
			}
		case kind == kindCount:
			if c, ok := count(v); ok {
				out[k] = c
			} else {
				n.drop(out, k, kpath, "%s is not a count (a non-negative integer)", jsonText(v))
			}
		case kind != 0 && !kindFits(kind, v):
			n.drop(out, k, kpath, "%s takes %s, not %s", k, kindNames[kind], jsonText(v))
		}
	}
	if n.openAI && !hasItems(out) && slices.Contains(typeList(out), "array") {
		out["items"] = map[string]any{}
		n.warn(child(path, "items"), "the array's elements are not described; OpenAI refuses an array without items: items {} (any value) is sent")
	}
	return out
}

var kindNames = map[keywordKind]string{
	kindString: "a string", kindNumber: "a number", kindPositive: "a number above 0",
	kindBool: "true or false", kindArray: "a list",
}

func kindFits(kind keywordKind, v any) bool {
	vt := valueType(v)
	switch kind {
	case kindString:
		return vt == "string"
	case kindNumber:
		return vt == "integer" || vt == "number"
	case kindPositive:
		f, err := strconv.ParseFloat(jsonText(v), 64)
		return (vt == "integer" || vt == "number") && err == nil && f > 0
	case kindBool:
		return vt == "boolean"
	case kindArray:
		return vt == "array"
	}
	return true
}

func hasItems(m map[string]any) bool {
	_, ok := m["items"]
	return ok
}

func (n *normalizer) drop(out map[string]any, k, path, format string, args ...any) {
	delete(out, k)
	n.warn(path, format+": dropped", args...)
}

// types keeps the JSON types of a type keyword, each once.
func (n *normalizer) types(out map[string]any, v any, path string) {
	switch t := v.(type) {
	case string:
		if !jsonTypes[t] {
			n.drop(out, "type", path, "unknown type %q", cut(t, 32))
		}
		return
	case []any:
		ts := slices.DeleteFunc(typeList(map[string]any{"type": t}), func(s string) bool { return !jsonTypes[s] })
		switch {
		case len(ts) == 0:
			n.drop(out, "type", path, "a type list without a JSON type")
		case len(ts) != len(t):
			out["type"] = anySlice(ts)
			n.warn(path, "the type list is reduced to the JSON types it names, each once")
		}
		return
	}
	n.drop(out, "type", path, "a type that is a JSON %s", valueType(v))
}

// required keeps a list of names, each once.
func (n *normalizer) required(out map[string]any, v any, path string) {
	list, ok := v.([]any)
	if !ok {
		n.drop(out, "required", path, "a required that is a JSON %s, not a list of names", valueType(v))
		return
	}
	names := unite(stringList(list), nil)
	if len(names) != len(list) {
		out["required"] = names
		if len(stringList(list)) != len(list) {
			n.warn(path, "entries of required that are not names are dropped")
		}
	}
}

// ref drops a $ref that is not a string, or that points into a part of the
// schema not sent (a top-level anyOf merged into one object).
func (n *normalizer) ref(out map[string]any, v any, path string) {
	ref, ok := v.(string)
	if !ok {
		n.drop(out, "$ref", path, "a $ref that is a JSON %s", valueType(v))
		return
	}
	if !strings.HasPrefix(ref, "#") {
		return
	}
	if _, _, err := lookupIn(n.out, ref, n.spend); err != nil {
		n.drop(out, "$ref", path, "$ref %q points to nothing in the schema sent (%v)", cut(ref, 128), err)
	}
}

func (n *normalizer) schemaMap(out map[string]any, k string, v any, path string, depth int) {
	sm, ok := v.(map[string]any)
	if !ok {
		n.drop(out, k, path, "a %s that is a JSON %s, not an object", k, valueType(v))
		return
	}
	fixed := make(map[string]any, len(sm))
	for _, name := range sortedKeys(sm) {
		s := sm[name]
		switch s := s.(type) {
		case map[string]any:
			fixed[name] = n.node(s, child(path, name), depth+1)
		case bool:
			fixed[name] = s
		default:
			n.warn(child(path, name), "a JSON %s where a schema belongs: dropped", valueType(s))
		}
	}
	out[k] = fixed
}

func (n *normalizer) schemaList(out map[string]any, k string, v any, path string, depth int) {
	list, ok := v.([]any)
	if !ok {
		n.drop(out, k, path, "a %s that is a JSON %s, not a list of schemas", k, valueType(v))
		return
	}
	fixed := make([]any, 0, len(list))
	for i, s := range list {
		switch s := s.(type) {
		case map[string]any:
			fixed = append(fixed, n.node(s, child(path, strconv.Itoa(i)), depth+1))
		case bool:
			fixed = append(fixed, s)
		default:
			n.warn(child(path, strconv.Itoa(i)), "a JSON %s where a schema belongs: dropped", valueType(s))
		}
	}
	if len(fixed) == 0 {
		n.drop(out, k, path, "a %s without schemas", k)
		return
	}
	out[k] = fixed
}

func (n *normalizer) dependencies(out map[string]any, v any, path string, depth int) {
	dm, ok := v.(map[string]any)
	if !ok {
		n.drop(out, "dependencies", path, "dependencies that are a JSON %s, not an object", valueType(v))
		return
	}
	fixed := make(map[string]any, len(dm))
	for _, name := range sortedKeys(dm) {
		switch d := dm[name].(type) {
		case map[string]any:
			fixed[name] = n.node(d, child(path, name), depth+1)
		case []any:
			fixed[name] = unite(stringList(d), nil)
		case bool:
			fixed[name] = d
		default:
			n.warn(child(path, name), "a JSON %s where a schema or a list of names belongs: dropped", valueType(d))
		}
	}
	out["dependencies"] = fixed
}

// tuple rewrites draft 7's "items": [schemas] (with additionalItems for the
// elements past them): into prefixItems and items for Anthropic; into one
// items schema, the elements' common type, for OpenAI.
func (n *normalizer) tuple(m, out map[string]any, items []any, path string) {
	ipath := child(path, "items")
	delete(out, "items")
	if !n.openAI {
		if len(items) > 0 {
			out["prefixItems"] = items // normalized with the other keywords
		}
		if extra, ok := m["additionalItems"]; ok {
			out["items"] = extra
			delete(out, "additionalItems")
		}
		n.warn(ipath, "a tuple of draft 7 (items as a list) is sent as prefixItems")
		return
	}
	delete(out, "additionalItems")
	delete(out, "prefixItems")
	var common string
	for _, it := range items {
		im, _ := it.(map[string]any)
		ts := typeList(im)
		if len(ts) != 1 || common != "" && ts[0] != common {
			common = ""
			break
		}
		common = ts[0]
	}
	if common != "" && jsonTypes[common] {
		out["items"] = map[string]any{"type": common}
	} else {
		out["items"] = map[string]any{}
	}
	note(out, "Elements in order: "+jsonText(items)+".")
	n.warn(ipath, "OpenAI takes no tuples (items as a list): the elements are offered as %s, their order told in the description", orAny(common))
}

func orAny(t string) string {
	if t == "" {
		return "any values"
	}
	return "of type " + t
}

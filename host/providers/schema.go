package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcphost/mcphost/internal/jsonscan"
)

// Limits of schema conversion. A schema over them is approximated, with a
// warning, never refused: the tool stays usable.
const (
	// MaxSchemaBytes is the largest input schema read, as JSON; the host
	// leaves out tools with larger schemas already.
	MaxSchemaBytes = 1 << 20
	// maxJSONDepth is the deepest JSON nesting read (as the host's).
	maxJSONDepth = 100
	// maxNesting bounds schema levels produced, $refs expanded: a deeper
	// node is approximated.
	maxNesting = 32
	// maxNodes bounds the schema nodes produced for one tool, so that
	// $refs used many times over cannot multiply a small schema into a
	// huge one.
	maxNodes = 5000
	// maxBranches bounds the allOf, anyOf and oneOf branches read at one node.
	maxBranches = 64
	// maxRefHops bounds a chain of $refs pointing to $refs.
	maxRefHops = 32
	// maxWork bounds the keywords and properties one tool's conversion
	// looks at, counting every visit: the same $ref target read from many
	// places is read each time, and may be large.
	maxWork = 2_000_000
	// maxWarnings bounds the warnings of one tool; the rest are counted.
	maxWarnings = 50
)

// decodeSchema turns a tool's schema, whatever Go value holds it, into
// plain JSON values (maps, slices, strings, json.Number, bools, nil).
func decodeSchema(v any) (any, error) {
	var data []byte
	switch s := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		data = s
	case []byte:
		data = s
	default:
		var err error
		if data, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("cannot be encoded as JSON: %v", err)
		}
	}
	if len(data) > MaxSchemaBytes {
		return nil, fmt.Errorf("is %d bytes, over the limit of %d", len(data), MaxSchemaBytes)
	}
	if d := jsonscan.Depth(data); d > maxJSONDepth {
		return nil, fmt.Errorf("nests %d levels deep, over the limit of %d", d, maxJSONDepth)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // integers beyond 2^53 stay exact
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("is not JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("is not JSON: data after the schema")
	}
	return out, nil
}

// walker carries the state of one tool's schema conversion.
type walker struct {
	tool     string
	root     map[string]any
	warnings []Warning
	omitted  int            // warnings past maxWarnings
	active   map[string]int // $refs being expanded: meeting one again is a cycle
	nodes    int
	work     int
}

func newWalker(tool string, root map[string]any) *walker {
	return &walker{tool: tool, root: root, active: map[string]int{}}
}

func (w *walker) warn(path, format string, args ...any) {
	if len(w.warnings) >= maxWarnings {
		w.omitted++
		return
	}
	w.warnings = append(w.warnings, Warning{Tool: w.tool, Path: path, Message: fmt.Sprintf(format, args...)})
}

// allWarnings is the warnings, with a last one counting those left out.
func (w *walker) allWarnings() []Warning {
	if w.omitted == 0 {
		return w.warnings
	}
	return append(w.warnings, Warning{Tool: w.tool, Message: fmt.Sprintf("%d more warnings left out", w.omitted)})
}

// spend counts n units of work; false once the tool's budget is spent.
func (w *walker) spend(n int) bool {
	w.work += n
	return w.work <= maxWork
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// child is the JSON Pointer of a keyword (or property name) under path.
func child(path string, tokens ...string) string {
	for _, t := range tokens {
		path += "/" + pointerEscaper.Replace(t)
	}
	return path
}

// resolved is a schema node with its $ref followed and its allOf merged.
type resolved struct {
	m     map[string]any
	path  string   // where the node's keywords come from
	cycle bool     // a $ref led back to a node being expanded
	refs  []string // $refs marked active until release
}

func (w *walker) release(r resolved) {
	for _, ref := range r.refs {
		w.active[ref]--
	}
}

// resolve follows m's $ref (keywords beside the $ref win over the
// target's, as descriptions next to a $ref are meant to) and merges its
// allOf. The $refs followed stay active until release, so that a $ref met
// again below the node is known for a cycle.
func (w *walker) resolve(m map[string]any, path string) resolved {
	r := resolved{m: m, path: path}
	for hops := 0; ; hops++ {
		ref, ok := r.m["$ref"].(string)
		if !ok {
			break
		}
		siblings := without(r.m, "$ref")
		if hops == maxRefHops {
			w.warn(r.path, "a chain of more than %d $refs is not followed", maxRefHops)
			r.m = siblings
			break
		}
		if w.active[ref] > 0 {
			// Not expanded again; the target's words still say what it is.
			if target, _, err := w.lookup(ref); err == nil {
				for _, k := range []string{"title", "description"} {
					if _, ok := siblings[k]; !ok && target[k] != nil {
						siblings[k] = target[k]
					}
				}
			}
			r.m, r.cycle = siblings, true
			break
		}
		target, tpath, err := w.lookup(ref)
		if err != nil {
			w.warn(r.path, "$ref %q cannot be followed (%v): only the keywords beside it are kept", cut(ref, 128), err)
			r.m = siblings
			break
		}
		w.active[ref]++
		r.refs = append(r.refs, ref)
		w.spend(len(target) + len(siblings))
		merged := make(map[string]any, len(target)+len(siblings))
		for k, v := range target {
			merged[k] = v
		}
		for k, v := range siblings {
			merged[k] = v
		}
		r.m, r.path = merged, tpath
	}
	if all, ok := r.m["allOf"].([]any); ok && !r.cycle {
		base := without(r.m, "allOf")
		for i, b := range all {
			bpath := child(r.path, "allOf", strconv.Itoa(i))
			if i == maxBranches || !w.spend(1) {
				w.warn(bpath, "allOf branches from here on are dropped (more than %d, or the schema is too large)", maxBranches)
				break
			}
			bm, ok := b.(map[string]any)
			if !ok {
				if b != true {
					w.warn(bpath, "a branch that is not a schema object is dropped")
				}
				continue
			}
			br := w.resolve(bm, bpath)
			r.refs = append(r.refs, br.refs...)
			if br.cycle {
				w.warn(bpath, "a recursive allOf branch is dropped")
				continue
			}
			w.merge(base, br.m, bpath)
		}
		r.m = base
	}
	return r
}

// lookup resolves a $ref inside the tool's own schema: "#" or a JSON
// Pointer fragment such as "#/$defs/Item" or "#/definitions/Item".
func (w *walker) lookup(ref string) (map[string]any, string, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, "", errors.New("only references inside the schema (#...) are followed")
	}
	if strings.Contains(frag, "%") {
		if u, err := url.PathUnescape(frag); err == nil {
			frag = u
		}
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, "", errors.New("anchors are not supported")
	}
	var cur any = w.root
	if frag != "" {
		for _, tok := range strings.Split(frag[1:], "/") {
			tok = pointerUnescaper.Replace(tok)
			switch c := cur.(type) {
			case map[string]any:
				cur, ok = c[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				ok = err == nil && i >= 0 && i < len(c)
				if ok {
					cur = c[i]
				}
			default:
				ok = false
			}
			if !ok {
				return nil, "", errors.New("no such location")
			}
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, "", errors.New("it does not point to a schema object")
	}
	return m, frag, nil
}

// merge adds src's keywords to dst, for allOf: properties and required are
// united, other keywords kept from dst when both have them.
func (w *walker) merge(dst, src map[string]any, path string) {
	w.spend(len(src))
	for _, k := range sortedKeys(src) {
		v := src[k]
		old, had := dst[k]
		switch {
		case !had:
			dst[k] = v
		case k == "properties":
			props, ok1 := old.(map[string]any)
			add, ok2 := v.(map[string]any)
			if !ok1 || !ok2 {
				continue
			}
			w.spend(len(props) + len(add))
			union := make(map[string]any, len(props)+len(add))
			for p, s := range props {
				union[p] = s
			}
			for _, p := range sortedKeys(add) {
				if prev, dup := union[p]; dup && !w.equal(prev, add[p]) {
					w.warn(child(path, "properties", p), "allOf describes this property twice: the first description is kept")
					continue
				}
				union[p] = add[p]
			}
			dst[k] = union
		case k == "required":
			dst[k] = unite(stringList(old), stringList(v))
		case k == "description" || k == "title" || k == "$schema" || k == "$id" || k == "$comment":
			// The outer node's own words win.
		case !w.equal(old, v):
			w.warn(child(path, k), "allOf gives %s twice with different values: the first is kept", k)
		}
	}
}

// equal compares decoded JSON values, spending work on every node, and
// says false once the budget is spent (the only cost: a warning too many).
func (w *walker) equal(a, b any) bool {
	if !w.spend(1) {
		return false
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if u, ok := y[k]; !ok || !w.equal(v, u) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !w.equal(x[i], y[i]) {
				return false
			}
		}
		return true
	default: // strings, json.Number, bools, nil: comparable
		return valueType(a) == valueType(b) && a == b
	}
}

// rootObject makes the top level an object schema, as every provider
// wants: a missing schema is an object without properties, a top-level
// $ref and allOf are resolved (keeping the root's $defs for the $refs
// below), and a top-level anyOf/oneOf is merged into one object.
func (w *walker) rootObject(v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		if v != nil && v != true {
			w.warn("", "the input schema is not a schema object: the tool is offered without parameters")
		}
		return map[string]any{"type": "object", "properties": map[string]any{}}
	}
	m = without(m) // a copy: the decoded tree may be shared through $refs
	if _, ok := m["$ref"]; ok || m["allOf"] != nil {
		r := w.resolve(m, "")
		w.release(r)
		m = without(r.m)
		for _, k := range []string{"$defs", "definitions"} { // for the $refs below
			if d, ok := w.root[k]; ok {
				m[k] = d
			}
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		branches, ok := m[kw].([]any)
		if !ok {
			continue
		}
		delete(m, kw)
		props, _ := m["properties"].(map[string]any)
		props = without(props)
		var required []string
		first := true
		for i, b := range branches {
			if i == maxBranches {
				break
			}
			bm, ok := b.(map[string]any)
			if !ok {
				continue
			}
			br := w.resolve(bm, child("", kw, strconv.Itoa(i)))
			w.release(br)
			bp, _ := br.m["properties"].(map[string]any)
			for _, p := range sortedKeys(bp) {
				if _, dup := props[p]; !dup {
					props[p] = bp[p]
				}
			}
			req := stringList(br.m["required"])
			if first {
				required, first = req, false
			} else {
				required = slices.DeleteFunc(required, func(s string) bool { return !slices.Contains(req, s) })
			}
		}
		m["properties"] = props
		m["required"] = unite(stringList(m["required"]), required)
		w.warn(child("", kw), "a top-level %s of %d alternatives is merged into one object: every alternative's properties are offered, required only where all alternatives require them; the server still checks the combination", kw, len(branches))
	}
	switch t := m["type"].(type) {
	case nil:
	case string:
		if t != "object" {
			w.warn(child("", "type"), "the top level is of type %q, not an object: it is declared an object", cut(t, 32))
		}
	default:
		if !slices.Contains(stringList(t), "object") {
			w.warn(child("", "type"), "the top level is not an object: it is declared an object")
		}
	}
	m["type"] = "object"
	if _, ok := m["properties"].(map[string]any); !ok {
		m["properties"] = map[string]any{}
	}
	return m
}

// typeList lists the JSON types a node allows by its "type" keyword (and the
// OpenAPI "nullable"); nil when it has none.
func typeList(m map[string]any) []string {
	var ts []string
	switch t := m["type"].(type) {
	case string:
		ts = []string{t}
	case []any:
		ts = stringList(t)
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

// inferType guesses the type of a node without one from its other
// keywords; "" when nothing tells.
func inferType(m map[string]any) string {
	vals, _ := m["enum"].([]any)
	if c, ok := m["const"]; ok {
		vals = []any{c}
	}
	t := ""
	for _, v := range vals {
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
	if vals, ok := m["enum"].([]any); ok && slices.Contains(vals, nil) {
		return true
	}
	if c, ok := m["const"]; ok && c == nil {
		return true
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		bs, _ := m[kw].([]any)
		for _, b := range bs {
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

// jsonText is a short JSON rendering of a value for a description.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return cut(string(b), 200)
}

func without(m map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

func sortedKeys(m map[string]any) []string {
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
	out := make([]string, 0, len(a))
	for _, e := range a {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// unite returns a's strings then b's not in a, as a JSON array.
func unite(a, b []string) []any {
	out := make([]any, 0, len(a)+len(b))
	seen := map[string]bool{}
	for _, s := range slices.Concat(a, b) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

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
	cutShort bool // the budget cut the schema short (warned once)
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

// over reports whether the budget is spent.
func (w *walker) over() bool { return w.work > maxWork }

// visit charges a look at node m: its keywords and the entries of its
// lists (a node reached through a $ref is read again at every use).
func (w *walker) visit(m map[string]any) bool { return w.spend(len(m) + listEntries(m)) }

// tooLarge warns, once per walker, that the budget cut the schema short.
func (w *walker) tooLarge(path string) {
	if !w.cutShort {
		w.cutShort = true
		w.warn(path, "the schema is deeper than %d levels or too large with its $refs expanded: what lies below is not described", maxNesting)
	}
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// child is the JSON Pointer of a keyword (or property name) under path,
// for warnings. Long names are cut and the path stops growing past
// maxPathLen, so that a huge name costs nothing at every node below it.
func child(path string, tokens ...string) string {
	for _, t := range tokens {
		if len(path) > maxPathLen {
			break
		}
		path += "/" + pointerEscaper.Replace(cut(t, maxPathToken))
	}
	workDone.Add(int64(1 + len(path)/16))
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
// allOf. The $refs of the node's own chain stay active until release, so
// that a $ref met again below the node is known for a cycle; those merged
// by allOf are released at once (the node is not what they name).
// Every copy is paid for first: once the budget is spent, the node is
// approximated by its own words.
func (w *walker) resolve(m map[string]any, path string) resolved {
	r := resolved{m: m, path: path}
	for hops := 0; ; hops++ {
		ref, ok := r.m["$ref"].(string)
		if !ok {
			break
		}
		if !w.spend(len(r.m)) {
			w.shorten(&r)
			return r
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
		if !w.spend(len(target) + len(siblings)) {
			r.m = siblings
			w.shorten(&r)
			return r
		}
		w.active[ref]++
		r.refs = append(r.refs, ref)
		merged := make(map[string]any, len(target)+len(siblings))
		workDone.Add(int64(len(target) + len(siblings)))
		for k, v := range target {
			merged[k] = v
		}
		for k, v := range siblings {
			merged[k] = v
		}
		r.m, r.path = merged, tpath
	}
	if all, ok := r.m["allOf"].([]any); ok && !r.cycle {
		if !w.spend(len(r.m)) {
			w.shorten(&r)
			return r
		}
		base := without(r.m, "allOf")
		for i, b := range all {
			bpath := child(r.path, "allOf", strconv.Itoa(i))
			if i == maxBranches || w.over() {
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
			w.release(br)
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

// shorten cuts a node short once the budget is spent: only its own
// words (title, description) and its type are kept.
func (w *walker) shorten(r *resolved) {
	w.tooLarge(r.path)
	out := map[string]any{}
	for _, k := range []string{"title", "description", "type"} {
		if v, ok := r.m[k].(string); ok {
			out[k] = v
		}
	}
	r.m = out
}

// lookup resolves a $ref inside the tool's own schema: "#" or a JSON
// Pointer fragment such as "#/$defs/Item" or "#/definitions/Item".
func (w *walker) lookup(ref string) (map[string]any, string, error) {
	return lookupIn(w.root, ref, w.spend)
}

// errTooLarge: the budget is spent.
var errTooLarge = errors.New("the schema is too large")

// lookupIn resolves ref in root, paying for the bytes of ref read (a long
// $ref may be read from many places).
func lookupIn(root map[string]any, ref string, spend func(int) bool) (map[string]any, string, error) {
	cost := 1 + len(ref)/16 // a unit of work: a keyword, or 16 bytes read
	workDone.Add(int64(cost))
	if !spend(cost) {
		return nil, "", errTooLarge
	}
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
	var cur any = root
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
	return m, cut(frag, maxPathLen), nil
}

// merge adds src's keywords to dst, for allOf: properties and required are
// united, other keywords kept from dst when both have them.
func (w *walker) merge(dst, src map[string]any, path string) {
	if !w.visit(src) {
		w.tooLarge(path)
		return
	}
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
			if !w.spend(len(props) + len(add)) {
				w.tooLarge(path)
				continue
			}
			union := make(map[string]any, len(props)+len(add))
			workDone.Add(int64(len(props)))
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
			a := stringList(old)
			if !w.spend(len(a)) {
				w.tooLarge(path)
				continue
			}
			dst[k] = unite(a, stringList(v))
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
	w.visit(m)
	m = without(m) // a copy: the decoded tree may be shared through $refs
	if _, ok := m["$ref"]; ok || m["allOf"] != nil {
		r := w.resolve(m, "")
		w.release(r)
		w.spend(len(r.m))
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
		w.spend(len(props))
		props = without(props)
		var required []string
		first := true
		for i, b := range branches {
			if i == maxBranches || w.over() {
				w.warn(child("", kw, strconv.Itoa(i)), "alternatives from here on are not merged (more than %d, or the schema is too large)", maxBranches)
				break
			}
			bm, ok := b.(map[string]any)
			if !ok {
				continue
			}
			br := w.resolve(bm, child("", kw, strconv.Itoa(i)))
			w.release(br)
			bp, _ := br.m["properties"].(map[string]any)
			req := stringList(br.m["required"])
			if !w.spend(len(bp) + len(req)) {
				w.tooLarge(child("", kw, strconv.Itoa(i)))
				break
			}
			for _, p := range sortedKeys(bp) {
				if _, dup := props[p]; !dup {
					props[p] = bp[p]
				}
			}
			if first {
				required, first = req, false
			} else {
				in := make(map[string]bool, len(req))
				for _, r := range req {
					in[r] = true
				}
				required = slices.DeleteFunc(required, func(s string) bool { return !in[s] })
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

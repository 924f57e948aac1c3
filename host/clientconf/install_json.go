package clientconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/tailscale/hujson"
)

// The JSON and JSONC editor changes the bytes of one member and leaves
// every other byte of the file as it was: comments, key order, indentation,
// line endings and trailing commas. hujson parses (comments included) and
// gives the offsets; the edits are textual, laid out like the members
// around them, so that installing then uninstalling gives the file back.
// Every result is decoded again and compared with the intended document
// before it is returned.

type installDoc struct {
	src  []byte
	root hujson.Value
	obj  *hujson.Object
	nl   string
}

// edit replaces src[start:end] with text.
type textEdit struct {
	start, end int
	text       string
}

func applyTextEdits(src []byte, edits []textEdit) []byte {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b bytes.Buffer
	last := 0
	for _, e := range edits {
		b.Write(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(src[last:])
	return b.Bytes()
}

// parseJSON parses a client's file; nil (and no error) for a file with
// nothing but blanks and comments.
func (ed entryEditor) parseJSON(src []byte) (*installDoc, error) {
	if jsoncDepth(src) > maxNesting {
		return nil, fmt.Errorf("clientconf: %s nests deeper than %d levels: fix the file", ed.path, maxNesting)
	}
	if jsoncBlank(src) {
		return nil, nil
	}
	root, err := hujson.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("clientconf: %s is not valid JSON (%s): fix it (or move it away) and run the command again", ed.path, parseErrorText(err))
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("clientconf: %s does not hold a JSON object at the top: fix it (or move it away) and run the command again", ed.path)
	}
	nl := lineEnding(src)
	return &installDoc{src: src, root: root, obj: obj, nl: nl}, nil
}

// parseErrorText is a parse error without the text it quotes: hujson
// quotes a whole invalid literal, which may be an unquoted token.
func parseErrorText(err error) string {
	s := strings.TrimPrefix(err.Error(), "hujson: ")
	if i := strings.Index(s, "invalid literal"); i >= 0 {
		s = s[:i] + "invalid value (not shown: it may be a secret)"
	}
	return s
}

// member finds the member called name; more than one is an error (which
// one would the client use?).
func (ed entryEditor) member(obj *hujson.Object, name, where string) (int, error) {
	found := -1
	for i, m := range obj.Members {
		lit, ok := m.Name.Value.(hujson.Literal)
		if !ok || lit.String() != name {
			continue
		}
		if found >= 0 {
			return -1, fmt.Errorf("clientconf: %s has %q twice%s: remove one by hand", ed.path, name, where)
		}
		found = i
	}
	return found, nil
}

// container finds the object that holds the entries; its member index is
// -1 when there is none.
func (ed entryEditor) container(doc *installDoc) (int, *hujson.Object, error) {
	ci, err := ed.member(doc.obj, ed.shape.container, "")
	if err != nil || ci < 0 {
		return ci, nil, err
	}
	cobj, ok := doc.obj.Members[ci].Value.Value.(*hujson.Object)
	if !ok {
		return ci, nil, fmt.Errorf("clientconf: in %s, %q is not an object (it should map server names to their entries): fix it by hand", ed.path, ed.shape.container)
	}
	return ci, cobj, nil
}

func (ed entryEditor) jsonInstall(src []byte, entry entryObj, want map[string]any, force bool) (out []byte, old any, has bool, err error) {
	doc, err := ed.parseJSON(src)
	if err != nil {
		return nil, nil, false, err
	}
	if doc == nil {
		out = ed.freshJSON(src, entry)
	} else {
		ci, cobj, err := ed.container(doc)
		if err != nil {
			return nil, nil, false, err
		}
		var edits []textEdit
		switch {
		case ci < 0:
			edits = doc.insert(&doc.root, doc.obj, ed.shape.container, entryObj{{ed.name, entry}})
		default:
			cv := &doc.obj.Members[ci].Value
			ei, err := ed.member(cobj, ed.name, " in "+ed.shape.container)
			if err != nil {
				return nil, nil, false, err
			}
			if ei < 0 {
				edits = doc.insert(cv, cobj, ed.name, entry)
				break
			}
			m := cobj.Members[ei]
			if old, err = decodeEntryJSON(src[m.Value.StartOffset:m.Value.EndOffset]); err != nil {
				return nil, nil, false, fmt.Errorf("clientconf: %s: reading the entry %q: %v", ed.path, ed.name, err)
			}
			if sameEntry(old, want) {
				return nil, old, true, nil
			}
			if !force {
				return nil, nil, false, &ConflictError{Path: ed.path, Name: ed.name, Command: entryCommand(old), Install: true}
			}
			has = true
			edits = doc.replace(cv, m, entry)
		}
		out = applyTextEdits(src, edits)
	}
	if err := ed.verifyJSON(src, out, want); err != nil {
		return nil, nil, false, err
	}
	return out, old, has, nil
}

func (ed entryEditor) jsonUninstall(src []byte, check func(any) error) (out []byte, old any, has bool, err error) {
	doc, err := ed.parseJSON(src)
	if err != nil || doc == nil {
		return nil, nil, false, err
	}
	ci, cobj, err := ed.container(doc)
	if err != nil || ci < 0 {
		return nil, nil, false, err
	}
	ei, err := ed.member(cobj, ed.name, " in "+ed.shape.container)
	if err != nil || ei < 0 {
		return nil, nil, false, err
	}
	m := cobj.Members[ei]
	if old, err = decodeEntryJSON(src[m.Value.StartOffset:m.Value.EndOffset]); err != nil {
		return nil, nil, false, fmt.Errorf("clientconf: %s: reading the entry %q: %v", ed.path, ed.name, err)
	}
	if err := check(old); err != nil {
		return nil, nil, false, err
	}
	out = applyTextEdits(src, doc.remove(&doc.obj.Members[ci].Value, cobj, ei))
	if err := ed.verifyJSON(src, out, nil); err != nil {
		return nil, nil, false, err
	}
	return out, old, true, nil
}

// freshJSON is a new document holding the entry, after whatever comments
// the file held.
func (ed entryEditor) freshJSON(src []byte, entry entryObj) []byte {
	nl := lineEnding(src)
	st := memberStyle{pretty: true, unit: "  ", nl: nl}
	text := "{" + nl + st.unit + st.member(ed.shape.container, entryObj{{ed.name, entry}}, st.unit) + nl + "}" + nl
	if len(bytes.TrimSpace(src)) == 0 {
		return []byte(text)
	}
	out := bytes.Clone(src)
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, nl...)
	}
	return append(out, text...)
}

// verifyJSON checks that after decodes to before with the entry set to
// want (nil: removed), and that a strict JSON file stays strict.
func (ed entryEditor) verifyJSON(before, after []byte, want map[string]any) error {
	mismatch := func(why string) error {
		return fmt.Errorf("clientconf: %s: %w (%s): nothing was written; edit the file by hand, and please report this", ed.path, errEditMismatch, why)
	}
	var expect map[string]any
	if jsoncBlank(before) {
		expect = map[string]any{}
	} else {
		v, err := decodeEntryJSON(before)
		if err != nil {
			return mismatch(err.Error())
		}
		expect, _ = v.(map[string]any)
	}
	servers, _ := expect[ed.shape.container].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
	}
	if want != nil {
		servers[ed.name] = want
	} else {
		delete(servers, ed.name)
	}
	expect[ed.shape.container] = servers
	got, err := decodeEntryJSON(after)
	if err != nil {
		return mismatch(err.Error())
	}
	if !reflect.DeepEqual(dropEmptyContainer(got, ed.shape.container), dropEmptyContainer(expect, ed.shape.container)) {
		return mismatch("the other entries would change")
	}
	if ed.shape.format == FormatJSON && (json.Valid(before) || len(bytes.TrimSpace(before)) == 0) && !json.Valid(after) {
		return mismatch("the result is not strict JSON")
	}
	return nil
}

// dropEmpty treats an empty container as an absent one.
func dropEmptyContainer(v any, container string) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	if c, ok := m[container].(map[string]any); ok && len(c) == 0 {
		delete(m, container)
	}
	return m
}

// decodeJSONC decodes JSON with comments and trailing commas; numbers stay
// json.Number so that nothing is rounded.
func decodeEntryJSON(b []byte) (any, error) {
	std, err := hujson.Standardize(bytes.Clone(b))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// insert adds `"key": value` as the last member of obj (the value ov),
// laid out like the members before it.
func (d *installDoc) insert(ov *hujson.Value, obj *hujson.Object, key string, value entryObj) []textEdit {
	src := d.src
	open, closing := ov.StartOffset, ov.EndOffset-1
	n := len(obj.Members)
	if n == 0 {
		base := indentAt(src, open)
		st := memberStyle{pretty: true, unit: d.unit(), nl: d.nl}
		ind := base + st.unit
		interior := src[open+1 : closing]
		if !bytes.ContainsAny(src, "\n") && isBlank(interior) {
			// A file on one line stays on one line.
			st.pretty, st.spaced = false, bytes.Contains(src, []byte(": "))
			return []textEdit{{open + 1, closing, st.member(key, value, "")}}
		}
		if isBlank(interior) {
			return []textEdit{{open + 1, closing, d.nl + ind + st.member(key, value, ind) + d.nl + base}}
		}
		// Comments inside: the member goes on a line of its own after
		// them (after a newline outside any block comment).
		if i := lastFreeNewline(interior); i >= 0 {
			pos := open + 1 + i + 1
			return []textEdit{{pos, pos, ind + st.member(key, value, ind) + d.nl}}
		}
		st.pretty, st.spaced = false, true
		return []textEdit{{closing, closing, st.member(key, value, "") + " "}}
	}
	last := obj.Members[n-1]
	e := last.Value.EndOffset
	p := e + len(last.Value.AfterExtra) // the comma, or the closing brace
	trailingComma := src[p] == ','
	st := memberStyle{nl: d.nl, spaced: len(last.Value.BeforeExtra) > 0}
	if !bytes.Contains(last.Name.BeforeExtra, []byte("\n")) {
		sep := ","
		if st.spaced {
			sep = ", "
		}
		if trailingComma {
			return []textEdit{{p + 1, p + 1, strings.TrimPrefix(sep, ",") + st.member(key, value, "") + ","}}
		}
		return []textEdit{{e, e, sep + st.member(key, value, "")}}
	}
	st.pretty = true
	ind := indentAt(src, last.Name.StartOffset)
	st.unit = d.unitIn(open, ind)
	text := d.nl + ind + st.member(key, value, ind)
	if trailingComma {
		pos := quietLineEnd(src, p+1)
		return []textEdit{{pos, pos, text + ","}}
	}
	pos := quietLineEnd(src, e)
	return []textEdit{{e, e, ","}, {pos, pos, text}}
}

// replace puts value in place of member m's value.
func (d *installDoc) replace(ov *hujson.Value, m hujson.ObjectMember, value entryObj) []textEdit {
	st := memberStyle{nl: d.nl, spaced: len(m.Value.BeforeExtra) > 0}
	ind := ""
	if bytes.Contains(m.Name.BeforeExtra, []byte("\n")) {
		st.pretty = true
		ind = indentAt(d.src, m.Name.StartOffset)
		st.unit = d.unitIn(ov.StartOffset, ind)
	}
	return []textEdit{{m.Value.StartOffset, m.Value.EndOffset, st.value(value, ind)}}
}

// remove takes member i out of obj (the value ov): its whole lines when it
// has lines of its own, and the comma that went with it.
func (d *installDoc) remove(ov *hujson.Value, obj *hujson.Object, i int) []textEdit {
	src := d.src
	open, closing := ov.StartOffset, ov.EndOffset-1
	m := obj.Members[i]
	start, end := m.Name.StartOffset, m.Value.EndOffset
	p := end + len(m.Value.AfterExtra)
	hasComma := src[p] == ','
	if hasComma {
		end = p + 1
	}
	ls := lineStartAt(src, start)
	le := bytes.IndexByte(src[end:], '\n')
	if le < 0 {
		le = len(src)
	} else {
		le += end
	}
	var edits []textEdit
	if isBlank(src[ls:start]) && isBlank(src[end:le]) {
		to := min(le+1, len(src))
		edits = append(edits, textEdit{ls, to, ""})
		if !hasComma && i > 0 {
			prev := obj.Members[i-1].Value
			c := prev.EndOffset + len(prev.AfterExtra)
			edits = append(edits, textEdit{c, c + 1, ""})
		}
		start, end = ls, to
	} else {
		switch {
		case i > 0:
			start = obj.Members[i-1].Value.EndOffset
			end = m.Value.EndOffset
		case hasComma && i+1 < len(obj.Members):
			end = obj.Members[i+1].Name.StartOffset
		}
		edits = append(edits, textEdit{start, end, ""})
	}
	if len(obj.Members) == 1 && isBlank(src[open+1:start]) && isBlank(src[end:closing]) {
		return []textEdit{{open + 1, closing, ""}}
	}
	return edits
}

// unit is the file's indentation step: how much deeper the top object's
// first member is than the object.
func (d *installDoc) unit() string {
	for _, m := range d.obj.Members {
		if bytes.Contains(m.Name.BeforeExtra, []byte("\n")) {
			return d.unitIn(d.root.StartOffset, indentAt(d.src, m.Name.StartOffset))
		}
	}
	return "  "
}

// unitIn is the indentation step of an object whose brace is at open and
// whose members are indented by ind.
func (d *installDoc) unitIn(open int, ind string) string {
	base := indentAt(d.src, open)
	if len(ind) > len(base) && strings.HasPrefix(ind, base) {
		return ind[len(base):]
	}
	if ind != "" && isBlank([]byte(ind)) {
		return ind
	}
	return "  "
}

func lineStartAt(src []byte, pos int) int { return bytes.LastIndexByte(src[:pos], '\n') + 1 }

func indentAt(src []byte, pos int) string {
	s := lineStartAt(src, pos)
	j := s
	for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
		j++
	}
	return string(src[s:j])
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// quietLineEnd is where a new line can begin after pos: the end of pos's
// line (before its "\r\n" or "\n") when only blanks or a line comment
// follow pos there, else pos itself.
func quietLineEnd(src []byte, pos int) int {
	j := pos
	for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
		j++
	}
	switch {
	case j+1 < len(src) && src[j] == '/' && src[j+1] == '/':
		k := bytes.IndexByte(src[j:], '\n')
		if k < 0 {
			return pos
		}
		j += k
	case j < len(src) && src[j] == '\n':
	default:
		return pos
	}
	if j > pos && src[j-1] == '\r' {
		j--
	}
	return j
}

// lastFreeNewline is the index of the last newline of extra (blanks and
// comments) that is not inside a block comment; -1 if none.
func lastFreeNewline(extra []byte) int {
	last := -1
	for i := 0; i < len(extra); i++ {
		switch {
		case extra[i] == '\n':
			last = i
		case bytes.HasPrefix(extra[i:], []byte("//")):
			k := bytes.IndexByte(extra[i:], '\n')
			if k < 0 {
				return last
			}
			i += k
			last = i
		case bytes.HasPrefix(extra[i:], []byte("/*")):
			k := bytes.Index(extra[i+2:], []byte("*/"))
			if k < 0 {
				return last
			}
			i += 2 + k + 1
		}
	}
	return last
}

// jsoncBlank reports whether b holds only blanks and comments.
func jsoncBlank(b []byte) bool {
	v, err := hujson.Parse(append(bytes.Clone(b), "\nnull"...))
	if err != nil {
		return false
	}
	lit, ok := v.Value.(hujson.Literal)
	return ok && string(lit) == "null" && v.StartOffset == len(b)+1
}

// jsoncDepth is the deepest nesting of objects and arrays in JSON text
// with comments, counted without parsing (so a hostile file cannot make a
// parser recurse).
func jsoncDepth(b []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			k := bytes.Index(b[i+2:], []byte("*/"))
			if k < 0 {
				return deepest
			}
			i += 2 + k + 1
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

package clientconf

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/knadh/koanf/parsers/toml/v2"

	"github.com/mcphost/mcphost/internal/tomlguard"
)

// The TOML editor (Codex's config.toml) never re-encodes the file: it
// appends one [mcp_servers.NAME] table at the end, or cuts exactly that
// table (and its sub-tables) out, so every other byte, comments included,
// stays. A small lexer finds the table headers (outside strings, comments
// and multi-line values); the parser then confirms that the result holds
// exactly the intended change. An entry written in another form (an
// inline table, dotted keys) is refused rather than rewritten.

// tomlHeader is one [table] or [[array]] header line.
type tomlHeader struct {
	start   int      // the line's first byte
	key     []string // nil when the key is written in a form not read here
	array   bool
	lastSig int // end of the last byte of content before the next header
}

func (ed entryEditor) parseTOML(src []byte) (map[string]any, error) {
	doc, err := parseTOMLSafely(src)
	var ge *tomlguard.Error
	switch {
	case errors.As(err, &ge) && errors.Is(err, tomlguard.ErrTooDeep):
		return nil, fmt.Errorf("clientconf: %s nests deeper than %d levels (line %d): fix the file", ed.path, maxNesting, ge.Line)
	case errors.As(err, &ge):
		return nil, fmt.Errorf("clientconf: %s: %v: fix the file", ed.path, guardError(err))
	case err != nil:
		where := ""
		var pos interface{ Position() (int, int) }
		if errors.As(err, &pos) {
			line, col := pos.Position()
			where = fmt.Sprintf("line %d, column %d: ", line, col)
		}
		return nil, fmt.Errorf("clientconf: %s is not valid TOML (%s%v): fix it and run the command again", ed.path, where, err)
	case doc == nil:
		doc = map[string]any{}
	}
	return doc, nil
}

// parseTOMLSafely turns a panic of the third-party parser into an error:
// the file is someone else's, and a parser bug must not crash mcphost. A
// file the parser would recurse through without bound (a key of a million
// dotted parts, deep arrays: a stack overflow, which no recover stops) is
// refused first with a *tomlguard.Error.
func parseTOMLSafely(src []byte) (doc map[string]any, err error) {
	if err := tomlguard.Check(src, maxNesting); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("the TOML parser failed: %v", r)
		}
	}()
	return toml.Parser().Unmarshal(src)
}

// tomlServers parses src and returns the document and its table of
// servers (nil when there is none).
func (ed entryEditor) tomlServers(src []byte) (doc, servers map[string]any, err error) {
	doc, err = ed.parseTOML(src)
	if err != nil {
		return nil, nil, err
	}
	v, ok := doc[ed.shape.container]
	if !ok {
		return doc, nil, nil
	}
	servers, ok = v.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("clientconf: in %s, %s is not a table: fix it by hand", ed.path, ed.shape.container)
	}
	return doc, servers, nil
}

func (ed entryEditor) tomlInstall(src []byte, entry entryObj, want map[string]any, force bool) (out []byte, old any, has bool, err error) {
	doc, servers, err := ed.tomlServers(src)
	if err != nil {
		return nil, nil, false, err
	}
	nl := lineEnding(src)
	table := tomlTable(ed.shape.container, ed.name, entry, nl)
	if cur, ok := servers[ed.name]; ok {
		if sameEntry(cur, want) {
			return nil, cur, true, nil
		}
		if !force {
			return nil, nil, false, &ConflictError{Path: ed.path, Name: ed.name, Command: entryCommand(cur), Install: true}
		}
		start, end, ok := ed.tomlRegion(src, nl)
		if !ok {
			return nil, nil, false, ed.tomlUneditable(table)
		}
		out = slices.Concat(src[:start], []byte(table), src[end:])
		old, has = cur, true
	} else {
		out = bytes.Clone(src)
		if len(out) > 0 {
			if !bytes.HasSuffix(out, []byte("\n")) {
				out = append(out, nl...)
			}
			out = append(out, nl...)
		}
		out = append(out, table...)
	}
	if err := ed.verifyTOML(doc, out, want); err != nil {
		if errors.Is(err, errEditMismatch) {
			return nil, nil, false, ed.tomlUneditable(table)
		}
		return nil, nil, false, err
	}
	return out, old, has, nil
}

func (ed entryEditor) tomlUninstall(src []byte, check func(any) error) (out []byte, old any, has bool, err error) {
	doc, servers, err := ed.tomlServers(src)
	if err != nil {
		return nil, nil, false, err
	}
	cur, ok := servers[ed.name]
	if !ok {
		return nil, nil, false, nil
	}
	if err := check(cur); err != nil {
		return nil, nil, false, err
	}
	nl := lineEnding(src)
	start, end, ok := ed.tomlRegion(src, nl)
	if !ok {
		return nil, nil, false, ed.tomlUneditable("")
	}
	// The blank line install put before the table goes with it.
	if prevLineBlank(src, start) {
		start = lineStartAt(src, start-1)
	}
	out = slices.Concat(src[:start], src[end:])
	if err := ed.verifyTOML(doc, out, nil); err != nil {
		if errors.Is(err, errEditMismatch) {
			return nil, nil, false, ed.tomlUneditable("")
		}
		return nil, nil, false, err
	}
	return out, cur, true, nil
}

func (ed entryEditor) tomlUneditable(table string) error {
	what := fmt.Sprintf("remove the entry %s.%s by hand", ed.shape.container, ed.name)
	if table != "" {
		what = "add this table by hand:\n" + table
	}
	return fmt.Errorf("clientconf: %s writes %s in a form mcphost does not edit (an inline table or dotted keys, not a [%s.%s] table): %s",
		ed.path, ed.shape.container, ed.shape.container, ed.name, what)
}

// verifyTOML checks that after parses to before with the entry set to
// want (nil: removed).
func (ed entryEditor) verifyTOML(before map[string]any, after []byte, want map[string]any) error {
	got, err := parseTOMLSafely(after)
	if err != nil {
		return fmt.Errorf("clientconf: %s: %w (%v)", ed.path, errEditMismatch, err)
	}
	expect := make(map[string]any, len(before)+1)
	for k, v := range before {
		expect[k] = v
	}
	servers := map[string]any{}
	if cur, ok := before[ed.shape.container].(map[string]any); ok {
		for k, v := range cur {
			servers[k] = v
		}
	}
	if want != nil {
		servers[ed.name] = want
	} else {
		delete(servers, ed.name)
	}
	expect[ed.shape.container] = servers
	if got == nil {
		got = map[string]any{}
	}
	if !reflect.DeepEqual(dropEmptyContainer(got, ed.shape.container), dropEmptyContainer(expect, ed.shape.container)) {
		return fmt.Errorf("clientconf: %s: %w", ed.path, errEditMismatch)
	}
	return nil
}

// tomlRegion finds the [container.NAME] table with its sub-tables: from its
// header line to the end of the line of its last content (comments and
// blank lines after it stay: they are likely the next table's).
func (ed entryEditor) tomlRegion(src []byte, nl string) (start, end int, ok bool) {
	headers := scanTOML(src)
	want := []string{ed.shape.container, ed.name}
	first := -1
	for i, h := range headers {
		if !h.array && slices.Equal(h.key, want) {
			if first >= 0 {
				return 0, 0, false
			}
			first = i
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	last := first
	for last+1 < len(headers) {
		k := headers[last+1].key
		if len(k) <= len(want) || !slices.Equal(k[:len(want)], want) {
			break
		}
		last++
	}
	start = headers[first].start
	end = headers[last].lastSig
	if i := bytes.IndexByte(src[end:], '\n'); i >= 0 {
		end += i + 1
	} else {
		end = len(src)
	}
	return start, end, true
}

// prevLineBlank reports whether the line before the one starting at pos
// is empty.
func prevLineBlank(src []byte, pos int) bool {
	if pos == 0 || src[pos-1] != '\n' {
		return false
	}
	prev := src[lineStartAt(src, pos-1) : pos-1]
	return len(bytes.TrimRight(prev, "\r")) == 0 && pos-1 > 0
}

// scanTOML finds the table headers of a TOML file (outside arrays and
// inline tables). It does not validate: the parser does, and tomlguard
// bounds the file's nesting before that.
func scanTOML(src []byte) (headers []tomlHeader) {
	depth := 0
	lineStartPos := 0
	atLineStart := true
	lastSig := 0
	sig := func(end int) {
		lastSig = end
		atLineStart = false
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			atLineStart = true
			lineStartPos = i + 1
		case c == ' ' || c == '\t' || c == '\r':
		case c == '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			i = skipTOMLString(src, i)
			sig(min(i+1, len(src)))
		case c == '[' && atLineStart && depth == 0:
			key, array, next := parseTOMLHeader(src, i)
			if len(headers) > 0 {
				headers[len(headers)-1].lastSig = lastSig
			}
			headers = append(headers, tomlHeader{start: lineStartPos, key: key, array: array})
			sig(next)
			i = next - 1
		case c == '[' || c == '{':
			depth++
			sig(i + 1)
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
			sig(i + 1)
		default:
			sig(i + 1)
		}
	}
	if len(headers) > 0 {
		headers[len(headers)-1].lastSig = lastSig
	}
	return headers
}

// skipTOMLString returns the index of the last byte of the string that
// starts at src[i] (a quote): basic or literal, single- or multi-line;
// len(src) when it does not end.
func skipTOMLString(src []byte, i int) int {
	q := src[i]
	if bytes.HasPrefix(src[i:], []byte{q, q, q}) {
		for j := i + 3; j < len(src); j++ {
			if q == '"' && src[j] == '\\' {
				j++
				continue
			}
			if bytes.HasPrefix(src[j:], []byte{q, q, q}) {
				// Up to two more quotes belong to the content.
				end := j + 2
				for k := 0; k < 2 && end+1 < len(src) && src[end+1] == q; k++ {
					end++
				}
				return end
			}
		}
		return len(src)
	}
	for j := i + 1; j < len(src); j++ {
		switch {
		case q == '"' && src[j] == '\\':
			j++
		case src[j] == q, src[j] == '\n':
			return j
		}
	}
	return len(src)
}

// parseTOMLHeader reads the header at src[i] ('['): its dotted key (nil if
// a part is a quoted key with escapes, which is not decoded here), whether
// it is an [[array]], and the index after its closing bracket(s).
func parseTOMLHeader(src []byte, i int) (key []string, array bool, next int) {
	j := i + 1
	if j < len(src) && src[j] == '[' {
		array = true
		j++
	}
	ok := true
	for {
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j >= len(src) {
			return nil, array, j
		}
		switch c := src[j]; {
		case c == '"' || c == '\'':
			end := skipTOMLString(src, j)
			if end >= len(src) {
				return nil, array, len(src)
			}
			part := src[j+1 : end]
			if src[end] != c || (c == '"' && bytes.IndexByte(part, '\\') >= 0) {
				ok = false
			}
			key = append(key, string(part))
			j = end + 1
		case isBareKeyByte(c):
			k := j
			for j < len(src) && isBareKeyByte(src[j]) {
				j++
			}
			key = append(key, string(src[k:j]))
		default:
			return nil, array, j
		}
		for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j < len(src) && src[j] == '.' {
			j++
			continue
		}
		if j < len(src) && src[j] == ']' {
			j++
			if array {
				if j >= len(src) || src[j] != ']' {
					return nil, array, j
				}
				j++
			}
			if !ok {
				return nil, array, j
			}
			return key, array, j
		}
		return nil, array, j
	}
}

func isBareKeyByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

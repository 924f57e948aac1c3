package clientconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
	"go.yaml.in/yaml/v3"

	"github.com/mcphost/mcphost/internal/tomlguard"
)

// maxFileDepth bounds how deep a client file may nest objects and arrays.
// Real files nest a handful of levels; the JSONC parser recurses once per
// level, so without a bound a file of a few megabytes of "[" would exhaust
// the stack (which Go cannot recover from) instead of being refused.
const maxFileDepth = 100

var errTooDeep = fmt.Errorf("nested more than %d levels deep", maxFileDepth)

// maxFileValues bounds how many values one file may hold (a 4 MiB file of tiny
// values would otherwise become millions of Go values).
const maxFileValues = 200_000

// parseClientFile reads a client file into generic values: maps with string
// keys, []any, string, bool, float64 or int64, json.Number. The root must
// be an object.
func parseClientFile(format Format, data []byte) (map[string]any, error) {
	var (
		raw any
		err error
	)
	switch format {
	case FormatJSON, FormatJSONC:
		raw, err = readJSONC(data)
	case FormatTOML:
		raw, err = readTOML(data)
	case FormatYAML:
		raw, err = readYAML(data)
	default:
		return nil, fmt.Errorf("unknown format %q", format)
	}
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return map[string]any{}, nil // an empty file holds no servers
	}
	nodes := 0
	v, err := plainValues(raw, 0, &nodes)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("the file is not an object of settings (it holds a list or a single value)")
	}
	return m, nil
}

// readJSONC reads JSON with comments and trailing commas (VS Code, Zed,
// Gemini CLI); strict JSON is a subset.
func readJSONC(data []byte) (any, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM, as Windows editors write
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if d := nestingOf(data); d > maxFileDepth {
		return nil, errTooDeep
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %s", oneLineError(err))
	}
	dec := json.NewDecoder(bytes.NewReader(std))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %s", oneLineError(err))
	}
	return v, nil
}

// readTOML reads TOML (Codex). A file the parser would recurse through
// without bound (a key of a million dotted parts, deep arrays) is refused
// before it is parsed.
func readTOML(data []byte) (v any, err error) {
	if err := tomlguard.Check(data, maxFileDepth); err != nil {
		return nil, guardError(err)
	}
	defer func() {
		// As for YAML: a parser bug on someone else's file is an error.
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("not valid TOML: %v", r)
		}
	}()
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("not valid TOML: %s", oneLineError(err))
	}
	return m, nil
}

// readYAML reads YAML. The parser refuses excessive nesting and alias
// expansion itself; normalize bounds what comes out.
func readYAML(data []byte) (v any, err error) {
	defer func() {
		// The YAML library has panicked on malformed input in the past: a
		// broken file is an error, never a crash.
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("not valid YAML: %v", r)
		}
	}()
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("not valid YAML: %s", oneLineError(err))
	}
	return v, nil
}

// oneLineError keeps a parser's message to one line: some quote the
// offending input, which may be long (or a secret on the same line).
func oneLineError(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return msg
}

// normalize turns what a parser gave into plain generic values (YAML may
// give maps with non-string keys), bounding depth and size.
func plainValues(v any, depth int, nodes *int) (any, error) {
	*nodes++
	if *nodes > maxFileValues {
		return nil, fmt.Errorf("more than %d values", maxFileValues)
	}
	if depth > maxFileDepth {
		return nil, errTooDeep
	}
	switch t := v.(type) {
	case map[string]any:
		return plainMap(t, depth, nodes)
	case map[any]any:
		return plainMap(t, depth, nodes)
	case []any:
		return plainList(t, depth, nodes)
	case []map[string]any: // TOML arrays of tables
		return plainList(t, depth, nodes)
	}
	return v, nil
}

// plainMap is plainValues for a map: its keys become strings.
func plainMap[K comparable](t map[K]any, depth int, nodes *int) (any, error) {
	out := make(map[string]any, len(t))
	for k, e := range t {
		n, err := plainValues(e, depth+1, nodes)
		if err != nil {
			return nil, err
		}
		key, ok := any(k).(string)
		if !ok {
			key = fmt.Sprint(k)
		}
		out[key] = n
	}
	return out, nil
}

// plainList is plainValues for a list.
func plainList[E any](t []E, depth int, nodes *int) (any, error) {
	out := make([]any, len(t))
	for i, e := range t {
		n, err := plainValues(e, depth+1, nodes)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// nestingOf is the deepest nesting of brackets and braces in JSONC text,
// outside strings and comments. It never fails: on text that does not parse
// the answer is only an estimate, and the parser reports the error.
func nestingOf(data []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		case c == '"':
			i = endOfString(data, i)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			if n := bytes.IndexByte(data[i:], '\n'); n >= 0 {
				i += n
			} else {
				i = len(data)
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			if end := bytes.Index(data[i+2:], []byte("*/")); end >= 0 {
				i += end + 3
			} else {
				i = len(data)
			}
		}
	}
	return deepest
}

// endOfString returns the index of the quote that ends the JSON string
// starting at data[i] (len(data) if none does).
func endOfString(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(data)
}

// guardError is how a file tomlguard refused is reported: where, and why,
// without quoting it.
func guardError(err error) error {
	var ge *tomlguard.Error
	if errors.As(err, &ge) {
		return fmt.Errorf("line %d, column %d: %w", ge.Line, ge.Column, err)
	}
	return err
}

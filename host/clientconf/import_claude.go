package clientconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
)

// maxClaudeJSONBytes bounds ~/.claude.json, which holds Claude Code's
// whole state (each project's history, caches) beside its servers and
// grows far beyond an ordinary settings file.
const maxClaudeJSONBytes = 64 << 20

// maxBytesOf is the largest file of kind read at path.
func maxBytesOf(kind Kind, path string, normal int64) int64 {
	if kind == ClaudeCode && filepath.Base(path) == ".claude.json" {
		return maxClaudeJSONBytes
	}
	return normal
}

// readClaudeJSON reads from Claude Code's JSON only what holds servers:
// mcpServers, and projects[<dir>].mcpServers. Everything else is stepped
// over without being kept, so that a large ~/.claude.json costs little.
func readClaudeJSON(data []byte) (map[string]any, error) {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(data) > 0 && data[0] != '{' {
		return nil, errors.New("the file is not an object of settings (it holds a list or a single value)")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	root := map[string]any{}
	err := eachMember(dec, func(key string) error {
		switch key {
		case "mcpServers":
			return keep(dec, root, key)
		case "projects":
			projects := map[string]any{}
			root[key] = projects
			return eachMember(dec, func(dir string) error {
				p := map[string]any{}
				projects[dir] = p
				return eachMember(dec, func(k string) error {
					if k == "mcpServers" {
						return keep(dec, p, k)
					}
					return skipValue(dec)
				})
			})
		}
		return skipValue(dec)
	})
	if errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0 {
		return root, nil
	}
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %s", oneLineError(err))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not valid JSON: text after the end of the object")
	}
	nodes := 0
	v, err := plainValues(root, 0, &nodes)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// errNotObject: a value that should be an object of members is not one.
var errNotObject = errors.New("expected an object")

// eachMember calls member for every key of the object that comes next; a
// value that is not an object is stepped over (nothing to read in it).
func eachMember(dec *json.Decoder, member func(key string) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
	case json.Delim('['):
		return skipRest(dec)
	default:
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return errNotObject
		}
		if err := member(key); err != nil {
			return err
		}
	}
	_, err = dec.Token() // '}'
	return err
}

// keep decodes the next value into m[key].
func keep(dec *json.Decoder, m map[string]any, key string) error {
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	m[key] = v
	return nil
}

// skipValue steps over the next value, token by token: nothing of it is
// kept but the current string.
func skipValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		return skipRest(dec)
	}
	return nil
}

// skipRest steps over what is left of an object or array whose opening
// delimiter was read.
func skipRest(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
	}
	return nil
}

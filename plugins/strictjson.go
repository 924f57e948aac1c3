package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/mcphost/mcphost/internal/jsonscan"
)

// strictUnmarshal decodes exactly one JSON value into v, refusing unknown
// fields, trailing data, keys in another letter case than the field's and
// duplicate keys (see checkKeys).
func strictUnmarshal(data []byte, v any) error {
	if decodeFast(data, v) {
		return nil
	}
	// The slow path decides and words the error, into a v the fast path
	// may have half filled.
	reflect.ValueOf(v).Elem().SetZero()
	return decodeExact(data, v)
}

// decodeFast decodes data into v when it is certainly an answer that
// decodeExact accepts, to the same value: one valid JSON value, no key
// twice or with an escape, no deeper than maxAnswerDepth, every key a
// field of v's types in the exact letter case. It parses the answer about
// three times faster than decodeExact, which walks it a second time token
// by token. false says nothing; FuzzStrictUnmarshal holds the two paths
// to the same answers.
func decodeFast(data []byte, v any) bool {
	if !fastjson.Valid(data) || !jsonscan.UniqueKeys(data, maxAnswerDepth) {
		return false
	}
	_, err := fastjson.Parse(data, v, fastjson.DisallowUnknownFields|fastjson.DontMatchCaseInsensitiveStructFields)
	return err == nil
}

// decodeExact is strictUnmarshal's slow path, encoding/json's decoder and
// checkKeys, which explains every refusal.
func decodeExact(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errEmptyAnswer
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid output: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("invalid output: data after the JSON value")
	}
	if err := checkKeys(data, v); err != nil {
		return fmt.Errorf("invalid output: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// maxAnswerDepth bounds the nesting of a plugin's answer.
const maxAnswerDepth = 1000

var rawMessageType = reflect.TypeOf(json.RawMessage(nil))

// checkKeys reads a plugin's JSON answer as v's type expects it and refuses
// what encoding/json would quietly accept: a key in another letter case
// than the field's ("Decision" for "decision": encoding/json matches keys
// case-insensitively), and a key given twice in one object anywhere in the
// answer (encoding/json keeps the last, so a guest and the host could read
// one answer differently). Unknown fields are left to the decoder.
func checkKeys(data []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	return walkValue(dec, reflect.TypeOf(v), 0, "")
}

func walkValue(dec *json.Decoder, t reflect.Type, depth int, path string) error {
	if depth > maxAnswerDepth {
		return fmt.Errorf("nested deeper than %d levels", maxAnswerDepth)
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType {
		t = nil // free-form JSON: duplicates are still checked
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	delim, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch delim {
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := walkValue(dec, elem, depth+1, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case '{':
		var fields map[string]reflect.Type
		var elem reflect.Type
		if t != nil {
			switch t.Kind() {
			case reflect.Struct:
				fields = jsonFields(t)
			case reflect.Map:
				elem = t.Elem()
			}
		}
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := kt.(string)
			where := joinPath(path, key)
			if seen[key] {
				return fmt.Errorf("key %q appears twice", where)
			}
			seen[key] = true
			ft := elem
			if fields != nil {
				var known bool
				if ft, known = fields[key]; !known {
					for name := range fields {
						if strings.EqualFold(name, key) {
							return fmt.Errorf("key %q: keys are case-sensitive, write %q", where, joinPath(path, name))
						}
					}
				}
			}
			if err := walkValue(dec, ft, depth+1, where); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonFields maps a struct's JSON keys, exactly as its tags spell them, to
// their types (embedded structs' fields included).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					out[k] = v
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

var errEmptyAnswer = errors.New("empty output (want a JSON object)")

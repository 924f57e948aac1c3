// Package wire encodes and decodes the ABI documents of package abi inside
// the guest without reflection.
//
// Why not encoding/json: in a Go guest under Extism's timeout (wazero's
// close-on-context-done, which checks at every loop of the compiled code,
// and Go's wasm code is loops throughout), decoding one 140-byte policy
// request with encoding/json took ~150 µs, three times the whole rest of the
// call; this decoder does it in a fraction of that. It accepts exactly what
// encoding/json accepts for these documents and produces the same values
// (tests compare the two on every document and fuzz them), with two
// deliberate differences: object keys match exactly (encoding/json also
// accepts other cases, which no host sends), and error messages differ. On
// output, raw JSON (a transform's result) is written as it is rather than
// checked and compacted (see appendRaw).
// Values of unknown Go types inside generic maps (a plugin may put anything
// into PolicyDecision.Arguments) are encoded by encoding/json.
package wire

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds nesting as encoding/json does, so that a hostile document
// cannot exhaust the stack.
const maxDepth = 10000

type decoder struct {
	b     []byte
	i     int
	depth int
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", d.i, fmt.Sprintf(format, args...))
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (d *decoder) peek() byte {
	d.ws()
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

// document decodes a whole input with fn (which reads one value) and
// refuses anything after it.
func document(b []byte, fn func(d *decoder) error) error {
	d := &decoder{b: b}
	if err := fn(d); err != nil {
		return err
	}
	// Not peek: it also answers 0 for a NUL byte, which is data too.
	d.ws()
	if d.i < len(d.b) {
		return d.errorf("data after the document")
	}
	return nil
}

// null consumes a null literal if one comes next.
func (d *decoder) null() bool {
	if d.peek() == 'n' && len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// object reads an object (or null, which leaves everything unset), calling
// field for every key with the decoder at the key's value; field must
// consume the value (skip does for unknown keys).
func (d *decoder) object(field func(key string) error) error {
	if d.null() {
		return nil
	}
	if d.peek() != '{' {
		return d.errorf("want an object")
	}
	d.i++
	if d.depth++; d.depth > maxDepth {
		return d.errorf("nested too deeply")
	}
	defer func() { d.depth-- }()
	if d.peek() == '}' {
		d.i++
		return nil
	}
	for {
		if d.peek() != '"' {
			return d.errorf("want a key")
		}
		key, err := d.rawString()
		if err != nil {
			return err
		}
		if d.peek() != ':' {
			return d.errorf("want ':'")
		}
		d.i++
		if err := field(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return d.errorf("want ',' or '}'")
		}
	}
}

// array reads an array (or null), calling elem with the decoder at each
// element; elem must consume it.
func (d *decoder) array(elem func() error) error {
	if d.null() {
		return nil
	}
	if d.peek() != '[' {
		return d.errorf("want an array")
	}
	d.i++
	if d.depth++; d.depth > maxDepth {
		return d.errorf("nested too deeply")
	}
	defer func() { d.depth-- }()
	if d.peek() == ']' {
		d.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return nil
		default:
			return d.errorf("want ',' or ']'")
		}
	}
}

// str reads a string into *s; null leaves it unchanged.
func (d *decoder) str(s *string) error {
	if d.null() {
		return nil
	}
	if d.peek() != '"' {
		return d.errorf("want a string")
	}
	v, err := d.rawString()
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// boolean reads true or false into *v; null leaves it unchanged.
func (d *decoder) boolean(v *bool) error {
	if d.null() {
		return nil
	}
	switch {
	case d.peek() == 't' && len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "true":
		d.i += 4
		*v = true
	case d.peek() == 'f' && len(d.b)-d.i >= 5 && string(d.b[d.i:d.i+5]) == "false":
		d.i += 5
		*v = false
	default:
		return d.errorf("want true or false")
	}
	return nil
}

// boolPtr reads true, false or null (nil) into *v.
func (d *decoder) boolPtr(v **bool) error {
	if d.null() {
		*v = nil
		return nil
	}
	b := new(bool)
	if err := d.boolean(b); err != nil {
		return err
	}
	*v = b
	return nil
}

// integer reads an integer number into *v, refusing fractions and
// exponents as encoding/json does for int fields; null leaves it unchanged.
func (d *decoder) integer(v *int) error {
	if d.null() {
		return nil
	}
	lit, err := d.number()
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(lit, 10, strconv.IntSize)
	if err != nil {
		return d.errorf("number %s is not an int", lit)
	}
	*v = int(n)
	return nil
}

// number reads a number literal, checked against the JSON grammar (which is
// stricter than strconv's).
func (d *decoder) number() (string, error) {
	d.ws()
	start := d.i
	b := d.b
	i := d.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return "", d.errorf("want a value")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return "", d.errorf("bad number")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return "", d.errorf("bad number")
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	d.i = i
	return string(b[start:i]), nil
}

// rawString reads a string token (the decoder is at its opening quote),
// unescaping it. Invalid UTF-8 and lone surrogates become U+FFFD, as in
// encoding/json.
func (d *decoder) rawString() (string, error) {
	d.i++ // the opening quote
	start := d.i
	// Fast path: plain ASCII without escapes needs no copy beyond string().
	// Locals, as in skipString.
	b, i := d.b, d.i
	for i < len(b) {
		c := b[i]
		if c == '"' {
			d.i = i + 1
			return string(b[start:i]), nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	d.i = i
	out := append([]byte(nil), d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return string(out), nil
		case c < 0x20:
			return "", d.errorf("control character in a string")
		case c == '\\':
			if d.i+1 >= len(d.b) {
				return "", d.errorf("unterminated string")
			}
			e := d.b[d.i+1]
			d.i += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", d.errorf("bad \\u escape")
				}
				if utf16.IsSurrogate(r) {
					// A pair decodes to one rune; anything else is U+FFFD and
					// the next escape is read on its own.
					r2 := rune(-1)
					if len(d.b)-d.i >= 6 && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
						save := d.i
						d.i += 2
						var ok2 bool
						if r2, ok2 = d.hex4(); !ok2 {
							return "", d.errorf("bad \\u escape")
						}
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							continue
						}
						d.i = save
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", d.errorf("bad escape \\%c", e)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			d.i++
		default:
			r, size := utf8.DecodeRune(d.b[d.i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, d.b[d.i:d.i+size]...)
			}
			d.i += size
		}
	}
	return "", d.errorf("unterminated string")
}

func (d *decoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// value reads any value as encoding/json does into an `any`:
// map[string]any, []any, string, float64, bool or nil.
func (d *decoder) value() (any, error) {
	switch c := d.peek(); c {
	case '{':
		m := map[string]any{}
		err := d.object(func(key string) error {
			v, err := d.value()
			m[key] = v
			return err
		})
		return m, err
	case '[':
		a := []any{}
		err := d.array(func() error {
			v, err := d.value()
			a = append(a, v)
			return err
		})
		return a, err
	case '"':
		return d.rawString()
	case 't', 'f':
		var b bool
		err := d.boolean(&b)
		return b, err
	case 'n':
		if d.null() {
			return nil, nil
		}
		return nil, d.errorf("want a value")
	default:
		lit, err := d.number()
		if err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return nil, d.errorf("number %s does not fit a float64", lit)
		}
		return f, nil
	}
}

// object into a map[string]any; null gives nil.
func (d *decoder) anyMap(m *map[string]any) error {
	if d.null() {
		*m = nil
		return nil
	}
	if d.peek() != '{' {
		return d.errorf("want an object")
	}
	v, err := d.value()
	if err != nil {
		return err
	}
	if *m == nil {
		*m = v.(map[string]any)
		return nil
	}
	// A repeated key: encoding/json decodes into the existing map.
	for k, e := range v.(map[string]any) {
		(*m)[k] = e
	}
	return nil
}

// stringMap reads an object of strings; null gives nil.
func (d *decoder) stringMap(m *map[string]string) error {
	if d.null() {
		*m = nil
		return nil
	}
	if *m == nil {
		*m = map[string]string{}
	}
	return d.object(func(key string) error {
		var s string
		if err := d.str(&s); err != nil {
			return err
		}
		(*m)[key] = s
		return nil
	})
}

// raw reads any value and returns a copy of its bytes, as a
// json.RawMessage field gets them (null included).
func (d *decoder) raw() ([]byte, error) {
	d.ws()
	start := d.i
	if err := d.skip(); err != nil {
		return nil, err
	}
	return append([]byte(nil), d.b[start:d.i]...), nil
}

// skip validates and passes over one value without building it.
func (d *decoder) skip() error {
	switch c := d.peek(); c {
	case '{':
		return d.object(func(string) error { return d.skip() })
	case '[':
		return d.array(d.skip)
	case '"':
		return d.skipString()
	case 't', 'f':
		var b bool
		return d.boolean(&b)
	case 'n':
		if d.null() {
			return nil
		}
		return d.errorf("want a value")
	default:
		_, err := d.number()
		return err
	}
}

// skipString passes over a string token, checking its escapes and control
// characters, without building it (a transform's result can be large). The
// loop works on locals: Go's wasm code keeps those in wasm locals, while
// d.b[d.i] would load both from memory on every byte.
func (d *decoder) skipString() error {
	b, i := d.b, d.i+1 // after the opening quote
	for i < len(b) {
		c := b[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		switch {
		case c == '"':
			d.i = i + 1
			return nil
		case c < 0x20:
			d.i = i
			return d.errorf("control character in a string")
		}
		// A backslash.
		if i+1 >= len(b) {
			d.i = i
			return d.errorf("unterminated string")
		}
		switch e := b[i+1]; e {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			d.i = i + 2
			if _, ok := d.hex4(); !ok {
				return d.errorf("bad \\u escape")
			}
			i = d.i
		default:
			d.i = i
			return d.errorf("bad escape \\%c", e)
		}
	}
	d.i = i
	return d.errorf("unterminated string")
}

// Package jsonscan answers questions about JSON text without decoding it.
package jsonscan

import (
	"bytes"
	"unicode/utf8"
)

// stringEnd returns the index of the quote that ends the string whose
// contents start at data[i] (len(data) if it does not end). Long runs
// without escapes are crossed with bytes.IndexByte; each byte is looked at
// a bounded number of times, however many escapes there are.
func stringEnd(data []byte, i int) int {
	for {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return len(data)
		}
		q += i // the next quote: the end, unless an escape takes it
		for {
			b := bytes.IndexByte(data[i:q], '\\')
			if b < 0 {
				return q
			}
			i += b + 2 // the backslash and the character it escapes
			if i > q {
				break // the quote was escaped: look for the next one
			}
		}
		if i >= len(data) {
			return len(data)
		}
	}
}

// Depth is the deepest nesting of objects and arrays in JSON text (0 for a
// scalar). It reads the bytes once and trusts the text to be JSON: on
// anything else the answer means nothing, but it never fails.
func Depth(data []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			i = stringEnd(data, i+1)
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// maxLinearKeys is how many keys of one object are compared one by one
// before a map takes over (so that a hostile object of many keys costs
// linear time).
const maxLinearKeys = 16

// UniqueKeys reports whether no object in JSON text has a key twice, no
// key holds an escape sequence, and nothing nests deeper than maxDepth. It
// trusts the text to be valid JSON (check that first: on anything else the
// answer means nothing, but it never fails). A key with an escape makes it
// answer false rather than decode the key: "a\u0062" and "ab" are the same
// key, and a caller with a slower exact path can take that one.
func UniqueKeys(data []byte, maxDepth int) bool {
	type object struct {
		first int                 // index in keys of its first key
		seen  map[string]struct{} // once it has more than maxLinearKeys
	}
	var (
		stack     []*object // nil entries: arrays
		keys      [][]byte
		expectKey bool
	)
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			j := stringEnd(data, i+1)
			if expectKey && bytes.IndexByte(data[i+1:min(j, len(data))], '\\') >= 0 {
				return false
			}
			// Invalid UTF-8 decodes to U+FFFD: two keys of different bytes
			// can be one key once decoded.
			if expectKey && !utf8.Valid(data[i+1:min(j, len(data))]) {
				return false
			}
			if expectKey {
				expectKey = false
				if len(stack) == 0 || stack[len(stack)-1] == nil {
					return false // not JSON
				}
				o, key := stack[len(stack)-1], data[i+1:min(j, len(data))]
				if o.seen != nil {
					if _, dup := o.seen[string(key)]; dup {
						return false
					}
					o.seen[string(key)] = struct{}{}
				} else {
					for _, k := range keys[o.first:] {
						if string(k) == string(key) {
							return false
						}
					}
					keys = append(keys, key)
					if len(keys)-o.first > maxLinearKeys {
						o.seen = make(map[string]struct{}, 2*maxLinearKeys)
						for _, k := range keys[o.first:] {
							o.seen[string(k)] = struct{}{}
						}
						keys = keys[:o.first]
					}
				}
			}
			i = j
		case '{', '[':
			if len(stack) >= maxDepth {
				return false
			}
			var o *object
			if c == '{' {
				o = &object{first: len(keys)}
			}
			stack = append(stack, o)
			expectKey = c == '{'
		case '}', ']':
			if len(stack) == 0 {
				return false
			}
			if o := stack[len(stack)-1]; o != nil {
				keys = keys[:o.first]
			}
			stack = stack[:len(stack)-1]
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] != nil
		}
	}
	return true
}

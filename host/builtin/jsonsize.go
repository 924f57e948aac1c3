package builtin

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The sizes here are those of a value as any JSON encoder mcphost's
// callers use may write it: Go's encoding/json escapes <, > and & (six
// bytes each), go-sdk re-encodes numbers from float64 (1e20 becomes 21
// digits). Each piece is counted at its longest form, so a size bounds the
// result whoever encodes it next.

// encodedLen is the length of v, a value decoded with UseNumber, in its
// longest encoding. It stops counting once past limit: a result of
// megabytes is measured only as far as the budget it is measured against.
func encodedLen(v any, limit int) int {
	switch v := v.(type) {
	case nil:
		return 4
	case bool:
		if v {
			return 4
		}
		return 5
	case string:
		return stringLen(v, limit)
	case json.Number:
		return numberLen(v)
	case []any:
		n := 2 + max(len(v)-1, 0) // brackets, commas
		for _, e := range v {
			if n > limit {
				break
			}
			n += encodedLen(e, limit-n)
		}
		return n
	case map[string]any:
		n := 2 + max(len(v)-1, 0) // braces, commas
		for k, e := range v {
			if n > limit {
				break
			}
			n += stringLen(k, limit-n) + 1
			n += encodedLen(e, limit-n)
		}
		return n
	}
	// Not a value the decoder makes: counted as if it could not fit.
	return limit + 1
}

// stringLen is the length of s as a JSON string (quotes included),
// stopping once past limit.
func stringLen(s string, limit int) int {
	n := 2
	for i := 0; i < len(s) && n <= limit; {
		r, size := runeLen(s[i:])
		n += r
		i += size
	}
	return n
}

// asciiLen is the encoded length of each ASCII character.
var asciiLen = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			t[c] = 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			t[c] = 6 // \u00XX
		default:
			t[c] = 1
		}
	}
	return t
}()

// runeLen is the encoded length of the character s starts with, and the
// bytes it takes in s.
func runeLen(s string) (encoded, size int) {
	if c := s[0]; c < utf8.RuneSelf {
		return int(asciiLen[c]), 1
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == '\u2028' || r == '\u2029' || r == utf8.RuneError && size == 1 {
		return 6, size
	}
	return size, size
}

// numberLen is the longer of a number as written and as a float64 encodes.
func numberLen(n json.Number) int {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return len(n)
	}
	// encoding/json's float format: %f between 1e-6 and 1e21, else %e
	// with the exponent's leading zero dropped.
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, format, -1, 64)
	if k := len(b); format == 'e' && k >= 4 && b[k-4] == 'e' && b[k-3] == '-' && b[k-2] == '0' {
		b = b[:k-1]
	}
	return max(len(n), len(b))
}

// cutEncoded returns the longest prefix of s, whole characters, whose
// encoded length (quotes included) is at most n; "" when not even one
// character fits.
func cutEncoded(s string, n int) string {
	used := 2
	for i := 0; i < len(s); {
		r, size := runeLen(s[i:])
		if used+r > n {
			return s[:i]
		}
		used += r
		i += size
	}
	return s
}

// scanLen is encodedLen of what JSON text decodes to, read from the text
// without decoding it (a decode of a few KiB costs a hundred
// microseconds). It trusts the text to be JSON: on anything else the
// answer means nothing, but it never fails. It never counts less than
// encodedLen: a key given twice is counted twice, an invalid byte as the
// six of \ufffd. It stops counting once past limit.
func scanLen(data []byte, limit int) int {
	n := 0
	for i := 0; i < len(data) && n <= limit; {
		switch c := data[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '"':
			var size int
			i, size = scanString(data, i+1, limit-n)
			n += size
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(data) && strings.IndexByte("+-.eE0123456789", data[j]) >= 0 {
				j++
			}
			n += numberLen(json.Number(data[i:j]))
			i = j
		default: // punctuation and the letters of true, false and null
			n++
			i++
		}
	}
	return n
}

// scanString measures the string whose contents start at data[i], as
// stringLen measures it decoded, and returns the index after its closing
// quote. It stops once past limit.
func scanString(data []byte, i, limit int) (next, size int) {
	n := 2
	for i < len(data) && n <= limit {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, n
		case c == '\\' && i+1 < len(data):
			enc, used := escapeLen(data[i:])
			n += enc
			i += used
		case c < utf8.RuneSelf:
			n += int(asciiLen[c])
			i++
		default:
			r, width := utf8.DecodeRune(data[i:])
			switch {
			case r == utf8.RuneError && width == 1, r == '\u2028', r == '\u2029':
				n += 6
			default:
				n += width
			}
			i += width
		}
	}
	return len(data), n
}

// escapeLen is the encoded length of the character an escape sequence at
// the start of s decodes to, and the bytes of s it takes.
func escapeLen(s []byte) (encoded, used int) {
	switch s[1] {
	case 'u':
		r, used := hexRune(s)
		if utf16.IsSurrogate(r) {
			// A pair decodes to one character of four bytes; a lone
			// half to U+FFFD.
			if r2, used2 := hexRune(s[used:]); used2 == 6 {
				if utf16.DecodeRune(r, r2) != utf8.RuneError {
					return 4, used + used2
				}
			}
			return 3, used
		}
		if r < utf8.RuneSelf {
			return int(asciiLen[r]), used
		}
		if r == '\u2028' || r == '\u2029' {
			return 6, used
		}
		return utf8.RuneLen(r), used
	case '/':
		return 1, 2
	case 'b', 'f':
		return 6, 2
	}
	return 2, 2 // \" \\ \n \r \t
}

// hexRune reads \uXXXX at the start of s; used is 6, or less (and the
// rune U+FFFD) when s does not start with a whole one.
func hexRune(s []byte) (r rune, used int) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return utf8.RuneError, min(len(s), 2)
	}
	v, err := strconv.ParseUint(string(s[2:6]), 16, 32)
	if err != nil {
		return utf8.RuneError, 6
	}
	return rune(v), 6
}

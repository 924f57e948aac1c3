package builtin

import (
	"encoding/json"
	"math"
	"strconv"
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

// runeLen is the encoded length of the character s starts with, and the
// bytes it takes in s.
func runeLen(s string) (encoded, size int) {
	c := s[0]
	if c < utf8.RuneSelf {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			return 2, 1
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			return 6, 1 // \u00XX
		}
		return 1, 1
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

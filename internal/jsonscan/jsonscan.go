// Package jsonscan answers questions about JSON text without decoding it.
package jsonscan

// Depth is the deepest nesting of objects and arrays in JSON text (0 for a
// scalar). It reads the bytes once and trusts the text to be JSON: on
// anything else the answer means nothing, but it never fails.
func Depth(data []byte) int {
	depth, deepest := 0, 0
	inStr, esc := false, false
	for _, c := range data {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// Package glob is the one name matcher of mcphost: tool allow/deny lists,
// policy globs, plugin server globs and allowed host names all use it.
//
// Syntax:
//
//   - any run of characters, the empty run included: '/', '.', ':' and '_' too
//     ?       exactly one character (one Unicode code point)
//     [abc]   one character of the set; [a-z] a range; [!abc] or [^abc] any other
//     \c      the character c itself (\*, \?, \[, \\)
//
// Unlike path.Match, '*' does not stop at '/': a server that names its tool
// "fs/delete_file" must not walk past a deny list of "*delete*". Matching is
// case-sensitive and takes time proportional to len(pattern)*len(name) at
// worst (no exponential backtracking), so a hostile name cannot stall it.
//
// It uses the standard library only, so a Go plugin (TinyGo too) can import
// it and match exactly as the host does.
package glob

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxPatternLength bounds a pattern: globs come from configuration files,
// some of which a cloned repository carries.
const MaxPatternLength = 1024

// Pattern is a compiled glob.
type Pattern struct {
	text  string
	items []item
}

type itemKind uint8

const (
	literal itemKind = iota // one rune
	anyOne                  // ?
	anyRun                  // *
	class                   // [...]
)

type item struct {
	kind   itemKind
	r      rune      // literal
	negate bool      // class
	ranges [][2]rune // class: inclusive ranges
}

// Compile parses a pattern; the error says what is wrong with it.
func Compile(pattern string) (*Pattern, error) {
	if len(pattern) > MaxPatternLength {
		return nil, fmt.Errorf("bad glob %q: longer than %d bytes", truncate(pattern), MaxPatternLength)
	}
	if !utf8.ValidString(pattern) {
		return nil, fmt.Errorf("bad glob %q: not valid UTF-8", pattern)
	}
	p := &Pattern{text: pattern}
	for i := 0; i < len(pattern); {
		r, w := utf8.DecodeRuneInString(pattern[i:])
		i += w
		switch r {
		case '*':
			// Consecutive stars are one star.
			if n := len(p.items); n == 0 || p.items[n-1].kind != anyRun {
				p.items = append(p.items, item{kind: anyRun})
			}
		case '?':
			p.items = append(p.items, item{kind: anyOne})
		case '\\':
			if i >= len(pattern) {
				return nil, fmt.Errorf("bad glob %q: ends with an escaping backslash (write \\\\ for a backslash)", pattern)
			}
			r, w = utf8.DecodeRuneInString(pattern[i:])
			i += w
			p.items = append(p.items, item{kind: literal, r: r})
		case '[':
			it, n, err := parseClass(pattern[i:])
			if err != nil {
				return nil, fmt.Errorf("bad glob %q: %w", pattern, err)
			}
			i += n
			p.items = append(p.items, it)
		default:
			p.items = append(p.items, item{kind: literal, r: r})
		}
	}
	return p, nil
}

var errUnclosed = errors.New("'[' without a closing ']' (write \\[ for a bracket)")

// parseClass reads a class body after '[' and returns it with the bytes
// used, the closing ']' included.
func parseClass(s string) (item, int, error) {
	it := item{kind: class}
	i := 0
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		it.negate = true
		i++
	}
	first := true
	for {
		if i >= len(s) {
			return item{}, 0, errUnclosed
		}
		if s[i] == ']' && !first {
			i++
			break
		}
		first = false
		lo, w, err := classRune(s[i:])
		if err != nil {
			return item{}, 0, err
		}
		i += w
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			i++
			hi, w, err = classRune(s[i:])
			if err != nil {
				return item{}, 0, err
			}
			i += w
			if hi < lo {
				return item{}, 0, fmt.Errorf("range %q-%q runs backwards", lo, hi)
			}
		}
		it.ranges = append(it.ranges, [2]rune{lo, hi})
	}
	return it, i, nil
}

func classRune(s string) (rune, int, error) {
	if s[0] == '\\' {
		if len(s) < 2 {
			return 0, 0, errUnclosed
		}
		r, w := utf8.DecodeRuneInString(s[1:])
		return r, 1 + w, nil
	}
	r, w := utf8.DecodeRuneInString(s)
	return r, w, nil
}

// MustCompile is Compile for patterns written in the source code.
func MustCompile(pattern string) *Pattern {
	p, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return p
}

// Valid reports whether pattern compiles.
func Valid(pattern string) error {
	_, err := Compile(pattern)
	return err
}

// Match reports whether name matches pattern; a pattern that does not
// compile matches nothing (validate patterns where they are loaded).
func Match(pattern, name string) bool {
	p, err := Compile(pattern)
	return err == nil && p.Match(name)
}

// MatchAny reports whether name matches any of the patterns.
func MatchAny(patterns []string, name string) bool {
	for _, g := range patterns {
		if Match(g, name) {
			return true
		}
	}
	return false
}

// String is the pattern as written.
func (p *Pattern) String() string { return p.text }

// Match reports whether the whole of name matches the pattern.
func (p *Pattern) Match(name string) bool {
	// Iterative matching with one backtrack point (the last '*'): a later
	// star makes every earlier choice final, so the work is bounded by
	// len(items)*len(name) steps.
	items := p.items
	pi, ni := 0, 0
	starPi, starNi := -1, 0
	for ni < len(name) || pi < len(items) {
		if pi < len(items) {
			it := items[pi]
			if it.kind == anyRun {
				starPi, starNi = pi, ni
				pi++
				continue
			}
			if ni < len(name) {
				r, w := utf8.DecodeRuneInString(name[ni:])
				if it.matches(r) {
					pi++
					ni += w
					continue
				}
			}
		}
		if starPi < 0 || starNi >= len(name) {
			return false
		}
		_, w := utf8.DecodeRuneInString(name[starNi:])
		starNi += w
		pi, ni = starPi+1, starNi
	}
	return true
}

func (it item) matches(r rune) bool {
	switch it.kind {
	case literal:
		return r == it.r
	case anyOne:
		return true
	case class:
		in := false
		for _, rg := range it.ranges {
			if rg[0] <= r && r <= rg[1] {
				in = true
				break
			}
		}
		return in != it.negate
	}
	return false
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

package config

import (
	"errors"
	"fmt"
	"strings"
)

// UnsetVariableError is returned by Expand for a ${NAME} reference without a
// default whose variable is not set. It carries only the name, never the
// string being expanded, because that string may be a secret (a header or
// env value).
type UnsetVariableError struct {
	Name string
}

func (e *UnsetVariableError) Error() string {
	return fmt.Sprintf("variable %q is not set (set it, or write ${%s:-default})", e.Name, e.Name)
}

// maxExpandDepth bounds nesting like ${A:-${B:-${C}}}: real configs nest once
// or twice, and a bound keeps hostile input from recursing without end.
const maxExpandDepth = 16

// Expand replaces variable references in s, the way Claude Code does in
// .mcp.json, so that files can be shared between hosts:
//
//	${NAME}          the value of NAME; an error if NAME is not set
//	${NAME:-default} the value of NAME if set and not empty, else default
//	                 (default may itself hold references and $$)
//	$$               a literal $
//
// Any other $ (as in "$HOME" or "pa$word") is kept literally: only the braced
// form is a reference, so secrets that happen to contain $ survive. NAME must
// match [A-Za-z_][A-Za-z0-9_]*. A malformed reference (an unterminated "${",
// an empty or bad name, an unknown modifier) is an error. Error messages name
// the variable but never quote s, which may be a secret.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	var b strings.Builder
	i, err := expandInto(&b, s, 0, lookup, true, 0)
	if err != nil {
		return "", err
	}
	if i != len(s) {
		// Only a nested call stops early; at depth 0 we always reach the end.
		return "", errors.New("malformed ${...}")
	}
	return b.String(), nil
}

// expandInto expands s from index i into b. At depth 0 it runs to the end of
// s; inside a default (depth > 0) it stops at the unmatched '}' and returns
// its index. With eval false it only checks the syntax (the default of a set
// variable is parsed, to find its end, but not evaluated).
func expandInto(b *strings.Builder, s string, i int, lookup func(string) (string, bool), eval bool, depth int) (int, error) {
	for i < len(s) {
		c := s[i]
		if depth > 0 && c == '}' {
			return i, nil
		}
		if c != '$' || i+1 >= len(s) {
			b.WriteByte(c)
			i++
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i += 2
			continue
		case '{':
		default:
			b.WriteByte('$')
			i++
			continue
		}
		// A reference: ${NAME} or ${NAME:-default}.
		start := i + 2
		j := start
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		name := s[start:j]
		switch {
		case j >= len(s):
			if name == "" {
				return 0, errors.New(`unterminated "${"`)
			}
			return 0, fmt.Errorf(`unterminated "${%s"`, name)
		case name == "":
			return 0, errors.New(`malformed "${": expected a variable name`)
		case name[0] >= '0' && name[0] <= '9':
			return 0, fmt.Errorf("bad variable name %q: it must not start with a digit", name)
		}
		if s[j] == '}' {
			if eval {
				v, ok := lookup(name)
				if !ok {
					return 0, &UnsetVariableError{Name: name}
				}
				b.WriteString(v)
			}
			i = j + 1
			continue
		}
		if s[j] != ':' || j+1 >= len(s) || s[j+1] != '-' {
			return 0, fmt.Errorf(`malformed "${%s...}": expected "}" or ":-" after the name`, name)
		}
		if depth+1 > maxExpandDepth {
			return 0, fmt.Errorf("references nested more than %d deep", maxExpandDepth)
		}
		v, ok := "", false
		if eval {
			v, ok = lookup(name)
		}
		useDefault := eval && (!ok || v == "")
		var def strings.Builder
		end, err := expandInto(&def, s, j+2, lookup, useDefault, depth+1)
		if err != nil {
			return 0, err
		}
		if end >= len(s) || s[end] != '}' {
			return 0, fmt.Errorf(`unterminated "${%s:-"`, name)
		}
		if eval {
			if useDefault {
				b.WriteString(def.String())
			} else {
				b.WriteString(v)
			}
		}
		i = end + 1
	}
	return i, nil
}

func isNameByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

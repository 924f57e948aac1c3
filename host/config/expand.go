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
	// Secret: the reference is a secret field's, which takes no default
	// (the default would be the secret, written in the file).
	Secret bool
}

func (e *UnsetVariableError) Error() string {
	if e.Secret {
		return fmt.Sprintf("variable %q is not set (set it: a secret field takes no default)", e.Name)
	}
	return fmt.Sprintf("variable %q is not set (set it, or write ${%s:-default})", e.Name, e.Name)
}

// SecretError is returned for a ${secret:NAME} reference that could not be
// resolved. It carries the name and the secret store's reason, never a
// value.
type SecretError struct {
	Name string
	Err  error
}

func (e *SecretError) Error() string { return fmt.Sprintf("${secret:%s}: %v", e.Name, e.Err) }
func (e *SecretError) Unwrap() error { return e.Err }

// errNoSecretStore: the caller gave no way to resolve ${secret:NAME}.
var errNoSecretStore = errors.New("secret references cannot be resolved here (no secret store was given)")

// maxExpandDepth bounds nesting like ${A:-${B:-${C}}}: real configs nest once
// or twice, and a bound keeps hostile input from recursing without end.
const maxExpandDepth = 16

// secretPrefix starts a reference to a secret of the OS keychain.
const secretPrefix = "secret:"

// maxSecretNameLength is the longest secret name (the keychain store's
// limit, see "mcphost secret set").
const maxSecretNameLength = 64

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
//
// A ${secret:NAME} reference is an error here: use ExpandSecrets.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	return ExpandSecrets(s, lookup, nil)
}

// ExpandSecrets is Expand that also resolves ${secret:NAME} with secret
// (NAME: 1 to 64 letters, digits, '_', '-' or '.'). A secret is looked up
// only where its value is used: in the default of a variable that is set,
// it is checked for syntax but not resolved. A nil secret makes every
// reference that is used an error. A malformed s is an error before any
// variable or secret is looked up: "${secret:a}${" does not ask for a.
func ExpandSecrets(s string, lookup func(string) (string, bool), secret func(name string) (string, error)) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	if _, err := SecretRefs(s); err != nil {
		return "", err
	}
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	x := &expander{s: s, lookup: lookup, secret: secret}
	var b strings.Builder
	i, err := x.expandInto(&b, 0, true, 0)
	if err != nil {
		return "", err
	}
	if i != len(s) {
		// Only a nested call stops early; at depth 0 we always reach the end.
		return "", errors.New("malformed ${...}")
	}
	return b.String(), nil
}

// SecretRefs lists the names of the ${secret:NAME} references in s, used or
// not, in order; an error if s is malformed. It reads no variable and no
// secret.
func SecretRefs(s string) ([]string, error) {
	if !strings.Contains(s, "${") {
		return nil, nil
	}
	x := &expander{s: s, lookup: func(string) (string, bool) { return "", false }}
	var b strings.Builder
	if _, err := x.expandInto(&b, 0, false, 0); err != nil {
		return nil, err
	}
	return x.seen, nil
}

// expander holds what one expansion shares across nesting levels.
type expander struct {
	s      string
	lookup func(string) (string, bool)
	secret func(string) (string, error)
	seen   []string // secret names met, for SecretRefs
}

// expandInto expands s from index i into b. At depth 0 it runs to the end of
// s; inside a default (depth > 0) it stops at the unmatched '}' and returns
// its index. With eval false it only checks the syntax (the default of a set
// variable is parsed, to find its end, but not evaluated).
func (x *expander) expandInto(b *strings.Builder, i int, eval bool, depth int) (int, error) {
	s := x.s
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
		// "${secret:-x}" is the variable "secret" with a default.
		if rest := s[i+2:]; strings.HasPrefix(rest, secretPrefix) && !strings.HasPrefix(rest, secretPrefix+"-") {
			end, err := x.secretRef(b, i+2+len(secretPrefix), eval)
			if err != nil {
				return 0, err
			}
			i = end
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
				v, ok := x.lookup(name)
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
			v, ok = x.lookup(name)
		}
		useDefault := eval && (!ok || v == "")
		var def strings.Builder
		end, err := x.expandInto(&def, j+2, useDefault, depth+1)
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

// secretRef reads the NAME} of a ${secret:NAME} reference starting at i and
// returns the index after the '}'.
func (x *expander) secretRef(b *strings.Builder, i int, eval bool) (int, error) {
	s := x.s
	j := i
	for j < len(s) && j-i <= maxSecretNameLength && isSecretNameByte(s[j]) {
		j++
	}
	name := s[i:j]
	switch {
	case name == "":
		return 0, errors.New(`malformed "${secret:": expected a secret name (letters, digits, _ - and .)`)
	case len(name) > maxSecretNameLength:
		return 0, fmt.Errorf("secret name %q...: longer than %d characters", name[:16], maxSecretNameLength)
	case j >= len(s):
		return 0, fmt.Errorf(`unterminated "${secret:%s"`, name)
	case s[j] != '}':
		return 0, fmt.Errorf(`malformed "${secret:%s...}": expected "}" after the secret name (a secret takes no default; write ${VAR:-default} around it if you need one)`, name)
	}
	x.seen = append(x.seen, name)
	if eval {
		if x.secret == nil {
			return 0, &SecretError{Name: name, Err: errNoSecretStore}
		}
		v, err := x.secret(name)
		if err != nil {
			return 0, &SecretError{Name: name, Err: err}
		}
		b.WriteString(v)
	}
	return j + 1, nil
}

func isNameByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func isSecretNameByte(c byte) bool { return isNameByte(c) || c == '-' || c == '.' }

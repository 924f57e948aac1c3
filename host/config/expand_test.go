package config

import (
	"errors"
	"strings"
	"testing"
)

func mapLookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestExpand(t *testing.T) {
	vars := map[string]string{"HOME": "/home/u", "TOKEN": "s3cr3t", "EMPTY": "", "A_1": "a"}
	tests := []struct {
		in, want string
		err      string // substring of the error, "" for none
	}{
		{"plain", "plain", ""},
		{"", "", ""},
		{"${HOME}/bin", "/home/u/bin", ""},
		{"Bearer ${TOKEN}", "Bearer s3cr3t", ""},
		{"${A_1}${A_1}", "aa", ""},
		{"${MISSING:-def}", "def", ""},
		{"${EMPTY:-def}", "def", ""},
		{"${TOKEN:-def}", "s3cr3t", ""},
		{"${MISSING:-}", "", ""},
		{"${MISSING:-${HOME}/x}", "/home/u/x", ""},
		{"${MISSING:-${ALSO:-deep}}", "deep", ""},
		{"${HOME:-${UNSET}}", "/home/u", ""}, // the default of a set variable is not evaluated
		{"${MISSING:-a$$b}", "a$b", ""},
		{"$$", "$", ""},
		{"$${HOME}", "${HOME}", ""},
		{"pa$word", "pa$word", ""},
		{"$HOME", "$HOME", ""},
		{"end$", "end$", ""},
		{"$5", "$5", ""},
		{"${MISSING:-a:b}", "a:b", ""},
		{"${MISSING}", "", `variable "MISSING" is not set`},
		{"x${MISSING:-${UNSET}}", "", `variable "UNSET" is not set`},
		{"${", "", "unterminated"},
		{"${HOME", "", "unterminated"},
		{"${HOME:-abc", "", "unterminated"},
		{"${}", "", "expected a variable name"},
		{"${-x}", "", "expected a variable name"},
		{"${1A}", "", "must not start with a digit"},
		{"${A:x}", "", `expected "}" or ":-"`},
		{"${A-x}", "", `expected "}" or ":-"`},
		{"${A:", "", `expected "}" or ":-"`},
		{"${HO ME}", "", `expected "}" or ":-"`},
		{strings.Repeat("${A:-", 20) + "x" + strings.Repeat("}", 20), "", "nested more than"},
	}
	for _, tt := range tests {
		got, err := Expand(tt.in, mapLookup(vars))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Expand(%q) error = %v, want it to contain %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Expand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestExpandUnsetErrorType(t *testing.T) {
	_, err := Expand("Bearer ${TOKEN}", mapLookup(nil))
	var ue *UnsetVariableError
	if !errors.As(err, &ue) || ue.Name != "TOKEN" {
		t.Fatalf("got %v, want *UnsetVariableError for TOKEN", err)
	}
}

func TestExpandErrorNeverQuotesInput(t *testing.T) {
	for _, in := range []string{"hunter2${", "hunter2${X", "hunter2${X:y}", "hunter2${}", "hunter2${MISSING}"} {
		_, err := Expand(in, mapLookup(nil))
		if err == nil {
			t.Fatalf("Expand(%q): want an error", in)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Expand(%q) error leaks the input: %v", in, err)
		}
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{"", "a", "${A}", "${A:-b}", "$$", "${", "${A:-${B:-c}}", "$${A}", "${A:-}}", "}${", "${:-}", "$"} {
		f.Add(s)
	}
	lookup := mapLookup(map[string]string{"A": "x$y", "B": "", "C": "${A}"})
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Expand(s, lookup)
		if err != nil {
			if out != "" {
				t.Fatalf("Expand(%q) returned %q with error %v", s, out, err)
			}
			return
		}
		// Without any "${" and "$$" the input is returned unchanged.
		if !strings.Contains(s, "${") && !strings.Contains(s, "$$") && out != s {
			t.Fatalf("Expand(%q) = %q, want the input unchanged", s, out)
		}
		// Values are inserted literally: expanding the output of a
		// reference-free input again is the identity for inputs without "$".
		if !strings.Contains(s, "$") && out != s {
			t.Fatalf("Expand(%q) = %q", s, out)
		}
	})
}

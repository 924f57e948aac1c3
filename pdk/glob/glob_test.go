package glob

import (
	"path"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		// '*' crosses every separator path.Match stops at.
		{"*delete*", "fs/delete_file", true},
		{"*delete*", "delete", true},
		{"*", "", true},
		{"*", "a/b/c", true},
		{"*__delete*", "mcp__fs__delete_file", true},
		{"mcp__ev__*", "mcp__ev__echo", true},
		{"mcp__ev__*", "mcp__evil__echo", false},
		{"fs:*", "fs:dir/delete", true},
		{"*.delete", "x.y.delete", true},
		{"*:*", "srv:tool", true},
		{"*:*", "srvtool", false},
		{"a*b*c", "a/x.b:y_c", true},
		{"a*b*c", "a/x.b:y_d", false},
		{"*x", "xxxxxxxxxxxxxxxxxxxy", false},
		// '?' is one character, a multi-byte one too.
		{"?", "é", true},
		{"?", "ab", false},
		{"?", "", false},
		{"d?lete", "délete", true},
		{"d?lete", "d/lete", true},
		{"工具*", "工具/删除", true},
		{"*删除", "工具/删除", true},
		// classes and escapes
		{"[abc]x", "bx", true},
		{"[!abc]x", "bx", false},
		{"[^abc]x", "dx", true},
		{"[a-c]", "b", true},
		{"[a-c]", "d", false},
		{"[]]", "]", true},
		{`\*`, "*", true},
		{`\*`, "a", false},
		{`a\?`, "a?", true},
		// exact
		{"echo", "echo", true},
		{"echo", "Echo", false},
		{"echo", "echo2", false},
		{"", "", true},
		{"", "a", false},
	}
	for _, c := range cases {
		if got := Match(c.pattern, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

// The defect this package fixes: path.Match lets a '/' walk past '*'.
func TestStarCrossesSlashUnlikePathMatch(t *testing.T) {
	if ok, _ := path.Match("*delete*", "fs/delete_file"); ok {
		t.Fatal("path.Match changed: the comparison below no longer shows the difference")
	}
	if !Match("*delete*", "fs/delete_file") {
		t.Fatal(`"*delete*" must match "fs/delete_file"`)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, p := range []string{"[abc", `abc\`, "[z-a]", "[", "[!", strings.Repeat("a", MaxPatternLength+1), "\xff*"} {
		if _, err := Compile(p); err == nil {
			t.Errorf("Compile(%q): no error", p)
		} else if !strings.Contains(err.Error(), "glob") {
			t.Errorf("Compile(%q): error %q does not say it is about a glob", p, err)
		}
		if Match(p, "abc") {
			t.Errorf("Match(%q, ...) with a bad pattern matched", p)
		}
	}
}

func TestMatchAny(t *testing.T) {
	if !MatchAny([]string{"x", "*y"}, "a/y") || MatchAny([]string{"x"}, "y") || MatchAny(nil, "y") {
		t.Fatal("MatchAny")
	}
}

// A name built to make a naive backtracking matcher exponential is answered
// quickly: the matcher has one backtrack point.
func TestNoExponentialBacktracking(t *testing.T) {
	p := MustCompile(strings.Repeat("*a", 30) + "b")
	name := strings.Repeat("a", 5000)
	if p.Match(name) {
		t.Fatal("matched")
	}
}

// reference is a plain recursive matcher over runes, for the fuzz target
// (exponential in the worst case, so only used on short inputs).
func reference(items []item, name []rune) bool {
	if len(items) == 0 {
		return len(name) == 0
	}
	if items[0].kind == anyRun {
		for i := 0; i <= len(name); i++ {
			if reference(items[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	return len(name) > 0 && items[0].matches(name[0]) && reference(items[1:], name[1:])
}

func FuzzMatch(f *testing.F) {
	f.Add("*delete*", "fs/delete_file")
	f.Add("a?[b-d]*\\*", "axc/.*")
	f.Add("[!x]*", "é")
	f.Add("**a*", "bab")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		p, err := Compile(pattern)
		if err != nil {
			return
		}
		got := p.Match(name)
		if len(p.items) > 12 || len(name) > 24 {
			return
		}
		var runes []rune
		for _, r := range name { // invalid bytes decode as RuneError, as in Match
			runes = append(runes, r)
		}
		if want := reference(p.items, runes); got != want {
			t.Fatalf("Match(%q, %q) = %v, reference says %v", pattern, name, got, want)
		}
	})
}

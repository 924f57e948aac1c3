package suggest_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcphost/mcphost/internal/suggest"
)

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "abc", 0},
		{"nosuh", "nosuch", 1},
		{"kitten", "sitting", 3},
		{"", "abc", 3},
		{"héllo", "hello", 1}, // runes, not bytes
		{"shwo", "show", 1},   // a swap of neighbours
		{"ca", "abc", 3},      // no swap across an insertion (optimal string alignment)
	} {
		if got := suggest.Distance(tc.a, tc.b, 100); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := suggest.Distance(tc.b, tc.a, 100); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
	// The bound stops the work and is what comes back.
	if got := suggest.Distance("aaaaaaaaaa", "bbbbbbbbbb", 2); got != 2 {
		t.Errorf("bounded distance = %d, want 2", got)
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	names := []string{"echo", "add", "search_issues", "search_code", "Echo"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"ecko", []string{"Echo", "echo"}},
		{"ECHO", []string{"Echo", "echo"}},
		{"search_isues", []string{"search_issues"}},
		{"zzz", nil},
		{"", nil},
		{"a", []string{"add"}[:0]}, // one letter is too short to guess from
	} {
		got := suggest.Closest(tc.name, names)
		if !slices.Equal(got, tc.want) && (len(got) != 0 || len(tc.want) != 0) {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	// Many equally close names: three at most.
	var many []string
	for i := range 10 {
		many = append(many, fmt.Sprintf("tool%d", i))
	}
	if got := suggest.Closest("toolx", many); len(got) != 3 {
		t.Errorf("Closest offered %d names, want 3: %q", len(got), got)
	}
}

func TestPhrase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, `did you mean "a"?`},
		{[]string{"a", "b"}, `did you mean "a" or "b"?`},
		{[]string{"a", "b", "c"}, `did you mean "a", "b" or "c"?`},
		{[]string{"a\x1b[2J"}, `did you mean "a\x1b[2J"?`},
	} {
		if got := suggest.Phrase(tc.names); got != tc.want {
			t.Errorf("Phrase(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

var listed = []suggest.Tool{
	{Public: "mcp__srv__nosuh", Display: "srv:nosuh", Server: "srv", Tool: "nosuh"},
	{Public: "mcp__srv__echo", Display: "srv:echo", Server: "srv", Tool: "echo"},
	{Public: "mcp__other__echo", Display: "other:echo", Server: "other", Tool: "echo"},
	{Public: "mcp__a-very-long-server-id-that-is-cut__t_1234abcd", Display: "a-very-long-server-id-that-is-cut-short:t", Server: "a-very-long-server-id-that-is-cut-short", Tool: "t"},
}

var servers = []string{"a-very-long-server-id-that-is-cut-short", "other", "srv"}

func TestUnknownTool(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
	}{
		{"nosuch", `unknown tool "nosuch"; did you mean "mcp__srv__nosuh"?`},
		// The name the server uses finds the public names of every tool
		// of that name.
		{"echo", `unknown tool "echo"; did you mean "mcp__other__echo" or "mcp__srv__echo"?`},
		{"mcp__srv__ecoh", `unknown tool "mcp__srv__ecoh"; did you mean "mcp__srv__echo"?`},
		{"srv:ecko", `unknown tool "srv:ecko"; did you mean "srv:echo"?`},
		{"mcp__nosuch__x", `tool "mcp__nosuch__x": unknown server nosuch (configured: a-very-long-server-id-that-is-cut-short, other, srv)`},
		{"nosuch:x", `tool "nosuch:x": unknown server nosuch (configured: a-very-long-server-id-that-is-cut-short, other, srv)`},
		{"srvv:echo", `tool "srvv:echo": unknown server srvv; did you mean "srv"? (configured: a-very-long-server-id-that-is-cut-short, other, srv); or a tool: did you mean "srv:echo"?`},
		// A public name cut to the length limit holds the start of the id.
		{"mcp__a-very-long-server-id-that-is-cut__nope", `unknown tool "mcp__a-very-long-server-id-that-is-cut__nope"`},
		{"zzzzzz", `unknown tool "zzzzzz"`},
		{"evil\x1b[2J:x", `tool "evil\x1b[2J:x": unknown server "evil\x1b[2J" (configured: a-very-long-server-id-that-is-cut-short, other, srv)`},
	} {
		if got := suggest.UnknownTool(tc.name, listed, servers); got != tc.want {
			t.Errorf("UnknownTool(%q)\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	if got := suggest.UnknownTool("mcp__x__y", nil, nil); got != `tool "mcp__x__y": unknown server x (no servers are configured)` {
		t.Errorf("without servers: %s", got)
	}
}

func ExampleUnknownTool() {
	tools := []suggest.Tool{{Public: "mcp__calc__add", Display: "calc:add", Server: "calc", Tool: "add"}}
	fmt.Println(suggest.UnknownTool("mcp__calc__ad", tools, []string{"calc"}))
	fmt.Println(suggest.UnknownTool("mcp__calk__add", tools, []string{"calc"}))
	// Output:
	// unknown tool "mcp__calc__ad"; did you mean "mcp__calc__add"?
	// tool "mcp__calk__add": unknown server calk; did you mean "calc"? (configured: calc); or a tool: did you mean "mcp__calc__add"?
}

// Whatever is typed and whatever servers call their tools, a suggestion
// comes back without a panic, and only names that exist are offered.
func FuzzUnknownTool(f *testing.F) {
	f.Add("nosuch", "nosuh", "srv")
	f.Add("mcp__x__y", "y", "x")
	f.Add("a:b", "b", "a")
	f.Add("\xff:\x00", "\xff", "")
	f.Fuzz(func(t *testing.T, name, tool, server string) {
		tools := []suggest.Tool{{Public: "mcp__" + server + "__" + tool, Display: server + ":" + tool, Server: server, Tool: tool}}
		msg := suggest.UnknownTool(name, tools, []string{server})
		if !strings.HasPrefix(msg, "unknown tool ") && !strings.Contains(msg, ": unknown server ") {
			t.Fatalf("message %q", msg)
		}
		for _, got := range append(suggest.Closest(name, []string{tool, server}), suggest.Near(name, []string{tool, server})...) {
			if got != tool && got != server {
				t.Fatalf("offered %q, which is no candidate", got)
			}
		}
		if utf8.ValidString(name) && utf8.ValidString(tool) {
			if d := suggest.Distance(name, tool, 1<<20); d < 0 {
				t.Fatalf("negative distance %d", d)
			}
		}
	})
}

// The early stop never changes the answer below the bound, and the
// distance is symmetric and at most the longer length.
func FuzzDistance(f *testing.F) {
	f.Add("shwo", "show", 2)
	f.Add("kitten", "sitting", 1)
	f.Add("", "abc", 5)
	f.Fuzz(func(t *testing.T, a, b string, bound int) {
		if bound < 1 || bound > 300 {
			return
		}
		full := suggest.Distance(a, b, 1<<20)
		if got := suggest.Distance(a, b, bound); got != min(full, bound) {
			t.Fatalf("Distance(%q, %q, %d) = %d, want %d", a, b, bound, got, min(full, bound))
		}
		if back := suggest.Distance(b, a, 1<<20); back != full {
			t.Fatalf("not symmetric: %d and %d", full, back)
		}
		if n := max(len([]rune(a)), len([]rune(b))); full > n {
			t.Fatalf("distance %d over the longer length %d", full, n)
		}
	})
}

func TestNear(t *testing.T) {
	t.Parallel()
	declared := []string{"path", "head", "tail", "max_results", "b", "ab", "encoding"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"haed", []string{"head"}}, // a swap
		{"hed", []string{"head"}},  // a dropped letter
		{"HEAD", []string{"head"}}, // case
		{"maxResults", []string{"max_results"}},
		{"max-results", []string{"max_results"}},
		{"maxresult", []string{"max_results"}},
		{"encodign", []string{"encoding"}},
		{"ecnodnig", []string{"encoding"}}, // two swaps in a long name
		{"heads", []string{"head"}},
		{"c", nil}, // one letter: every other is a step away
		{"B", []string{"b"}},
		{"ba", nil}, // two letters: only case, "_" and "-" are forgiven
		{"a_b", []string{"ab"}},
		{"lines", nil},
		{"", nil},
		{"__", nil},
	} {
		got := suggest.Near(tc.name, declared)
		if !slices.Equal(got, tc.want) && (len(got) != 0 || len(tc.want) != 0) {
			t.Errorf("Near(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	// The nearest win; ties are all offered, three at most.
	if got := suggest.Near("tale", []string{"tail", "tale_x", "male", "kale", "pale", "sale"}); !slices.Equal(got, []string{"kale", "male", "pale"}) {
		t.Errorf("Near(tale) = %q", got)
	}
}

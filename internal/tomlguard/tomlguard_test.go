package tomlguard

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// dotted is n parts of "a" joined by sep.
func dotted(n int, sep string) string {
	return strings.TrimSuffix(strings.Repeat("a"+sep, n), sep)
}

// numbered is n lines of format, each with its number.
func numbered(format string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

func TestCheckRefuses(t *testing.T) {
	over := MaxKeyParts + 1
	for _, tc := range []struct {
		name, src string
		want      error
		line      int
	}{
		// The shape of the report: a header of 1.5 million parts ended
		// the process; a hundred and one is enough to be refused.
		{"table header", "[" + dotted(over, ".") + "]\nx = 1\n", ErrLongKey, 1},
		{"array of tables header", "x = 1\n[[" + dotted(over, ".") + "]]\n", ErrLongKey, 2},
		{"dotted key", dotted(over, ".") + " = 1\n", ErrLongKey, 1},
		{"dotted key with blanks", dotted(over, " . ") + " = 1\n", ErrLongKey, 1},
		{"quoted parts", strings.Repeat(`"a".'b'.`, over/2) + "c = 1\n", ErrLongKey, 1},
		{"key in an inline table", "x = {" + dotted(over, ".") + " = 1}\n", ErrLongKey, 1},
		{"key in an array of inline tables", "x = [\n  {" + dotted(over, ".") + " = 1},\n]\n", ErrLongKey, 2},
		{"nested arrays", "x = " + strings.Repeat("[", 20) + strings.Repeat("]", 20), ErrTooDeep, 1},
		{"nested inline tables", "x = " + strings.Repeat("{a = ", 20) + "1" + strings.Repeat("}", 20), ErrTooDeep, 1},
		// Each level is short; together the dotted keys go deep.
		{"dotted keys in nested tables", "x = " + strings.Repeat("{a.b.c = ", 5) + "1" + strings.Repeat("}", 5), ErrTooDeep, 1},
		{"arrays over lines", "x = [\n" + strings.Repeat("[\n", 19), ErrTooDeep, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check([]byte(tc.src), 16)
			var ge *Error
			if !errors.Is(err, tc.want) || !errors.As(err, &ge) {
				t.Fatalf("Check = %v, want %v", err, tc.want)
			}
			if line, col := ge.Position(); line != tc.line || col < 1 {
				t.Fatalf("position %d:%d, want line %d", line, col, tc.line)
			}
			if strings.Contains(err.Error(), "a.a") {
				t.Fatalf("the error quotes the file: %v", err)
			}
		})
	}
}

func TestCheckAccepts(t *testing.T) {
	for _, src := range []string{
		"",
		"model = \"o4-mini\" # a.b.c.d\n[mcp_servers.docs]\nargs = [\"--port\", \"4000\"]\ntimeout = 1.5\n" +
			"when = 1979-05-27T07:32:00.999999Z\nfloats = [1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7, 8.8, 9.9, 10.1, 11.1, 12.1, 13.1, 14.1, 15.1, 16.1, 17.1]\n" +
			"http_headers = { \"X-Figma-Region\" = \"us-east-1\" }\n[[profiles.fast.list]]\n",
		// Dots and brackets in strings and comments do not count.
		"a = \"" + strings.Repeat(".[{", 400) + "\"\n",
		"a = '" + strings.Repeat(".[{", 400) + "'\n",
		"a = \"\"\"\n" + strings.Repeat(".[{\n", 400) + "\"\"\"\n",
		"a = '''\n" + strings.Repeat(".[{\n", 400) + "'''\n",
		"a = \"\\\"" + strings.Repeat(".[", 400) + "\"\n",
		"a = \"\"\"x\\\"\"\"" + strings.Repeat(".[", 400) + "\"\"\"\n",
		"a = \"\"\"x\"\"\"\"\"\nb = 1\n",
		"# " + strings.Repeat(".[{", 400) + "\n",
		// At the bounds.
		"[" + dotted(MaxKeyParts, ".") + "]\n" + dotted(MaxKeyParts, ".") + " = 1\n",
		"x = " + strings.Repeat("[", 15) + strings.Repeat("]", 15),
		// Levels closed before others open do not add up.
		numbered("x%d = [[[[[[[[[[[[[[[]]]]]]]]]]]]]]]\n", 50),
		numbered("[a%d]\n", 100),
	} {
		if err := Check([]byte(src), 16); err != nil {
			t.Errorf("Check(%.60q) = %v", src, err)
		}
		var m map[string]any
		if err := toml.Unmarshal([]byte(src), &m); err != nil {
			t.Errorf("the test input %.60q is not TOML: %v", src, err)
		}
	}
}

// TestCheckLongInput: the shape that crashed mcphost, at a size a test can
// afford, is refused at its hundredth dot, whatever follows.
func TestCheckLongInput(t *testing.T) {
	src := "[" + dotted(200_000, ".") + "]\nx = 1\n"
	var ge *Error
	if err := Check([]byte(src), 1000); !errors.As(err, &ge) || ge.Column != 2*MaxKeyParts+1 {
		t.Fatalf("Check = %v", err)
	}
}

// treeDepth is how deeply a decoded document nests (maps and lists).
func treeDepth(v any) int {
	d := 0
	switch t := v.(type) {
	case map[string]any:
		for _, e := range t {
			d = max(d, treeDepth(e))
		}
	case []any:
		for _, e := range t {
			d = max(d, treeDepth(e))
		}
	case []map[string]any:
		for _, e := range t {
			d = max(d, treeDepth(e))
		}
	default:
		return 0
	}
	return d + 1
}

// FuzzCheck: Check never fails on its own, and what it lets through parses
// (when it parses) to a document no deeper than its bounds allow: a table
// header (each part may be an array of tables) plus the levels plus a
// dotted key inside the deepest one. Small bounds let the fuzzer reach
// them.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"[a.b]\nc.d = {e.f = [1, {g = 2}]}\n",
		"[[a.b]]\n[[a.b.c]]\nd = 1\n",
		"a = \"\"\"\n[[[\n\"\"\"\nb = [[[1]]]\n",
		"a = '''x''''' \nb = [[1]]\n",
		"a = \"x\\\"[[\"\n",
		"'a'.\"b\".c = 1 # [[[.\n",
		"a = [\n# ]]]\n[1],\n]\n",
		"a = {b = \"}\", c.d.e = []}\n",
		"a = 1.5\nb = 1979-05-27T07:32:00.5Z\n",
	} {
		f.Add([]byte(s))
	}
	const maxDepth, maxParts = 4, 3
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		err := check(data, maxDepth, maxParts)
		if err != nil {
			var ge *Error
			if !errors.As(err, &ge) || ge.Line < 1 || ge.Column < 1 || !(errors.Is(err, ErrTooDeep) || errors.Is(err, ErrLongKey)) {
				t.Fatalf("check = %#v", err)
			}
			return
		}
		var m map[string]any
		if toml.Unmarshal(data, &m) != nil {
			return
		}
		if d, limit := treeDepth(m), 1+3*maxParts+maxDepth; d > limit {
			t.Fatalf("check let through %q, which nests %d deep (more than %d)", data, d, limit)
		}
	})
}

// FuzzStringEnd: wherever the parser reads a string (a value or a quoted
// key), stringEnd ends it on the same byte. Check knows nothing of TOML
// beyond brackets, dots and where strings and comments end: were it to end
// a string later than the parser does, it would skip brackets the parser
// reads.
func FuzzStringEnd(f *testing.F) {
	for _, s := range []string{`"a"`, `'a'`, `"a\"b"`, `'a\'`, `"""a"""`, `"""a""""`, `"""a"""""`, `'''a'''''`,
		`"""a\"""b"""`, "\"\"\"\na\r\n\"\"\"", `""`, `''`, `"\u00e9"`, `'''a''b'''`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || (s[0] != '"' && s[0] != '\'') {
			return
		}
		for _, form := range []struct{ prefix, suffix string }{{"a = ", "\n"}, {"", " = 1\n"}} {
			data := []byte(form.prefix + s + form.suffix)
			var p unstable.Parser
			p.Reset(data)
			if !p.NextExpression() {
				continue
			}
			var n *unstable.Node
			if form.prefix != "" {
				n = p.Expression().Value()
			} else {
				key := p.Expression().Key()
				key.Next()
				n = key.Node()
			}
			if n == nil || !n.Valid() || (form.prefix != "" && n.Kind != unstable.String) {
				continue
			}
			start := len(form.prefix)
			want := int(n.Raw.Offset + n.Raw.Length)
			if got := stringEnd(data, start) + 1; got != want {
				t.Fatalf("in %q the string at %d ends at %d, the parser's at %d", data, start, got, want)
			}
		}
	})
}

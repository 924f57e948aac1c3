package termtext

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	cases := map[string]string{
		"plain tool_name":        "plain tool_name",
		"é 工具":                   "é 工具",
		"\x1b]52;c;aGVsbG8=\x07": `\x1b]52;c;aGVsbG8=\x07`,
		"a\x1b[2J\x1b[Hb":        `a\x1b[2J\x1b[Hb`,
		"line\nnext\r\tx":        `line\nnext\r\tx`,
		"\u009b31m":              `\u009b31m`,
		"abc\u202eexe.txt":       `abc\u202eexe.txt`,
		"\x7f\x00":               `\x7f\x00`,
		"bad\xffutf8":            `bad\xffutf8`,
		"\u2066isolate\u2069":    `\u2066isolate\u2069`,
		// Invisible: a zero-width space, a word joiner, a BOM, and tag
		// characters spelling "hi" (text a person cannot see but a model
		// reads). Joiners that scripts and emoji need stay.
		"a\u200bb\u2060c\ufeff":                   `a\u200bb\u2060c\ufeff`,
		"ok\U000e0068\U000e0069":                  `ok\U000e0068\U000e0069`,
		"\U0001f468\u200d\U0001f469 \u0645\u200c": "\U0001f468\u200d\U0001f469 \u0645\u200c",
	}
	for in, want := range cases {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBlockKeepsLines(t *testing.T) {
	if got := Block("a\n\tb\x1b[1Ac\r"); got != "a\n\tb\\x1b[1Ac\\r" {
		t.Errorf("Block = %q", got)
	}
}

func FuzzLine(f *testing.F) {
	f.Add("\x1b]52;c;x\x07")
	f.Add("a\u202eb\xff")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Block(s)} {
			for _, r := range out {
				if unsafe(r) && r != '\n' && r != '\t' {
					t.Fatalf("escaped %q still holds %U", s, r)
				}
			}
		}
		if l := Line(s); strings.ContainsAny(l, "\n\t") {
			t.Fatalf("Line(%q) = %q keeps a line break", s, l)
		}
	})
}

func TestWriterSplitsAndEscapes(t *testing.T) {
	var b strings.Builder
	w := NewWriter(&b)
	in := "ok é\x1b]52;c;eA==\x07 工\n"
	for i := 0; i < len(in); i++ { // one byte a write: every character split
		if _, err := w.Write([]byte{in[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "ok é\\x1b]52;c;eA==\\x07 工\n"; b.String() != want {
		t.Fatalf("wrote %q, want %q", b.String(), want)
	}
	b.Reset()
	w.Write([]byte("x\xe5"))
	w.Flush()
	if b.String() != `x\xe5` {
		t.Fatalf("dangling byte: %q", b.String())
	}
}

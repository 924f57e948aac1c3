// Package termtext makes text from outside safe to show on a terminal.
//
// Tool names, descriptions, results, server errors and project files are
// written by someone mcphost does not trust. Printed raw, an escape sequence
// in them can move the cursor, rewrite what was shown, set the window title,
// or (OSC 52) put text on the clipboard; a bidi override can make text read
// differently from what it is. These functions show such characters as
// visible escapes instead: ESC becomes \x1b, U+202E becomes \u202e.
package termtext

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Line escapes every control character, newlines and tabs included: for one
// line of a table, a prompt or a log line.
func Line(s string) string { return escape(s, false) }

// Block escapes control characters but keeps newlines and tabs: for
// multi-line text such as a tool result.
func Block(s string) string { return escape(s, true) }

// Safe reports whether s needs no escaping as a line.
func Safe(s string) bool {
	// Printable ASCII, the common case, a byte at a time.
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++
	}
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && w == 1) || unsafe(r) {
			return false
		}
		i += w
	}
	return true
}

func escape(s string, keepLines bool) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

// unsafe: C0 controls, DEL, C1 controls (U+0080-U+009F: 8-bit CSI and OSC),
// bidi embeddings, overrides and isolates, the line and paragraph
// separators, and characters that show nothing at all: the zero-width
// space, word joiner and invisible operators, the zero-width no-break
// space, and the tag characters (U+E0000-U+E007F), which spell ASCII text
// a person cannot see but a model reads. The zero-width joiner and
// non-joiner stay: scripts and emoji need them.
func unsafe(r rune) bool {
	switch {
	case r == 0x200b, r >= 0x2060 && r <= 0x2064, r == 0xfeff, r >= 0xe0000 && r <= 0xe007f:
		return true
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// Writer escapes what is written through it as Block does. A character
// split across two writes is held back until its end arrives. It is safe
// for concurrent use (log lines from many goroutines share it).
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	hold []byte
}

// NewWriter returns a Writer onto w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports len(p) on success.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	data := p
	if len(w.hold) > 0 {
		data = append(w.hold, p...)
		w.hold = nil
	}
	// Hold back an incomplete UTF-8 sequence at the end.
	cut := len(data)
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	if cut < len(data) {
		w.hold = append([]byte(nil), data[cut:]...)
	}
	if _, err := io.WriteString(w.w, Block(string(data[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes out (escaped) what an incomplete character held back.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.hold) == 0 {
		return nil
	}
	_, err := io.WriteString(w.w, Block(string(w.hold)))
	w.hold = nil
	return err
}

// Raw returns the writer underneath, for output that must stay exact
// (JSON, whose encoder escapes control characters itself) or that is
// mcphost's own terminal control (redrawing a line or a screen).
func (w *Writer) Raw() io.Writer { return w.w }

// RawOf returns w's underlying writer if w is a Writer, else w.
func RawOf(w io.Writer) io.Writer {
	if tw, ok := w.(*Writer); ok {
		return tw.w
	}
	return w
}

// Package startline draws, on a terminal, the one line that says how the
// start of the servers goes:
//
//	⠙ connecting to 3 servers… github ✓  files ✗  slow
//
// Each server shows its mark once its first connect has ended (✓ ready,
// ✗ failed, "needs login"); the spinner turns while any is still
// connecting. The line is redrawn in place (carriage return and erase to
// end of line) and erased at the end, so that what the command prints next
// starts on a clean line. A Line is only the state and its drawing; the
// caller serialises access and decides when to draw and tick (Animate).
package startline

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcphost/mcphost/internal/termtext"
)

// redraw returns the cursor to the start of the line and erases it.
const redraw = "\r\033[K"

// DefaultWidth is the longest line drawn, in runes. A longer one would wrap
// on a terminal of 80 columns, and erasing it would then leave its first
// part on the screen.
const DefaultWidth = 78

var frames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Mark is how far one server got.
type Mark int

const (
	Pending Mark = iota
	Ready
	Failed
	NeedsLogin
)

// Line is the progress line of one start. It is not safe for concurrent
// use: the caller holds a lock around every method.
type Line struct {
	w     io.Writer
	width int
	ids   []string
	marks map[string]Mark
	frame int
	drawn bool // something is on the line that Clear must erase
	ended bool
}

// New returns the line for servers ids (in the order shown), drawing on w
// (the terminal itself: the line is mcphost's own control).
func New(w io.Writer, ids []string) *Line {
	l := &Line{w: w, width: DefaultWidth, marks: map[string]Mark{}}
	for _, id := range ids {
		// Ids are checked names; escaped all the same, as the line is
		// written raw.
		id = termtext.Line(id)
		if _, dup := l.marks[id]; !dup {
			l.ids = append(l.ids, id)
			l.marks[id] = Pending
		}
	}
	return l
}

// MarkOf maps a host state name to a mark: "ready", "error",
// "needs-auth"; anything else (connecting, reconnecting) is pending.
func MarkOf(state string) Mark {
	switch state {
	case "ready":
		return Ready
	case "error", "closed":
		return Failed
	case "needs-auth":
		return NeedsLogin
	}
	return Pending
}

// Set records how server id got on; Draw shows it. Unknown ids change
// nothing.
func (l *Line) Set(id string, m Mark) {
	id = termtext.Line(id)
	if _, ok := l.marks[id]; ok {
		l.marks[id] = m
	}
}

// Tick moves the spinner on; Draw shows it.
func (l *Line) Tick() { l.frame = (l.frame + 1) % len(frames) }

// Draw draws the line as it is, unless it has ended.
func (l *Line) Draw() {
	if l.ended || len(l.ids) == 0 {
		return
	}
	_, _ = io.WriteString(l.w, redraw+l.Text())
	l.drawn = true
}

// End erases the line, if anything was drawn; the line draws nothing more.
func (l *Line) End() {
	if l.ended {
		return
	}
	l.ended = true
	if l.drawn {
		_, _ = io.WriteString(l.w, redraw)
		l.drawn = false
	}
}

// Text is the line without terminal control: the spinner frame, then each
// server with its mark, or counts when that does not fit the width.
func (l *Line) Text() string {
	head := fmt.Sprintf("%s connecting to %s…", frames[l.frame], servers(len(l.ids)))
	if len(l.ids) == 1 {
		head = fmt.Sprintf("%s connecting to %s…", frames[l.frame], l.ids[0])
		if m := l.marks[l.ids[0]]; m != Pending {
			head += " " + markText(m)
		}
		return cut(head, l.width)
	}
	parts := make([]string, len(l.ids))
	for i, id := range l.ids {
		parts[i] = id
		if m := l.marks[id]; m != Pending {
			parts[i] += " " + markText(m)
		}
	}
	full := head + " " + strings.Join(parts, "  ")
	if utf8.RuneCountInString(full) <= l.width {
		return full
	}
	// Too many for one line: counts, and the servers still awaited (the
	// ones a person waits for).
	var ready, failed int
	var waiting []string
	for _, id := range l.ids {
		switch l.marks[id] {
		case Ready:
			ready++
		case Failed, NeedsLogin:
			failed++
		default:
			waiting = append(waiting, id)
		}
	}
	line := fmt.Sprintf("%s %d ready", head, ready)
	if failed > 0 {
		line += fmt.Sprintf(", %d failed", failed)
	}
	if len(waiting) > 0 {
		line += "; waiting for " + strings.Join(waiting, ", ")
	}
	return cut(line, l.width)
}

func servers(n int) string {
	if n == 1 {
		return "1 server"
	}
	return fmt.Sprintf("%d servers", n)
}

func markText(m Mark) string {
	switch m {
	case Ready:
		return "✓"
	case Failed:
		return "✗"
	case NeedsLogin:
		return "✗ needs login"
	}
	return ""
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimRight(string(r[:n-1]), " ") + "…"
	}
	return s
}

// Animate calls tick every interval until the returned stop is called.
// stop waits for the ticking goroutine to end: nothing is drawn after it
// returns.
func Animate(every time.Duration, tick func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				tick()
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-done
		})
	}
}

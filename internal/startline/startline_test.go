package startline_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcphost/mcphost/internal/startline"
)

// frames splits what was written into the lines drawn; "" is an erase.
func frames(t *testing.T, out string) []string {
	t.Helper()
	if out == "" {
		return nil
	}
	if !strings.HasPrefix(out, "\r\033[K") {
		t.Fatalf("output does not start with a redraw: %q", out)
	}
	return strings.Split(out, "\r\033[K")[1:]
}

func TestLineStates(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	l := startline.New(&out, []string{"github", "files", "slow", "github"})
	l.Draw()
	l.Set("github", startline.MarkOf("ready"))
	l.Set("files", startline.MarkOf("error"))
	l.Set("nosuch", startline.Ready) // not one of the line's servers
	l.Tick()
	l.Draw()
	l.Set("slow", startline.MarkOf("needs-auth"))
	l.Draw()
	l.End()
	l.Draw() // after End: nothing
	l.End()

	got := frames(t, out.String())
	want := []string{
		"⠋ connecting to 3 servers… github  files  slow",
		"⠙ connecting to 3 servers… github ✓  files ✗  slow",
		"⠙ connecting to 3 servers… github ✓  files ✗  slow ✗ needs login",
		"", // erased, once
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("frames\n got %q\nwant %q", got, want)
	}
	if startline.MarkOf("connecting") != startline.Pending || startline.MarkOf("reconnecting") != startline.Pending {
		t.Error("connecting and reconnecting must stay pending")
	}
}

func TestLineOneServer(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	l := startline.New(&out, []string{"everything"})
	l.Draw()
	l.Set("everything", startline.Ready)
	l.Draw()
	l.End()
	want := "\r\033[K⠋ connecting to everything…\r\033[K⠋ connecting to everything… ✓\r\033[K"
	if out.String() != want {
		t.Errorf("output %q\nwant   %q", out.String(), want)
	}
}

// A line that would not fit shows counts and who is still awaited, within
// the width.
func TestLineTooLongShowsCounts(t *testing.T) {
	t.Parallel()
	var ids []string
	for i := range 12 {
		ids = append(ids, fmt.Sprintf("server-number-%02d", i))
	}
	l := startline.New(&strings.Builder{}, ids)
	for _, id := range ids[:9] {
		l.Set(id, startline.Ready)
	}
	l.Set(ids[9], startline.Failed)
	text := l.Text()
	if want := "⠋ connecting to 12 servers… 9 ready, 1 failed; waiting for server-number-10,…"; text != want {
		t.Errorf("text %q\nwant %q", text, want)
	}
	if n := len([]rune(text)); n > startline.DefaultWidth {
		t.Errorf("%d runes, over the width", n)
	}
}

// Nothing drawn, nothing erased; no servers, nothing drawn.
func TestLineNothingToErase(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	l := startline.New(&out, []string{"a"})
	l.End()
	empty := startline.New(&out, nil)
	empty.Draw()
	empty.End()
	if out.Len() != 0 {
		t.Errorf("wrote %q", out.String())
	}
}

// Server ids are escaped: the line is written raw to the terminal.
func TestLineEscapesIDs(t *testing.T) {
	t.Parallel()
	l := startline.New(&strings.Builder{}, []string{"evil\x1b[2J"})
	l.Set("evil\x1b[2J", startline.Ready)
	if text := l.Text(); strings.Contains(text, "\x1b") || !strings.Contains(text, `evil\x1b[2J… ✓`) {
		t.Errorf("text %q", text)
	}
}

// Animate ticks until stop, and nothing ticks once stop has returned.
func TestAnimateStops(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	ticks := 0
	ticked := make(chan struct{}, 1)
	stop := startline.Animate(time.Millisecond, func() {
		mu.Lock()
		ticks++
		mu.Unlock()
		select {
		case ticked <- struct{}{}:
		default:
		}
	})
	<-ticked
	stop()
	mu.Lock()
	after := ticks
	mu.Unlock()
	stop() // twice is fine
	// stop waited for the goroutine: the count cannot move any more.
	mu.Lock()
	defer mu.Unlock()
	if ticks != after || after == 0 {
		t.Errorf("ticks %d after stop, %d at stop", ticks, after)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/termtext"
)

// What "mcphost servers --watch" shows: on a terminal, a table redrawn in
// place; otherwise a line, or with --json an object, per event and reload.

const (
	// clearScreen moves the cursor home and clears the terminal.
	clearScreen = "\x1b[H\x1b[2J"
	// watchErrorWidth is the width of the LAST ERROR column.
	watchErrorWidth = 60
	// watchNotes is how many config messages the terminal view keeps.
	watchNotes = 5
)

// start prints the first view: the table, or {"servers": [...]}.
func (s *serversWatch) start() error {
	if s.term {
		return s.draw()
	}
	st := s.h.Status()
	if s.asJSON {
		return s.emitJSON(struct {
			Time    time.Time           `json:"time"`
			Servers []host.ServerStatus `json:"servers"`
		}{time.Now(), st})
	}
	return printServers(s.w, st)
}

// events prints events, one line or JSON object each, or redraws.
func (s *serversWatch) events(evs []stampedEvent) error {
	if len(evs) == 0 {
		return nil
	}
	if s.term {
		return s.draw()
	}
	var buf bytes.Buffer
	for _, se := range evs {
		e := se.ev
		attempt, msg := eventAttempt(e), ""
		if e.Err != nil {
			msg = flatten(e.Err.Error())
		}
		if s.asJSON {
			writeJSONLine(&buf, struct {
				Time    time.Time  `json:"time"`
				Server  string     `json:"server"`
				Kind    string     `json:"kind"`
				State   host.State `json:"state"`
				Attempt int        `json:"attempt"`
				Error   string     `json:"error"`
			}{se.at, e.Server, e.Kind, e.State, attempt, msg})
			continue
		}
		line := fmt.Sprintf("%s %s %s", se.at.Format(time.RFC3339), e.Server, e.State)
		if e.Kind != "state" {
			line = fmt.Sprintf("%s %s %s updated", se.at.Format(time.RFC3339), e.Server, e.Kind)
		}
		if attempt > 0 {
			line += fmt.Sprintf(" attempt %d", attempt)
		}
		if msg != "" {
			line += ": " + msg
		}
		buf.WriteString(line + "\n")
	}
	_, err := s.out().Write(buf.Bytes())
	return err
}

// eventAttempt is the number of the connect attempt under way or next, as
// ServerStatus.Attempt and the ATTEMPT column count: Event.Attempt counts
// the failures before it.
func eventAttempt(e host.Event) int {
	if e.Kind != "state" || e.State != host.StateReconnecting {
		return 0
	}
	return e.Attempt + 1
}

// changeSummary is "added a, b; removed c; changed d".
func changeSummary(c host.ServersChange) string {
	var parts []string
	for _, p := range []struct {
		verb string
		ids  []string
	}{{"added", c.Added}, {"removed", c.Removed}, {"changed", c.Changed}} {
		if len(p.ids) > 0 {
			parts = append(parts, p.verb+" "+strings.Join(p.ids, ", "))
		}
	}
	if len(parts) == 0 {
		return "reloaded; no server changed"
	}
	return strings.Join(parts, "; ")
}

// joinAnd is "a", "a and b", "a, b and c".
func joinAnd(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// draw redraws the terminal view.
func (s *serversWatch) draw() error {
	st := s.h.Status()
	now := time.Now()
	var ready, reconnecting, failed int
	for _, x := range st {
		switch x.State {
		case host.StateReady:
			ready++
		case host.StateReconnecting:
			reconnecting++
		case host.StateError:
			failed++
		}
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s  %d servers: %d ready, %d reconnecting, %d error  |  Ctrl-C to stop  |  config file edits are applied\n\n",
		now.Format(time.TimeOnly), len(st), ready, reconnecting, failed)
	tw := table(&buf)
	fmt.Fprintln(tw, "ID\tTRANSPORT\tSTATE\tATTEMPT\tRETRY\tTOOLS\tLAST ERROR")
	for _, x := range st {
		attempt, retry := "", ""
		if x.State == host.StateReconnecting && x.Attempt > 0 {
			attempt = fmt.Sprint(x.Attempt)
		}
		if !x.NextRetry.IsZero() {
			retry = "now"
			if d := x.NextRetry.Sub(now); d > 0 {
				retry = "in " + d.Round(100*time.Millisecond).String()
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", x.ID, x.Transport, x.State, attempt, retry, x.Tools, oneLine(x.Error, watchErrorWidth))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printServerErrors(&buf, st)
	if len(s.notes) > 0 {
		buf.WriteString("\n")
		for _, n := range s.notes {
			buf.WriteString(n + "\n")
		}
	}
	// The screen clear is mcphost's own control: raw. The screen's text
	// holds server text: through the escaping writer.
	if _, err := io.WriteString(termtext.RawOf(s.w), clearScreen); err != nil {
		return err
	}
	_, err := s.w.Write(buf.Bytes())
	return err
}

func (s *serversWatch) emitJSON(v any) error {
	var buf bytes.Buffer
	writeJSONLine(&buf, v)
	_, err := s.out().Write(buf.Bytes())
	return err
}

// out is where lines go: JSON exactly as encoded (the encoder escapes
// control characters), text through the escaping writer.
func (s *serversWatch) out() io.Writer {
	if s.asJSON {
		return termtext.RawOf(s.w)
	}
	return s.w
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(buf *bytes.Buffer, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	buf.Write(b)
	buf.WriteByte('\n')
}

// flatten puts a message on one line.
func flatten(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, " ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

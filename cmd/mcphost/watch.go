package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/termtext"
)

// `mcphost servers --watch`: a live view of every server's state, which
// also applies edits of the configuration files to the running host.
//
// One goroutine (watchServers) writes to stdout. The host's event callback
// only queues the event, and config.Watch hands each reload over a channel,
// so neither blocks on the terminal and nothing is written after the
// command has returned.

const (
	// clearScreen moves the cursor home and clears the terminal.
	clearScreen = "\x1b[H\x1b[2J"
	// watchErrorWidth is the width of the LAST ERROR column.
	watchErrorWidth = 60
	// watchStderrLines is how many stderr lines of a failed server the
	// terminal view shows (plain "mcphost servers" shows them all).
	watchStderrLines = 5
	// watchNotes is how many config messages the terminal view keeps.
	watchNotes = 5
)

// stampedEvent is a host event and when it came.
type stampedEvent struct {
	at time.Time
	ev host.Event
}

// eventQueue collects host events for the printing goroutine. push never
// blocks: the host calls it from its supervisors.
type eventQueue struct {
	mu     sync.Mutex
	events []stampedEvent
	ready  chan struct{} // holds a token while events wait
}

func newEventQueue() *eventQueue {
	return &eventQueue{ready: make(chan struct{}, 1)}
}

func (q *eventQueue) push(e host.Event) {
	q.mu.Lock()
	q.events = append(q.events, stampedEvent{time.Now(), e})
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// take returns the waiting events, oldest first, and empties the queue.
func (q *eventQueue) take() []stampedEvent {
	q.mu.Lock()
	defer q.mu.Unlock()
	evs := q.events
	q.events = nil
	return evs
}

// reload is one configuration reload from config.Watch.
type reload struct {
	at  time.Time
	cfg *config.Config
	err error
}

// serversWatch prints what happens to the host's servers.
type serversWatch struct {
	h      *host.Host
	w      io.Writer
	asJSON bool
	term   bool

	// base is the configuration the host started with: its plugins,
	// policy, names and results sections are the ones in use.
	base *config.Config
	// nextStart is the last reported list of those sections that differ
	// in the files from base, so that it is reported once.
	nextStart string
	// notes are the last config messages, shown under the terminal table.
	notes []string
}

// watchServers runs until ctx ends, then closes the host and returns nil.
func (a *app) watchServers(ctx context.Context, asJSON bool) error {
	// The watcher's snapshot is taken before loading: a file edited while
	// the host starts is then seen as a change rather than missed.
	watcher, err := config.NewWatcher(a.loadOptions())
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	wctx, stopWatch := context.WithCancel(ctx)
	reloads := make(chan reload)
	watchDone := make(chan error, 1)
	go func() {
		watchDone <- watcher.Run(wctx, a.watchInterval, func(cfg *config.Config, err error) {
			select {
			case reloads <- reload{time.Now(), cfg, err}:
			case <-wctx.Done():
			}
		})
	}()
	watchErr := (<-chan error)(watchDone)
	defer func() {
		stopWatch()
		if watchErr != nil {
			<-watchErr
		}
	}()

	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	q := newEventQueue()
	h, err := a.startHostWith(ctx, cfg, host.WithEvents(q.push), host.WithConnectAttempts(0))
	if err != nil {
		if ctx.Err() != nil {
			return nil // stopped while connecting: that is how this command ends
		}
		return err
	}
	defer a.closeHost(h)

	s := &serversWatch{h: h, w: a.stdout, asJSON: asJSON, base: cfg}
	// --json asks for lines to read, on a terminal too.
	s.term = !asJSON && a.isTerminal(a.stdout)
	// What happened so far is in the status printed now.
	q.take()
	if err := s.start(); err != nil {
		return err
	}

	var tick <-chan time.Time
	if s.term {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-q.ready:
			err = s.events(q.take())
		case r := <-reloads:
			err = s.apply(ctx, r, false)
		case <-tick:
			err = s.draw()
		case werr := <-watchErr:
			watchErr = nil
			if werr != nil && ctx.Err() == nil {
				fmt.Fprintf(a.stderr, "warning: configuration files are not watched: %v\n", werr)
			}
		}
		if err != nil {
			// stdout is gone (a closed pipe): nobody is watching.
			return err
		}
	}
}

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

// configChangeJSON is the "config" object of a reload in --json output.
type configChangeJSON struct {
	Added   []string          `json:"added"`
	Removed []string          `json:"removed"`
	Changed []string          `json:"changed"`
	Errors  map[string]string `json:"errors"`
	// Error is why the reload failed; nothing was changed.
	Error string `json:"error,omitempty"`
	// ApplyError is a problem stopping removed or changed servers.
	ApplyError string `json:"apply_error,omitempty"`
	// NextStart lists the sections that changed but apply only when
	// mcphost starts again.
	NextStart []string `json:"next_start,omitempty"`
}

// apply gives a reloaded configuration's servers to the host and says what
// changed. quiet applies without printing (before the first view, which
// shows the result).
func (s *serversWatch) apply(ctx context.Context, r reload, quiet bool) error {
	out := configChangeJSON{Added: []string{}, Removed: []string{}, Changed: []string{}, Errors: map[string]string{}}
	var lines []string
	if r.err != nil {
		out.Error = flatten(r.err.Error())
		lines = append(lines, out.Error)
	} else {
		sctx, cancel := context.WithTimeout(ctx, closeDeadline)
		change, err := s.h.SetServers(sctx, r.cfg)
		cancel()
		if ctx.Err() != nil {
			return nil // closing: nothing to report
		}
		out.Added = append(out.Added, change.Added...)
		out.Removed = append(out.Removed, change.Removed...)
		out.Changed = append(out.Changed, change.Changed...)
		lines = append(lines, changeSummary(change))
		for _, id := range sortedKeys(change.Errors) {
			msg := flatten(change.Errors[id].Error())
			out.Errors[id] = msg
			lines = append(lines, fmt.Sprintf("server %s: %s", id, msg))
		}
		if err != nil {
			out.ApplyError = flatten(err.Error())
			lines = append(lines, out.ApplyError)
		}
		if sections := nextStartSections(s.base, r.cfg); !quiet && strings.Join(sections, ",") != s.nextStart {
			s.nextStart = strings.Join(sections, ",")
			if len(sections) > 0 {
				out.NextStart = sections
				lines = append(lines, joinAnd(sections)+" changes apply at the next start")
			}
		}
	}
	if quiet {
		return nil
	}
	if s.asJSON {
		return s.emitJSON(struct {
			Time   time.Time        `json:"time"`
			Config configChangeJSON `json:"config"`
		}{r.at, out})
	}
	var buf bytes.Buffer
	for _, l := range lines {
		if s.term {
			s.notes = append(s.notes, r.at.Format(time.TimeOnly)+" config: "+l)
		} else {
			fmt.Fprintf(&buf, "%s config: %s\n", r.at.Format(time.RFC3339), l)
		}
	}
	if s.term {
		if n := len(s.notes); n > watchNotes {
			s.notes = slices.Clone(s.notes[n-watchNotes:])
		}
		return s.draw()
	}
	_, err := s.w.Write(buf.Bytes())
	return err
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

// nextStartSections names the sections of cfg that differ from the ones
// the host runs with and that SetServers does not apply: the plugin chain,
// the policy and results stages and the name mapper are built at start.
func nextStartSections(running, cfg *config.Config) []string {
	var out []string
	if !samePlugins(running.Plugins, cfg.Plugins) {
		out = append(out, "plugins")
	}
	if !reflect.DeepEqual(running.Policy, cfg.Policy) {
		out = append(out, "policy")
	}
	if running.Results != cfg.Results {
		out = append(out, "results")
	}
	if running.Names != cfg.Names {
		out = append(out, "names")
	}
	return out
}

// samePlugins compares plugin entries, their errors by message.
func samePlugins(a, b []*config.Plugin) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) {
			return false
		}
		if a[i] == nil {
			continue
		}
		x, y := *a[i], *b[i]
		if (x.Err == nil) != (y.Err == nil) || (x.Err != nil && x.Err.Error() != y.Err.Error()) {
			return false
		}
		x.Err, y.Err = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
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
	printServerErrors(&buf, st, watchStderrLines)
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

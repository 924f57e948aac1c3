package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
)

// `mcphost servers --watch`: a live view of every server's state, which
// also applies edits of the configuration files to the running host.
//
// One goroutine (watchServers) writes to stdout. The host's event callback
// only queues the event, and config.Watch hands each reload over a channel,
// so neither blocks on the terminal and nothing is written after the
// command has returned. What it shows is drawn in watchview.go.

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
		if sections := host.NextStartSections(s.base, r.cfg); !quiet && strings.Join(sections, ",") != s.nextStart {
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

package main

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/startline"
	"github.com/mcphost/mcphost/internal/termtext"
)

// spinInterval is how often the spinner of the start line turns.
const spinInterval = 100 * time.Millisecond

type startProgressKey struct{}

// withStartProgress asks startHostWith to show how the start of the
// servers goes, on standard error when it is a terminal ("connecting to 3
// servers… github ✓ files ✗ slow"). A command asks unless it prints JSON:
// the line is for a person watching, never for a program.
func withStartProgress(ctx context.Context, show bool) context.Context {
	if !show {
		return ctx
	}
	return context.WithValue(ctx, startProgressKey{}, true)
}

// startProgress is the progress line of one host start; a nil one shows
// nothing, and its methods do nothing.
type startProgress struct {
	a *app

	mu    sync.Mutex // guards what follows
	line  *startline.Line
	stop  func()
	ended bool
}

// newStartProgress returns the line for a start, or nil when none is to
// be shown (not asked for, or standard error is no terminal).
func (a *app) newStartProgress(ctx context.Context) *startProgress {
	if on, _ := ctx.Value(startProgressKey{}).(bool); !on || !a.isTerminal(a.stderr) {
		return nil
	}
	return &startProgress{a: a}
}

// options are the host options the line needs: the state events. A
// caller's own WithEvents, added after them, wins (and the line then only
// spins).
func (p *startProgress) options() []host.Option {
	if p == nil {
		return nil
	}
	return []host.Option{host.WithEvents(p.event)}
}

// begin draws the line for the servers h is about to connect and starts
// the spinner.
func (p *startProgress) begin(h *host.Host) {
	if p == nil {
		return
	}
	var ids []string
	for _, st := range h.Status() {
		if st.State == host.StateConnecting {
			ids = append(ids, st.ID)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// Own terminal control: raw, past the escaping writer (the line
	// escapes the ids itself).
	p.line = startline.New(termtext.RawOf(p.a.stderr), ids)
	p.draw()
	p.stop = startline.Animate(spinInterval, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.ended {
			p.line.Tick()
			p.draw()
		}
	})
}

// draw draws the line, under p.mu, if the terminal is free. When it is
// not (someone answers a form), the next tick draws: the line never makes
// a server's goroutine wait for the terminal.
func (p *startProgress) draw() {
	if p.a.termMu.TryLock() {
		p.line.Draw()
		p.a.termMu.Unlock()
	}
}

func (p *startProgress) event(e host.Event) {
	if e.Kind != "state" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.line == nil || p.ended {
		return
	}
	p.line.Set(e.Server, startline.MarkOf(string(e.State)))
	p.draw()
}

// end stops the spinner and erases the line, so that what is printed next
// starts on a clean line. It waits for the spinner's goroutine.
func (p *startProgress) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	stop := p.stop
	p.ended = true
	p.mu.Unlock()
	if stop != nil {
		stop() // not under p.mu: a tick may be waiting for it
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.line != nil {
		p.a.termMu.Lock()
		p.line.End()
		p.a.termMu.Unlock()
	}
}

// elicit ends the line before a form is asked during the start: redrawn,
// it would overwrite the form's questions.
func (p *startProgress) elicit(next host.ElicitationHandler) host.ElicitationHandler {
	if p == nil {
		return next
	}
	return func(ctx context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		p.end()
		return next(ctx, server, req)
	}
}

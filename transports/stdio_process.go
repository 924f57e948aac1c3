package transports

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mcphost/mcphost/internal/stderrtail"
)

// A running stdio server: writing to it, reaping it, ending its process group.

// Bounds used while a process winds down. They only limit waiting: a well
// behaved process never waits for them.
const (
	killWait     = 2 * time.Second        // for SIGKILL to take effect
	straggleWait = 500 * time.Millisecond // for pipe data after the server exited
	pollInterval = 20 * time.Millisecond  // while waiting for a process group to empty
)

// process is one running server.
type process struct {
	b                     *base
	cmd                   *exec.Cmd
	pid                   int
	stdin, stdout, stderr *os.File // our ends of the pipes
	ring                  *stderrRing
	token                 string // tokenVar's value for this start
	stdinGrace, termGrace time.Duration

	exited     chan struct{} // closed when the leader exited; status is set
	status     string        // "with status 3", "killed by signal 9 (killed)"
	failed     bool          // it did not exit with status 0
	done       chan struct{} // closed when the leader is reaped and its group is empty or killed
	stderrDone chan struct{} // closed when stderr reached EOF

	mu     sync.Mutex
	reaped bool

	// writeGen numbers the writes to stdin, so that the cancellation of
	// one write's context never cuts short a later write (see writeLine).
	writeMu  sync.Mutex
	writeGen uint64
}

// defaultWriteTimeout bounds a write whose context has no deadline.
const defaultWriteTimeout = 30 * time.Second

// errWriteStalled: the server stopped reading its stdin.
var errWriteStalled = errors.New("the server is not reading its stdin")

// writeLine writes one line to the server's stdin within ctx's deadline
// (defaultWriteTimeout without one) and until ctx is cancelled. A write
// that does not finish may have left part of the line in the pipe, so the
// stream is out of step for good: the caller closes the session.
func (p *process) writeLine(ctx context.Context, data []byte) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(defaultWriteTimeout)
	}
	p.writeMu.Lock()
	p.writeGen++
	gen := p.writeGen
	p.writeMu.Unlock()
	if err := p.stdin.SetWriteDeadline(deadline); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() {
		p.writeMu.Lock()
		defer p.writeMu.Unlock()
		if p.writeGen == gen {
			p.stdin.SetWriteDeadline(time.Now())
		}
	})
	_, err := p.stdin.Write(append(data, '\n'))
	stop()
	p.writeMu.Lock()
	p.writeGen++ // a late AfterFunc of this write now changes nothing
	p.writeMu.Unlock()
	if err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || ctx.Err() != nil) {
		return fmt.Errorf("%w: writing a message did not finish in time; the session is closed", errWriteStalled)
	}
	return err
}

// reap waits for the leader to exit, cleans up its process group and reaps it.
func (p *process) reap() {
	defer close(p.done)
	if status, ok := waitExitNoReap(p.pid); ok && canWaitNoReap {
		// The leader is a zombie: its pid, our group id, stays reserved
		// while we clean up the group.
		p.failed = status != describeExitCode(0)
		p.exit(status)
		p.cleanupGroup()
		p.killLeftBehind()
		p.mu.Lock()
		_ = p.cmd.Wait()
		removeLeader(p.pid)
		p.reaped = true
		p.mu.Unlock()
		return
	}
	err := p.cmd.Wait()
	removeLeader(p.pid)
	p.mu.Lock()
	p.reaped = true
	p.mu.Unlock()
	p.failed = p.cmd.ProcessState == nil || !p.cmd.ProcessState.Success()
	p.exit(describeExit(p.cmd.ProcessState, err))
	p.cleanupGroup()
	p.killLeftBehind()
}

// BecomeSubreaper makes this process the child subreaper of what it starts
// (Linux; a no-op elsewhere): a daemon a stdio server starts (setsid and a
// double fork) is then reparented to this process instead of init, so it
// can be ended with its server and reaped. It changes how the whole process
// inherits orphans, so the mcphost command does it and a library user
// decides: without it, such daemons are still ended when their server ends
// (found by their environment token), but reaped by init.
func BecomeSubreaper() { becomeSubreaper() }

// tokenVar marks every process a stdio server starts: its value, new for
// each start, is in the environment the server's descendants inherit, so
// that what detached from the process group (a daemon: setsid and a double
// fork) can still be told apart and ended when the server ends.
const tokenVar = "MCPHOST_SERVER_TOKEN"

// leaders are the pids of the server processes mcphost runs: their
// exec.Cmd waits for them, so no one else may reap them.
var leaders sync.Map // int -> struct{}

func addLeader(pid int) { leaders.Store(pid, struct{}{}) }

func removeLeader(pid int) { leaders.Delete(pid) }

func isLeader(pid int) bool { _, ok := leaders.Load(pid); return ok }

// killLeftBehind ends the server's descendants that left its process group
// (Linux; see killTokenHolders).
func (p *process) killLeftBehind() {
	if n := killTokenHolders(p.token, p.pid); n > 0 {
		p.b.logger.Warn("ended processes the server left behind outside its process group", "pid", p.pid, "count", n)
	}
}

func (p *process) exit(status string) {
	p.status = status
	close(p.exited)
	// A pipe reader blocked now can only be waiting for a grandchild that
	// kept the pipe open: let it give up soon (see exitAwareReader).
	deadline := time.Now().Add(straggleWait)
	_ = p.stdout.SetReadDeadline(deadline)
	_ = p.stderr.SetReadDeadline(deadline)
	p.b.logger.Debug("server process exited", "pid", p.pid, "status", status)
}

func describeExitCode(code int) string { return fmt.Sprintf("with status %d", code) }

func describeExit(ps *os.ProcessState, err error) string {
	switch {
	case ps == nil && err != nil:
		return fmt.Sprintf("(%v)", err)
	case ps == nil:
		return "(status unknown)"
	case ps.ExitCode() >= 0:
		return describeExitCode(ps.ExitCode())
	}
	return fmt.Sprintf("(%s)", ps.String())
}

// signalGroup sends SIGTERM (or SIGKILL) to the server's process group. Once
// the leader is reaped its pid may be reused, so where the reaper cleans the
// group before reaping, a reaped leader means there is nothing left to signal.
func (p *process) signalGroup(kill bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped && canWaitNoReap {
		return
	}
	if kill {
		killGroup(p.pid, sigKill)
	} else {
		killGroup(p.pid, sigTerm)
	}
}

// cleanupGroup stops what the server left in its process group after it
// exited: SIGTERM, then SIGKILL after TermGrace.
func (p *process) cleanupGroup() {
	if !groupAlive(p.pid) {
		return
	}
	p.b.logger.Debug("processes left in the server's process group: sending SIGTERM", "pgid", p.pid)
	p.signalGroup(false)
	if p.waitGroupGone(p.termGrace) {
		return
	}
	p.b.logger.Warn("processes left in the server's process group ignored SIGTERM: sending SIGKILL", "pgid", p.pid)
	p.signalGroup(true)
	p.waitGroupGone(killWait)
}

func (p *process) waitGroupGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for groupAlive(p.pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollInterval)
	}
	return true
}

// shutdown is Close: stdin EOF, then SIGTERM and SIGKILL to the process group,
// each after its grace period; it returns once the process is reaped (bounded).
func (p *process) shutdown() error {
	p.stdin.Close()
	if !waitFor(p.exited, p.stdinGrace) {
		p.b.logger.Debug("server still running after stdin was closed: sending SIGTERM to its process group", "pid", p.pid)
		p.signalGroup(false)
		if !waitFor(p.exited, p.termGrace) {
			p.b.logger.Warn("server ignored SIGTERM: sending SIGKILL to its process group", "pid", p.pid)
			p.signalGroup(true)
		}
	}
	var err error
	if !waitFor(p.done, p.termGrace+2*killWait) {
		err = p.b.errorf("server process %d did not go away after SIGKILL", p.pid)
	}
	waitFor(p.stderrDone, killWait)
	p.stdout.Close()
	p.stderr.Close()
	return err
}

// endErr explains why stdout ended when we did not close the connection.
func (p *process) endErr(err error) error {
	if !waitFor(p.exited, killWait) {
		return p.b.errorf("server closed its stdout (%v) but process %d is still running", err, p.pid)
	}
	return p.exitErr()
}

// exitErr describes the process's end; call it once it has exited.
func (p *process) exitErr() error {
	// Normally immediate: stderr ends with the process, or straggleWait
	// after it if a grandchild kept it open.
	waitFor(p.stderrDone, killWait)
	var e error
	// The line that says why, which is often not the last one (npx ends
	// with where its log is, after the 404 that says why).
	if key := stderrtail.Key(p.ring.tail()); key != "" {
		e = p.b.errorf("%w %s; stderr: %q", ErrServerExited, p.status, key)
	} else {
		e = p.b.errorf("%w %s", ErrServerExited, p.status)
	}
	if p.failed {
		return serverFailed{e}
	}
	return e
}

func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

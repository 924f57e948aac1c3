package transports

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// StdioTransport runs a server as a child process and speaks newline-delimited
// JSON-RPC over its stdin/stdout. Unlike mcp.CommandTransport, the child gets
// its own process group and shutdown signals the whole group, so nothing the
// server started survives it; its stderr is logged and kept for StderrTail.
type StdioTransport struct {
	base
	command    string
	args       []string
	env        map[string]string
	cwd        string
	stdinGrace time.Duration
	termGrace  time.Duration

	mu   sync.Mutex
	ring *stderrRing // of the most recently started process
	pid  int
	proc *process
}

// Stderr capture limits.
const (
	stderrLines   = 50
	stderrLineMax = 1024
)

// Bounds used while a process winds down. They only limit waiting: a well
// behaved process never waits for them.
const (
	killWait     = 2 * time.Second        // for SIGKILL to take effect
	straggleWait = 500 * time.Millisecond // for pipe data after the server exited
	pollInterval = 20 * time.Millisecond  // while waiting for a process group to empty
)

func newStdio(s *Spec, opts Options) (*StdioTransport, error) {
	t := &StdioTransport{
		base:       newBase(s, opts),
		command:    s.Command,
		args:       slices.Clone(s.Args),
		cwd:        s.Cwd,
		stdinGrace: opts.StdinGrace,
		termGrace:  opts.TermGrace,
	}
	if t.command == "" {
		return nil, t.errorf("no command configured")
	}
	if len(s.Env) > 0 {
		t.env = make(map[string]string, len(s.Env))
		for k, v := range s.Env {
			t.env[k] = v
		}
	}
	if t.stdinGrace <= 0 {
		t.stdinGrace = DefaultStdinGrace
	}
	if t.termGrace <= 0 {
		t.termGrace = DefaultTermGrace
	}
	return t, nil
}

// StderrTail returns the last stderr lines (at most 50, each at most about
// 1 KiB) of the most recently started process, oldest first. It stays
// readable after the process died, so a status display can say why.
func (t *StdioTransport) StderrTail() []string {
	t.mu.Lock()
	ring := t.ring
	t.mu.Unlock()
	if ring == nil {
		return nil
	}
	return ring.tail()
}

// Exited says how the most recently started process ended, waiting for it
// up to wait: an error matching ErrServerExited (and ErrServerFailed if it
// exited with a status other than 0 or by a signal) that gives the status
// and the last stderr line; nil if it is still running (or none started).
// A failed connect's own error often says only "EOF": this says why.
func (t *StdioTransport) Exited(wait time.Duration) error {
	t.mu.Lock()
	p := t.proc
	t.mu.Unlock()
	if p == nil || !waitFor(p.exited, wait) {
		return nil
	}
	return p.exitErr()
}

// PID returns the process id of the most recently started process, or 0.
func (t *StdioTransport) PID() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pid
}

// Connect starts a new server process. ctx only bounds the start: the process
// lives until the connection is closed or it exits.
func (t *StdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	if err := ctx.Err(); err != nil {
		return nil, t.errorf("start %q: %w", t.command, err)
	}
	token := newToken()
	env := append(mergeEnv(os.Environ(), t.env), tokenVar+"="+token)
	path, err := lookPath(t.command, t.env)
	if err != nil {
		return nil, t.errorf("start %q: %w", t.command, err)
	}
	cmd := &exec.Cmd{
		Path: path,
		Args: append([]string{t.command}, t.args...),
		Env:  env,
		Dir:  t.cwd,
	}
	setProcessGroup(cmd)

	// Plain pipes (*os.File) instead of exec's pipes: exec would make Wait
	// wait for a copying goroutine, i.e. for every grandchild that inherited
	// stderr, and would close stderr before we read the last lines.
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	stdinR, stdinW, err := pipe()
	if err != nil {
		return nil, t.errorf("start %q: %w", t.command, err)
	}
	stdoutR, stdoutW, err := pipe()
	if err != nil {
		closeAll()
		return nil, t.errorf("start %q: %w", t.command, err)
	}
	stderrR, stderrW, err := pipe()
	if err != nil {
		closeAll()
		return nil, t.errorf("start %q: %w", t.command, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	if err := cmd.Start(); err != nil {
		closeAll()
		var ee *exec.Error
		if errors.As(err, &ee) {
			err = ee.Err
		}
		return nil, t.errorf("start %q: %w", t.command, err)
	}
	stdinR.Close()
	stdoutW.Close()
	stderrW.Close()

	p := &process{
		b:          &t.base,
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		stdin:      stdinW,
		stdout:     stdoutR,
		stderr:     stderrR,
		ring:       newStderrRing(stderrLines),
		token:      token,
		stdinGrace: t.stdinGrace,
		termGrace:  t.termGrace,
		exited:     make(chan struct{}),
		done:       make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	addLeader(p.pid)
	t.mu.Lock()
	t.ring, t.pid, t.proc = p.ring, p.pid, p
	t.mu.Unlock()
	t.logger.Debug("started server process", "command", t.command, "pid", p.pid)

	go p.readStderr()
	go p.reap()

	conn := newMsgConn(&t.base, newLineSource(&exitAwareReader{f: stdoutR, exited: p.exited}, t.limit))
	conn.writeFrame = func(ctx context.Context, data []byte) error {
		err := p.writeLine(ctx, data)
		if errors.Is(err, errWriteStalled) {
			t.logger.Warn("the server stopped reading its stdin: closing the session", "pid", p.pid)
			go conn.Close()
		}
		return err
	}
	conn.shutdown = p.shutdown
	conn.endErr = p.endErr
	conn.start()
	return conn, nil
}

// Abort ends the process of the current connection at once (SIGKILL to its
// process group), without the graceful steps of Close: for a connection
// given up on, such as one that did not finish its handshake within the
// startup timeout. The connection's Close still reaps it.
func (t *StdioTransport) Abort() {
	t.mu.Lock()
	p := t.proc
	t.mu.Unlock()
	if p == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	t.logger.Debug("aborting the server process", "pid", p.pid)
	p.signalGroup(true)
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// mergeEnv returns environ with the entries of over replacing or added.
func mergeEnv(environ []string, over map[string]string) []string {
	out := make([]string, 0, len(environ)+len(over))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := over[k]; !ok {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(over))
	for k := range over {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = append(out, k+"="+over[k])
	}
	return out
}

// lookPath finds command like a shell would, but in the server's PATH when
// its Env sets one (a PATH pointing at a node version manager is common).
func lookPath(command string, env map[string]string) (string, error) {
	pathEnv, ok := env["PATH"]
	if !ok || strings.ContainsRune(command, filepath.Separator) {
		if strings.ContainsRune(command, filepath.Separator) {
			return command, nil // relative paths are relative to cwd, as exec.Cmd does
		}
		p, err := exec.LookPath(command)
		var ee *exec.Error
		if errors.As(err, &ee) {
			err = ee.Err
		}
		return p, err
	}
	for _, dir := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(dir) {
			continue // like exec.ErrDot: never run something from a relative PATH entry
		}
		p := filepath.Join(dir, command)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

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

func addLeader(pid int)     { leaders.Store(pid, struct{}{}) }
func removeLeader(pid int)  { leaders.Delete(pid) }
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
	if last := p.ring.last(); last != "" {
		e = p.b.errorf("%w %s; last stderr line: %q", ErrServerExited, p.status, last)
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

// readStderr logs every stderr line at debug level and keeps the last ones.
func (p *process) readStderr() {
	defer close(p.stderrDone)
	br := bufio.NewReaderSize(&exitAwareReader{f: p.stderr, exited: p.exited}, stderrLineMax)
	for {
		line, err := br.ReadSlice('\n')
		truncated := false
		if err == bufio.ErrBufferFull {
			line = append([]byte(nil), line...)
			truncated = true
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
		}
		s := strings.ToValidUTF8(strings.TrimRight(string(line), "\r\n"), "\uFFFD")
		if truncated {
			s += " [truncated]"
		}
		if strings.TrimSpace(s) != "" {
			p.ring.add(s)
			p.b.logger.Debug("server stderr", "line", s)
		}
		if err != nil {
			return
		}
	}
}

// exitAwareReader reads a pipe of the server. Once the server exited, a read
// that waits longer than straggleWait for data ends the stream: whoever still
// holds the pipe open is not the server.
type exitAwareReader struct {
	f      *os.File
	exited <-chan struct{}
}

func (r *exitAwareReader) Read(b []byte) (int, error) {
	select {
	case <-r.exited:
		_ = r.f.SetReadDeadline(time.Now().Add(straggleWait))
	default:
	}
	n, err := r.f.Read(b)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return n, io.EOF
	}
	return n, err
}

// stderrRing keeps the last lines of a process's stderr.
type stderrRing struct {
	mu   sync.Mutex
	buf  []string
	next int
	full bool
}

func newStderrRing(n int) *stderrRing { return &stderrRing{buf: make([]string, n)} }

func (r *stderrRing) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf[r.next] = s
	r.next = (r.next + 1) % len(r.buf)
	if r.next == 0 {
		r.full = true
	}
}

func (r *stderrRing) tail() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return slices.Clone(r.buf[:r.next])
	}
	return append(slices.Clone(r.buf[r.next:]), r.buf[:r.next]...)
}

func (r *stderrRing) last() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next == 0 && !r.full {
		return ""
	}
	return r.buf[(r.next-1+len(r.buf))%len(r.buf)]
}

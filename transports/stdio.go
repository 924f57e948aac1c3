package transports

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio transport: starting a server process with its pipes and its environment.

// stdioTransport runs a server as a child process and speaks newline-delimited
// JSON-RPC over its stdin/stdout. Unlike mcp.CommandTransport, the child gets
// its own process group and shutdown signals the whole group, so nothing the
// server started survives it; its stderr is logged and kept for StderrTail.
type stdioTransport struct {
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

func newStdio(s *Spec, opts Options) (*stdioTransport, error) {
	t := &stdioTransport{
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
func (t *stdioTransport) StderrTail() []string {
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
// and the stderr line that says why (stderrtail.Key); nil if it is still running (or none started).
// A failed connect's own error often says only "EOF": this says why.
func (t *stdioTransport) Exited(wait time.Duration) error {
	t.mu.Lock()
	p := t.proc
	t.mu.Unlock()
	if p == nil || !waitFor(p.exited, wait) {
		return nil
	}
	return p.exitErr()
}

// PID returns the process id of the most recently started process, or 0.
func (t *stdioTransport) PID() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pid
}

// Connect starts a new server process. ctx only bounds the start: the process
// lives until the connection is closed or it exits.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
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
func (t *stdioTransport) Abort() {
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

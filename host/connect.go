package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/transports"
)

// Connecting a server: the session, the discover probe, why a connect failed.

// fallbackProtocolVersion is used with initialize when a server could not
// take the 2026-07-28 server/discover probe (it closed the connection on it).
const fallbackProtocolVersion = "2025-11-25"

// connect opens a session and fetches the server's lists, all within the
// server's startup timeout. failures is the number of connects that failed
// in a row before this one.
func (s *server) connect(parent context.Context, failures int) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(parent, s.cfg.StartupTimeout)
	defer cancel()
	start := time.Now()
	s.mu.Lock()
	reconnecting := failures > 0 || s.everReady
	already := s.state == StateReconnecting
	if reconnecting {
		s.attempt, s.nextRetry = failures, time.Time{}
	}
	s.mu.Unlock()
	switch {
	case reconnecting && !already:
		s.setState(StateReconnecting, nil)
	case !reconnecting:
		s.setState(StateConnecting, nil)
	}

	sess, err := s.openSession(ctx)
	if err != nil {
		if ctx.Err() != nil && parent.Err() == nil {
			err = fmt.Errorf("server %q: no answer within startup_timeout %s: %w", s.cfg.ID, s.cfg.StartupTimeout, err)
		} else {
			err = fmt.Errorf("server %q: connect: %w", s.cfg.ID, err)
		}
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.dropSession(sess)
		return nil, ErrClosed
	}
	s.session = sess
	s.initResult = sess.InitializeResult()
	s.mu.Unlock()

	if err := s.refreshAll(ctx, sess); err != nil {
		s.dropSession(sess)
		return nil, fmt.Errorf("server %q: %w", s.cfg.ID, err)
	}
	if s.h.opts.logMessages != nil {
		s.askForLogs(ctx, sess)
	}
	s.resubscribe(ctx, sess)
	s.mu.Lock()
	s.lastConnected = time.Now()
	s.connectTook = time.Since(start)
	s.everReady, s.listed = true, true
	s.mu.Unlock()
	// The tools are in the registry before the server is announced ready:
	// whoever sees it ready finds them. A call that finds them first waits
	// for the ready state.
	s.h.rebuildRegistry()
	s.setState(StateReady, nil)
	s.log.Info("connected", "tools", s.toolCount(), "protocol", s.initResult.ProtocolVersion, "took", time.Since(start).Round(time.Millisecond), "reconnect", reconnecting)
	return sess, nil
}

// openSession connects a session. Without a pinned protocol version (the
// entry's, or the host's WithDefaultProtocolVersion) the SDK
// first sends the 2026-07-28 server/discover probe; the probe is bounded by a
// sending middleware (see newClient), so a server that ignores it is spoken to
// with initialize on the same connection. A server that closes the connection
// on the probe is reconnected once with the version pinned.
func (s *server) openSession(ctx context.Context) (*mcp.ClientSession, error) {
	s.mu.Lock()
	version := cmp.Or(s.cfg.ProtocolVersion, s.pinnedVersion, s.h.opts.protocol)
	s.mu.Unlock()

	s.logsAtRead.Store(false) // until this connection's transport shows it
	t, err := s.newTransport()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.transport = t
	s.mu.Unlock()
	sess, err := s.connectBounded(ctx, t, version)
	if err != nil {
		err = withExit(t, err)
	}
	// A server that crashed (rather than closed the connection on the
	// probe) gets no second process in this attempt: the supervisor
	// reports the crash and retries with backoff.
	if err == nil || version != "" || ctx.Err() != nil || errors.Is(err, transports.ErrServerFailed) {
		return sess, err
	}
	s.log.Debug("connect with server/discover probe failed; retrying with initialize", "error", err)
	t, terr := s.newTransport()
	if terr != nil {
		return nil, terr
	}
	s.mu.Lock()
	s.transport = t
	s.mu.Unlock()
	sess, err2 := s.connectBounded(ctx, t, fallbackProtocolVersion)
	if err2 != nil {
		// Both failed: nothing says the probe was the problem. The second
		// failure is the one to show if it says more (a crash).
		if err2 = withExit(t, err2); errors.Is(err2, transports.ErrServerExited) {
			return nil, err2
		}
		return nil, err
	}
	// Only a server that took initialize after refusing the probe is
	// spoken to with initialize from now on.
	s.mu.Lock()
	s.pinnedVersion = fallbackProtocolVersion
	s.mu.Unlock()
	return sess, nil
}

// connectBounded runs go-sdk's Connect but returns as soon as ctx ends.
// When the deadline passes mid-handshake, Connect closes its half-made
// session, and that close waits (up to 5 s) for the notifications/cancelled
// it sends to a server that is not answering: the startup_timeout would be
// overrun. The late result is closed in the background instead.
func (s *server) connectBounded(ctx context.Context, t mcp.Transport, version string) (*mcp.ClientSession, error) {
	type result struct {
		sess *mcp.ClientSession
		err  error
	}
	done := make(chan result, 1)
	client := s.h.newClient(s)
	go func() {
		sess, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: version})
		done <- result{sess, err}
	}()
	select {
	case r := <-done:
		return r.sess, r.err
	case <-ctx.Done():
		// A stdio server that did not finish the handshake in time is
		// killed now: a one-shot command exits sooner than go-sdk's close
		// would reach it, and the process must not outlive mcphost.
		if a, ok := t.(interface{ Abort() }); ok {
			a.Abort()
		}
		go func() {
			if r := <-done; r.sess != nil {
				_ = r.sess.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// exitWait bounds how long a failed connect waits to learn whether its
// server process ended, and how.
const exitWait = 500 * time.Millisecond

// withExit adds to a failed connect's error how the server process ended,
// when it did and the error does not say (go-sdk's connect errors often say
// only "EOF", and do not keep the transport's error chain).
func withExit(t mcp.Transport, err error) error {
	if errors.Is(err, transports.ErrServerExited) {
		return err
	}
	e, ok := t.(interface{ Exited(time.Duration) error })
	if !ok {
		return err
	}
	if exit := e.Exited(exitWait); exit != nil {
		if strings.Contains(err.Error(), exit.Error()) {
			// go-sdk's error already quotes the exit (flattened, so
			// errors.Is missed it): say the cause once.
			return exit
		}
		return fmt.Errorf("%w (%v)", exit, err)
	}
	return err
}

// askForLogs asks a server that logs to send its messages from level info
// on (WithLogMessages). Logging is deprecated from protocol 2026-07-28 on,
// where a server may refuse: nothing else depends on it.
func (s *server) askForLogs(ctx context.Context, sess *mcp.ClientSession) {
	if r := sess.InitializeResult(); r == nil || r.Capabilities == nil || r.Capabilities.Logging == nil {
		return
	}
	if err := sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		s.log.Debug("the server does not take a log level", "error", err)
	}
}

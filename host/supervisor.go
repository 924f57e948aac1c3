package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/transports"
)

// A server's supervisor is one goroutine that owns its connection: it
// connects, serves until the session is lost or a health check fails, and
// reconnects with exponential backoff, until the server is disabled, removed
// or the host closes. go-sdk does none of this: a session that ends stays
// ended.
//
//	disabled ──enable──▶ connecting ──▶ ready ◀──────────┐
//	                         │            │ lost,        │ connected
//	                         ▼            ▼ health check │
//	                       reconnecting (attempt n) ─────┘
//	                         │ max_attempts failures in a row
//	                         ▼
//	                       error ──Reconnect──▶ reconnecting

// errReconnectRequested ends a session on Reconnect(id).
var errReconnectRequested = errors.New("reconnect requested")

// healthTimeout bounds one health check (less if the interval is shorter).
const healthTimeout = 10 * time.Second

// closeGrace bounds closing a session that the supervisor gives up on
// (go-sdk's Close waits for the calls in flight).
const closeGrace = 5 * time.Second

// startSupervisor starts the server's supervisor if it is not running. The
// returned channel is closed when its first connect attempt has ended.
func (s *server) startSupervisor() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run != nil || s.closed {
		done := make(chan struct{})
		close(done)
		return done
	}
	ctx, cancel := context.WithCancel(s.life)
	r := &supervisorRun{cancel: cancel, done: make(chan struct{}), first: make(chan struct{})}
	s.run = r
	go s.supervise(ctx, r)
	return r.first
}

// stopSupervisor stops the supervisor and closes the session, bounded by
// ctx. Calls in flight on the session fail.
func (s *server) stopSupervisor(ctx context.Context) error {
	s.mu.Lock()
	r := s.run
	s.run = nil
	s.mu.Unlock()
	if r != nil {
		r.cancel()
		select {
		case <-r.done:
		case <-ctx.Done():
			return fmt.Errorf("server %q: stopping: %w", s.cfg.ID, ctx.Err())
		}
	}
	s.mu.Lock()
	sess := s.session
	s.session = nil
	s.mu.Unlock()
	if sess == nil {
		return nil
	}
	if err := closeSession(ctx, sess); err != nil {
		return fmt.Errorf("server %q: close: %w", s.cfg.ID, err)
	}
	return nil
}

// supervisorRun is one run of a supervisor, from start (enable) to stop.
type supervisorRun struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the supervisor has exited
	first  chan struct{} // closed when the first connect attempt ended
}

// kick asks the supervisor to reconnect now: a ready server drops its
// session, a waiting one skips the rest of its backoff.
func (s *server) kick() {
	select {
	case s.kickCh <- struct{}{}:
	default:
	}
}

func (s *server) supervise(ctx context.Context, r *supervisorRun) {
	defer close(r.done)
	firstDone := false
	first := func() {
		if !firstDone {
			firstDone = true
			close(r.first)
		}
	}
	defer first()
	// Drain a kick left over from before this run.
	select {
	case <-s.kickCh:
	default:
	}
	failures := 0
	for {
		// When ctx ends, the session (if any) is left to stopSupervisor.
		sess, err := s.connect(ctx, failures)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			err = s.sseHint(err)
		}
		if err == nil {
			first()
			failures = 0
			cause := s.serve(ctx, sess)
			if ctx.Err() != nil {
				return
			}
			// Reconnecting before the session is dropped: a call that
			// comes meanwhile waits rather than failing.
			s.setReconnecting(0, cause, time.Time{})
			s.dropSession(sess)
			if errors.Is(cause, errReconnectRequested) {
				continue
			}
			err = cause
		}
		failures++
		policy := s.reconnectPolicy()
		if state, stopErr := s.stopRetrying(err, failures, policy); stopErr != nil {
			// Retrying cannot help until something changes: wait for it
			// (Reconnect, SetEnabled, SetServers) or for the end.
			s.unlist()
			s.setState(state, stopErr)
			first()
			if state == StateNeedsAuth && s.waitForLogin(ctx) {
				failures = 0
				continue
			}
			select {
			case <-ctx.Done():
				return
			case <-s.kickCh:
				failures = 0
				continue
			}
		}
		delay := backoff(policy, failures)
		s.setReconnecting(failures, err, time.Now().Add(delay))
		first()
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-s.kickCh:
			t.Stop()
		case <-t.C:
		}
	}
}

// stopRetrying decides whether a failed connect ends the retries, and with
// which state and error: a 401 (needs-auth: the same credentials meet the
// same refusal), an error no retry can cure, or reconnect.max_attempts
// (capped by WithConnectAttempts) used up. A nil error means retry.
func (s *server) stopRetrying(err error, failures int, policy config.Reconnect) (State, error) {
	if authErr := s.needsAuth(err); authErr != nil {
		return StateNeedsAuth, authErr
	}
	giveUp := policy.MaxAttempts > 0 && failures >= policy.MaxAttempts
	switch {
	case !giveUp && permanent(err):
		return StateError, fmt.Errorf("%w (it is tried again on Reconnect, when enabled again, or at the next start)", err)
	case giveUp && policy.MaxAttempts == 1:
		return StateError, err
	case giveUp:
		return StateError, fmt.Errorf("server %q: gave up after %d failed connects in a row (reconnect.max_attempts %d; it is tried again on Reconnect, when enabled again, or at the next start): %w",
			s.cfg.ID, failures, policy.MaxAttempts, err)
	}
	return "", nil
}

// needsAuth is the error of a connect that the server refused with 401
// Unauthorized (nil otherwise): what it asked for, and what to do.
func (s *server) needsAuth(err error) error {
	s.mu.Lock()
	t := s.transport
	s.mu.Unlock()
	c, refused := transports.Refused(t)
	if !refused {
		return nil
	}
	asked := ""
	if c.WWWAuthenticate != "" {
		w := firstLine(c.WWWAuthenticate)
		if len(w) > 200 {
			w = w[:200] + "…"
		}
		asked = fmt.Sprintf(" (WWW-Authenticate: %s)", w)
	}
	reason := transports.LastAuthError(t)
	if errors.Is(reason, authn.ErrTransient) {
		// The authorization server did not answer: retry as for any
		// failed connect, the login may still be good.
		return nil
	}
	var lr *authn.LoginRequiredError
	switch {
	case errors.As(reason, &lr):
		return fmt.Errorf("%w (it answered 401 Unauthorized%s)", reason, asked)
	case s.cfg.AdHoc && reason != nil:
		return fmt.Errorf("server %q requires authorization (401 Unauthorized%s) and it failed: %v; %s: %w", s.cfg.ID, asked, reason, authn.AdHocAdvice(s.cfg), err)
	case s.cfg.AdHoc:
		return fmt.Errorf("server %q requires authorization: it answered 401 Unauthorized%s; %s: %w", s.cfg.ID, asked, authn.AdHocAdvice(s.cfg), err)
	case reason != nil:
		return fmt.Errorf("server %q requires authorization (401 Unauthorized%s) and it failed: %v; run \"mcphost login %s\", or give it credentials (an auth block, or a header such as Authorization: Bearer ${TOKEN}): %w",
			s.cfg.ID, asked, reason, s.cfg.ID, err)
	}
	return fmt.Errorf("server %q requires authorization: it answered 401 Unauthorized%s; run \"mcphost login %s\" if it uses OAuth, or give it credentials (an auth block, a header such as Authorization: Bearer ${TOKEN}, or an auth plugin), then reconnect: %w",
		s.cfg.ID, asked, s.cfg.ID, err)
}

// sseHint adds to the failed connect of a Streamable HTTP server whose url
// ends in /sse, as SSE servers' urls do, that it may be one: the server
// answers the POST of initialize with a bare 400, 404 or 405 otherwise.
func (s *server) sseHint(err error) error {
	if s.cfg.Transport != config.TransportHTTP {
		return err
	}
	u, perr := url.Parse(s.cfg.URL)
	if perr != nil || !strings.HasSuffix(strings.TrimSuffix(u.Path, "/"), "/sse") {
		return err
	}
	s.mu.Lock()
	t := s.transport
	s.mu.Unlock()
	if _, refused := transports.Refused(t); refused {
		return err // a 401: it is a server that wants credentials
	}
	if s.cfg.AdHoc {
		return fmt.Errorf("%w; the url ends in /sse, as an SSE server's does: if it is one, add -t sse", err)
	}
	return fmt.Errorf("%w; the url ends in /sse, as an SSE server's does: if it is one, set transport: sse in its entry (%s)", err, s.cfg.Source)
}

// permanent reports a connect error that a retry cannot cure: the server's
// executable does not exist.
func permanent(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)
}

// unlist takes the server's tools out of the registry.
func (s *server) unlist() {
	s.mu.Lock()
	s.listed = false
	s.mu.Unlock()
	s.h.rebuildRegistry()
}

// reconnectPolicy is the server's reconnect settings with defaults applied.
func (s *server) reconnectPolicy() config.Reconnect {
	p := s.cfg.Reconnect
	if p.InitialDelay <= 0 {
		p.InitialDelay = config.DefaultReconnectInitialDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = config.DefaultReconnectMaxDelay
	}
	if p.MaxDelay < p.InitialDelay {
		p.MaxDelay = p.InitialDelay
	}
	// WithConnectAttempts caps the attempts (one-shot programs).
	if limit := s.h.opts.maxAttempts; limit > 0 && (p.MaxAttempts == 0 || limit < p.MaxAttempts) {
		p.MaxAttempts = limit
	}
	return p
}

// backoff is the wait before retry number failures (1, 2, ...): the
// initial delay doubled for each earlier failure, capped, then spread by
// ±20 % so that servers that failed together do not retry together.
func backoff(p config.Reconnect, failures int) time.Duration {
	d := p.InitialDelay
	for i := 1; i < failures && d < p.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, p.MaxDelay)
	jitter := time.Duration(float64(d) * 0.2 * (2*rand.Float64() - 1))
	return max(d+jitter, time.Millisecond)
}

// serve watches a ready session until it is lost, fails a health check, a
// reconnect is requested or ctx ends, and says which.
func (s *server) serve(ctx context.Context, sess *mcp.ClientSession) error {
	lost := make(chan error, 1)
	go func() { lost <- sess.Wait() }()
	var tick <-chan time.Time
	if iv := s.healthInterval(); iv > 0 {
		t := time.NewTicker(iv)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-lost:
			return s.lostError(err)
		case <-s.kickCh:
			return errReconnectRequested
		case <-tick:
			if err := s.healthCheck(ctx, sess); err != nil {
				return err
			}
		}
	}
}

func (s *server) healthInterval() time.Duration {
	switch iv := s.cfg.HealthInterval; {
	case iv < 0:
		return 0
	case iv == 0:
		return config.DefaultHealthInterval
	default:
		return iv
	}
}

// healthCheck pings the server. Any answer proves it alive, an error answer
// too: servers on protocol versions without ping (2026-07-28 removed it)
// answer "method not found", which is as good.
func (s *server) healthCheck(ctx context.Context, sess *mcp.ClientSession) error {
	timeout := min(healthTimeout, s.healthInterval())
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := sess.Ping(hctx, nil)
	var wire *jsonrpc.Error
	if err == nil || errors.As(err, &wire) || ctx.Err() != nil {
		return nil
	}
	if hctx.Err() != nil {
		return fmt.Errorf("server %q: health check: no answer to ping within %s", s.cfg.ID, timeout)
	}
	return fmt.Errorf("server %q: health check: %w", s.cfg.ID, err)
}

// sessionEndWait bounds how long a failed call waits to learn why its
// session ended (the connection's own error says more than the call's).
const sessionEndWait = 250 * time.Millisecond

// sessionEnd is why sess ended, if it ends within sessionEndWait; else
// callErr, the error the call got.
func sessionEnd(sess *mcp.ClientSession, callErr error) error {
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	t := time.NewTimer(sessionEndWait)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
	case <-t.C:
	}
	return callErr
}

// lostError describes a session that ended by itself.
func (s *server) lostError(err error) error {
	if err == nil {
		err = errors.New("connection closed")
	}
	return fmt.Errorf("server %q: connection lost: %w", s.cfg.ID, err)
}

// dropSession forgets sess (if it is the current one) and closes it,
// without waiting longer than closeGrace for calls in flight.
func (s *server) dropSession(sess *mcp.ClientSession) {
	s.mu.Lock()
	if s.session == sess {
		s.session = nil
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), closeGrace)
	defer cancel()
	_ = closeSession(ctx, sess)
}

// closeSession closes sess, waiting until ctx ends at the most (the close
// goes on in the background: go-sdk's Close waits for calls in flight).
func closeSession(ctx context.Context, sess *mcp.ClientSession) error {
	done := make(chan error, 1)
	go func() { done <- sess.Close() }()
	select {
	case err := <-done:
		if errors.Is(err, mcp.ErrConnectionClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// setReconnecting records a failed attempt and the time of the next one.
func (s *server) setReconnecting(failures int, err error, next time.Time) {
	s.mu.Lock()
	s.attempt, s.nextRetry = failures, next
	s.mu.Unlock()
	s.setState(StateReconnecting, err)
}

// send runs one request on the server's session, waiting for a server that
// is (re)connecting, within ctx. A request that the connection never sent
// because it was failing (go-sdk's "client is closing", a lost HTTP
// session, or one our transports did not write: transports.Delivery) is
// sent once more on the next session: it cannot have run.
// It returns the session of the last try, for callError.
func (s *server) send(ctx context.Context, fn func(context.Context, *mcp.ClientSession) error) (*mcp.ClientSession, error) {
	var dead *mcp.ClientSession
	for try := 0; ; try++ {
		sess, err := s.awaitSession(ctx, dead)
		if err != nil {
			return nil, err
		}
		var d transports.Delivery
		err = fn(transports.WithDelivery(ctx, &d), sess)
		if err == nil || try > 0 || ctx.Err() != nil {
			return sess, err
		}
		if !notSent(err) && !(s.tracksDelivery() && !d.Sent() && !serverAnswered(err)) {
			return sess, err
		}
		s.log.Debug("request not sent on a failing connection; sending it on the next one", "error", err)
		dead = sess
	}
}

// tracksDelivery reports whether the server's transport records whether a
// request was written (transports.Delivery).
func (s *server) tracksDelivery() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return transports.TracksDelivery(s.transport)
}

// notSent reports errors that say the request never reached the server.
func notSent(err error) bool {
	// go-sdk returns ErrConnectionClosed only for a request made on a
	// connection already closing (turning "client is closing" into it);
	// requests already sent when a connection fails get the connection's
	// read error instead. A Streamable HTTP server answers 404
	// (ErrSessionMissing) for a session it no longer knows, without
	// running the request.
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing)
}

// serverAnswered reports whether err is an error answer from the server,
// as opposed to a failure of the connection.
func serverAnswered(err error) bool {
	var wire *jsonrpc.Error
	return errors.As(err, &wire) && !notSent(err)
}

// loginPoll is how often a server in state needs-auth looks for a login
// that another process (mcphost login) stored.
const loginPoll = 2 * time.Second

// loginWatcher is implemented by OAuth handlers that can tell when the
// token store holds a login they do not use yet.
type loginWatcher interface{ NewLogin() bool }

// waitForLogin waits, in state needs-auth, for a kick (true: retry), the
// end (false) or a new stored login (true, with credentials made afresh).
// It returns false at once when the server's credentials cannot tell.
func (s *server) waitForLogin(ctx context.Context) bool {
	creds, _ := s.credentials()
	w, ok := creds.OAuth.(loginWatcher)
	if !ok {
		return false
	}
	t := time.NewTicker(loginPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-s.kickCh:
			return true
		case <-t.C:
			if w.NewLogin() {
				s.log.Info("a new login was stored; reconnecting")
				s.setCredentials(authn.Credentials{}, false)
				return true
			}
		}
	}
}

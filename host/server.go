package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcphost/mcphost/host/authn"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/config"
)

// One configured server's state: usable or not, waiting for it, its status.

// server is the host's side of one configured MCP server: its connection,
// its state and the lists it last reported.
type server struct {
	h      *Host
	cfg    *config.Server
	inproc *mcp.Server
	log    hclog.Logger

	// life ends when the host closes; calls in flight are cancelled with it.
	life     context.Context
	stopLife context.CancelFunc

	// subscriptions are the resource URIs subscribed to (Subscribe),
	// made again at every connect (under mu).
	subscriptions map[string]bool

	// creds are the server's credentials (credentials), made on first use
	// and again after a Login.
	credsMu   sync.Mutex
	credsMade bool
	creds     authn.Credentials
	credsErr  error

	mu    sync.Mutex
	state State
	err   error
	// changed is closed and replaced at every state change, for calls that
	// wait for a (re)connecting server.
	changed chan struct{}
	// attempt counts the connects that failed in a row; nextRetry is when
	// the supervisor tries again (state reconnecting).
	attempt   int
	nextRetry time.Time
	// run is the running supervisor, nil when there is none (disabled,
	// not started, closed). kickCh asks it to reconnect now.
	run           *supervisorRun
	kickCh        chan struct{}
	transport     mcp.Transport
	session       *mcp.ClientSession
	initResult    *mcp.InitializeResult
	tools         []*mcp.Tool // after the config filter
	resources     []*mcp.Resource
	templates     []*mcp.ResourceTemplate
	prompts       []*mcp.Prompt
	lastConnected time.Time
	connectTook   time.Duration
	// pinnedVersion is set once the discover probe has closed this server's
	// connection, so later connects go straight to initialize.
	pinnedVersion string
	closed        bool
	// enabled starts as the configuration says; SetEnabled changes it.
	enabled bool
	// warnings are problems with the last lists (tools left out).
	warnings []string
	// pin is what pinning decided about the last tool listing, pinListed
	// that listing as the server sent it (nil: not listed, or no pinning).
	pin       pinVerdict
	pinListed []listedTool
	// everReady: the server was ready once.
	everReady bool
	// listed: its tools are in the registry. They stay there while it
	// reconnects, so that calls can wait for it; they leave when it gives
	// up or is disabled.
	listed bool

	refreshMu sync.Mutex  // serialises list refreshes
	changes   listChanges // list_changed notifications waiting for a refresh
	// logsAtRead is set once the transport has passed a log message on as
	// it was read (received): go-sdk's handler then leaves them alone.
	logsAtRead atomic.Bool
}

func newServer(h *Host, sc *config.Server) *server {
	s := &server{h: h, cfg: sc, log: h.log.Named(sc.ID), enabled: sc.Enabled, changed: make(chan struct{}), kickCh: make(chan struct{}, 1)}
	s.life, s.stopLife = context.WithCancel(context.Background())
	for _, ip := range h.opts.inProcess {
		if ip.id == sc.ID {
			s.inproc = ip.server
		}
	}
	switch {
	case sc.Blocked != "":
		// Before everything else: nothing the user does starts it.
		s.state, s.err = StateBlocked, errors.New(sc.Blocked)
	case sc.Err != nil:
		s.state, s.err = StateError, sc.Err
	case !sc.Enabled:
		// Disabled says more than untrusted: it would not start even if
		// the project were trusted.
		s.state = StateDisabled
	case sc.Untrusted:
		s.state = StateUntrusted
		s.err = errors.New(sc.UntrustedHint())
	default:
		s.state = StateConnecting
	}
	return s
}

func (s *server) startable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Err == nil && !s.cfg.Untrusted && s.cfg.Blocked == "" && s.enabled
}

func (s *server) setState(st State, err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.state, s.err = st, err
	if st != StateReconnecting {
		s.nextRetry = time.Time{}
	}
	if st == StateReady {
		s.attempt = 0
	}
	close(s.changed)
	s.changed = make(chan struct{})
	attempt := s.attempt
	s.mu.Unlock()
	if err != nil {
		// Info, not Warn: Status and events carry the error, and a command
		// line tool that prints it would otherwise show it twice.
		s.log.Info("server state", "state", st, "error", err)
	} else {
		s.log.Debug("server state", "state", st)
	}
	s.h.emit(Event{Server: s.cfg.ID, Kind: "state", State: st, Err: err, Attempt: attempt})
}

// readySession returns the live session or an error that says why there is none.
func (s *server) readySession() (*mcp.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != nil && s.state == StateReady {
		return s.session, nil
	}
	return nil, s.unavailableLocked()
}

// usable fails at once for a server that will not become ready by itself
// (disabled, given up, closed); a ready or (re)connecting one passes.
func (s *server) usable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if (s.state == StateReady && s.session != nil) || s.transientLocked() {
		return nil
	}
	return s.unavailableLocked()
}

// awaitSession is readySession for a call: a server that is connecting or
// reconnecting is waited for, until ctx ends. A session known to be dead
// (avoid) counts as none.
func (s *server) awaitSession(ctx context.Context, avoid *mcp.ClientSession) (*mcp.ClientSession, error) {
	for {
		s.mu.Lock()
		if s.session != nil && s.session != avoid && s.state == StateReady {
			sess := s.session
			s.mu.Unlock()
			return sess, nil
		}
		if !s.transientLocked() && (avoid == nil || s.session != avoid || s.run == nil) {
			err := s.unavailableLocked()
			s.mu.Unlock()
			return nil, err
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			s.mu.Lock()
			err := s.unavailableLocked()
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: %w", err, ctx.Err())
		}
	}
}

// transientLocked: the server is on its way to ready by itself.
func (s *server) transientLocked() bool {
	return (s.state == StateConnecting || s.state == StateReconnecting) && s.run != nil
}

// unavailableLocked says why the server has no ready session.
func (s *server) unavailableLocked() error {
	switch s.state {
	case StateBlocked:
		return fmt.Errorf("server %q is %v", s.cfg.ID, s.err)
	case StateDisabled:
		return fmt.Errorf("server %q is disabled (enable it with \"mcphost mcp enable %s\")", s.cfg.ID, s.cfg.ID)
	case StateConnecting:
		return fmt.Errorf("server %q is still connecting", s.cfg.ID)
	case StateReconnecting:
		if s.err != nil {
			return fmt.Errorf("server %q is reconnecting (attempt %d, last error: %v)", s.cfg.ID, s.attempt+1, s.err)
		}
		return fmt.Errorf("server %q is reconnecting (attempt %d)", s.cfg.ID, s.attempt+1)
	case StateClosed:
		return fmt.Errorf("server %q: %w", s.cfg.ID, ErrClosed)
	}
	if s.err != nil {
		return fmt.Errorf("server %q is not available (%s): %w", s.cfg.ID, s.state, s.err)
	}
	return fmt.Errorf("server %q is not available (%s)", s.cfg.ID, s.state)
}

// requestContext bounds one request by the call's own timeout (or the
// server's request_timeout) and by the host's lifetime.
func (s *server) requestContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		timeout = s.cfg.RequestTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	stop := context.AfterFunc(s.life, cancel)
	return ctx, func() { stop(); cancel() }
}

// close stops the supervisor and ends the session and the transport,
// bounded by ctx. In-flight calls are cancelled first (the server's life
// ends), because go-sdk's Close waits for pending calls.
func (s *server) close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.stopLife()
	err := s.stopSupervisor(ctx)
	s.mu.Lock()
	s.state = StateClosed
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
	return err
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{
		ID:              s.cfg.ID,
		Transport:       s.cfg.Transport,
		Source:          s.cfg.Source,
		Enabled:         s.enabled,
		State:           s.state,
		LastConnected:   s.lastConnected,
		ConnectDuration: s.connectTook,
		NextRetry:       s.nextRetry,
	}
	if s.state == StateReconnecting {
		st.Attempt = s.attempt + 1
	}
	if s.state == StateReady || (s.state == StateReconnecting && s.everReady) {
		st.Tools = len(s.tools)
	}
	if s.err != nil {
		st.Error = s.err.Error()
		if joined, ok := s.err.(interface{ Unwrap() []error }); ok && s.err == s.cfg.Err {
			for _, e := range joined.Unwrap() {
				st.Errors = append(st.Errors, e.Error())
			}
		}
	}
	st.Warnings = append(slices.Clone(s.warnings), s.pin.warnings...)
	st.PinWarnings = slices.Clone(s.pin.warnings)
	if ir := s.initResult; ir != nil {
		st.ProtocolVersion = ir.ProtocolVersion
		if ir.ServerInfo != nil {
			st.ServerName, st.ServerVersion = ir.ServerInfo.Name, ir.ServerInfo.Version
		}
	}
	if tail, ok := s.transport.(interface{ StderrTail() []string }); ok {
		st.Stderr = tail.StderrTail()
	}
	return st
}

// Status reports every configured server, sorted by id.
func (h *Host) Status() []ServerStatus {
	servers := h.list()
	out := make([]ServerStatus, len(servers))
	for i, s := range servers {
		out[i] = s.status()
	}
	return out
}

func (h *Host) emit(e Event) {
	if h.opts.onChange != nil {
		h.opts.onChange(e)
	}
}

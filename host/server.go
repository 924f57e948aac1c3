package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcphost/mcphost/authn"
	"github.com/mcphost/mcphost/pdk/glob"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/jsonscan"
	"github.com/mcphost/mcphost/transports"
)

// fallbackProtocolVersion is used with initialize when a server could not
// take the 2026-07-28 server/discover probe (it closed the connection on it).
const fallbackProtocolVersion = "2025-11-25"

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
	// everReady: the server was ready once.
	everReady bool
	// listed: its tools are in the registry. They stay there while it
	// reconnects, so that calls can wait for it; they leave when it gives
	// up or is disabled.
	listed bool

	refreshMu sync.Mutex  // serialises list refreshes
	changes   listChanges // list_changed notifications waiting for a refresh
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
	case sc.Err != nil:
		s.state, s.err = StateError, sc.Err
	case !sc.Enabled:
		// Disabled says more than untrusted: it would not start even if
		// the project were trusted.
		s.state = StateDisabled
	case sc.Untrusted:
		s.state = StateUntrusted
		s.err = errors.New(config.UntrustedHint(dirOf(sc.Source)))
	default:
		s.state = StateConnecting
	}
	return s
}

func (s *server) startable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Err == nil && !s.cfg.Untrusted && s.enabled
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

// openSession connects a session. Without a pinned protocol version the SDK
// first sends the 2026-07-28 server/discover probe; the probe is bounded by a
// sending middleware (see newClient), so a server that ignores it is spoken to
// with initialize on the same connection. A server that closes the connection
// on the probe is reconnected once with the version pinned.
func (s *server) openSession(ctx context.Context) (*mcp.ClientSession, error) {
	s.mu.Lock()
	version := s.cfg.ProtocolVersion
	if version == "" {
		version = s.pinnedVersion
	}
	s.mu.Unlock()

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

// refreshAll fetches every list the server's capabilities announce.
func (s *server) refreshAll(ctx context.Context, sess *mcp.ClientSession) error {
	if err := s.refreshTools(ctx, sess); err != nil {
		return err
	}
	// Resources and prompts are secondary: a server that fails to list them
	// still serves its tools.
	if err := s.refreshResources(ctx, sess); err != nil {
		s.log.Warn("listing resources failed", "error", err)
	}
	if err := s.refreshPrompts(ctx, sess); err != nil {
		s.log.Warn("listing prompts failed", "error", err)
	}
	return nil
}

func (s *server) caps(sess *mcp.ClientSession) *mcp.ServerCapabilities {
	if ir := sess.InitializeResult(); ir != nil && ir.Capabilities != nil {
		return ir.Capabilities
	}
	return &mcp.ServerCapabilities{}
}

func (s *server) refreshTools(ctx context.Context, sess *mcp.ClientSession) error {
	if s.caps(sess).Tools == nil {
		s.mu.Lock()
		s.tools = nil
		s.mu.Unlock()
		return nil
	}
	var (
		tools    []*mcp.Tool
		warnings []string
	)
	listed, warning, err := listAll(s, "tools/list", sess.Tools(ctx, nil))
	if err != nil {
		return err
	}
	if warning != "" {
		warnings = append(warnings, warning)
	}
	for _, t := range listed {
		if !s.toolAllowed(t.Name) {
			continue
		}
		if problem := schemaProblem(t); problem != "" {
			w := fmt.Sprintf("tool %q left out: %s", t.Name, problem)
			s.log.Warn(w)
			warnings = append(warnings, w)
			continue
		}
		tools = append(tools, t)
	}
	tools = s.h.filterTools(s.cfg.ID, tools)
	s.mu.Lock()
	s.tools, s.warnings = tools, warnings
	s.mu.Unlock()
	return nil
}

func (s *server) refreshResources(ctx context.Context, sess *mcp.ClientSession) error {
	if s.caps(sess).Resources == nil {
		return nil
	}
	res, _, err := listAll(s, "resources/list", sess.Resources(ctx, nil))
	if err != nil {
		return err
	}
	tmpls, _, err := listAll(s, "resources/templates/list", sess.ResourceTemplates(ctx, nil))
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.resources, s.templates = res, tmpls
	s.mu.Unlock()
	return nil
}

func (s *server) refreshPrompts(ctx context.Context, sess *mcp.ClientSession) error {
	if s.caps(sess).Prompts == nil {
		return nil
	}
	prompts, _, err := listAll(s, "prompts/list", sess.Prompts(ctx, nil))
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.prompts = prompts
	s.mu.Unlock()
	return nil
}

// maxListed bounds what mcphost keeps of one list of one server: a server
// whose cursors never end, or that lists without end, costs bounded memory
// and time, and what is over the bound is left out with a warning.
const maxListed = 50_000

// listAll follows a list's pages (go-sdk's iterator sends the cursors) up
// to maxListed items, leaving out nil entries.
func listAll[T comparable](s *server, method string, pages iter.Seq2[T, error]) (items []T, warning string, err error) {
	var none T
	for v, err := range pages {
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", method, err)
		}
		if v == none {
			continue
		}
		if len(items) == maxListed {
			warning = fmt.Sprintf("%s: more than %d items; the rest left out", method, maxListed)
			s.log.Warn(warning)
			break
		}
		items = append(items, v)
	}
	return items, warning, nil
}

// toolAllowed applies the per-server tools.allow / tools.deny globs.
func (s *server) toolAllowed(name string) bool {
	for _, g := range s.cfg.Tools.Deny {
		if glob.Match(g, name) {
			return false
		}
	}
	if len(s.cfg.Tools.Allow) == 0 {
		return true
	}
	for _, g := range s.cfg.Tools.Allow {
		if glob.Match(g, name) {
			return true
		}
	}
	return false
}

func (s *server) toolCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tools)
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
	}
	st.Warnings = slices.Clone(s.warnings)
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

func dirOf(source string) string {
	if source == "" {
		return "."
	}
	return filepath.Dir(source)
}

// Limits on one tool's schemas. A model provider would refuse such a tool,
// and holding it costs every listing: it is left out, the server's other
// tools are kept.
const (
	maxSchemaBytes = 1 << 20
	// maxSchemaDepth is JSON nesting (each level of a JSON Schema's
	// "properties" is two).
	maxSchemaDepth = 100
)

// schemaProblem says why a tool's input or output schema is refused, or "".
func schemaProblem(t *mcp.Tool) string {
	for _, sc := range []struct {
		name   string
		schema any
	}{{"input schema", t.InputSchema}, {"output schema", t.OutputSchema}} {
		if sc.schema == nil {
			continue
		}
		data, err := json.Marshal(sc.schema)
		if err != nil {
			return fmt.Sprintf("its %s cannot be encoded: %v", sc.name, err)
		}
		if len(data) > maxSchemaBytes {
			return fmt.Sprintf("its %s is %.1f MiB, over the limit of %d MiB", sc.name, float64(len(data))/(1<<20), maxSchemaBytes>>20)
		}
		if d := jsonscan.Depth(data); d > maxSchemaDepth {
			return fmt.Sprintf("its %s nests %d levels deep, over the limit of %d", sc.name, d, maxSchemaDepth)
		}
	}
	return ""
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

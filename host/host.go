// Package host is mcphost's core: it connects to many MCP servers, discovers
// their tools, resources and prompts, gives every tool a safe public name and
// calls tools on behalf of an agent or a person.
//
// A Host is built from a loaded configuration with chain.NewHost (package
// host/chain), which carries out everything the configuration asks of
// calls: its built-in policy, its plugins and its result truncation.
//
//	cfg, err := config.Load(config.LoadOptions{})
//	h, err := chain.NewHost(ctx, cfg, chain.Options{}, host.WithLogger(logger))
//	err = h.Start(ctx)        // connects every enabled server in parallel
//	defer h.Close(context.Background())
//	for _, t := range h.Tools() { fmt.Println(t.Name) }  // what a model may be offered
//	res, err := h.CallTool(ctx, "mcp__github__search", map[string]any{"q": "mcp"})
//
// New builds a Host from a configuration written in code, with stages of
// your own (WithStages); it refuses a configuration that asks for a
// policy, plugins or truncation it was not given the stages for
// (WithConfigStages), so no program runs a configuration without them.
//
// One slow or broken server never delays the others past its own startup
// timeout and never breaks them: its state and last error show in Status.
package host

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/naming"
)

// Errors that callers may want to tell apart (errors.Is).
var (
	// ErrClosed is returned by methods called after Close.
	ErrClosed = errors.New("host: closed")
	// ErrUnknownTool: no ready server offers a tool of that public name.
	ErrUnknownTool = errors.New("no such tool")
	// ErrUnknownPrompt: no ready server offers a prompt of that name.
	ErrUnknownPrompt = errors.New("no such prompt")
	// ErrUnknownResource: no ready server lists the resource, or several do.
	ErrUnknownResource = errors.New("no server for resource")
	// ErrUnknownServer: no server of that id is configured.
	ErrUnknownServer = errors.New("no such server")
)

// Host connects to the configured MCP servers and routes calls to them.
// Its methods are safe for concurrent use.
type Host struct {
	opts   options
	log    hclog.Logger
	mapper naming.Mapper

	// serversMu guards servers and byID, which SetServers changes.
	serversMu sync.RWMutex
	servers   []*server // sorted by id
	byID      map[string]*server
	started   bool

	registry registry
	pipeline *pipeline
	// pins is tool pinning (nil: off).
	pins     *pinning
	pinWatch sync.Once
	// asked is what the configuration the host was built with asks of
	// calls (policy, results, plugins): SetServers takes no configuration
	// that asks for something else.
	asked config.Config

	progressMu  sync.Mutex
	progress    map[string]func(Progress) // progress token -> callback
	progressSeq uint64

	closeOnce sync.Once
	closed    chan struct{}
}

// New builds a Host from cfg. It does not connect: call Start.
// It fails for settings that concern the whole host (for example an
// invalid name scheme), and for a cfg that asks for a policy, plugins or
// result truncation without WithConfigStages (use chain.NewHost); a bad
// server entry is kept and shown as an error.
func New(cfg *config.Config, opts ...Option) (*Host, error) {
	if cfg == nil {
		cfg = &config.Config{}
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	stages := o.stages
	if o.config != nil {
		stages = append(slices.Clip(o.config.Stages), o.stages...)
		if o.results == nil {
			o.results = o.config.Results
		}
	} else if asked := restrictions(cfg); len(asked) > 0 {
		return nil, errUnappliedConfig(asked)
	}
	mapper := naming.Mapper{Scheme: cfg.Names.Scheme, MaxLength: cfg.Names.MaxLength}
	if err := mapper.Validate(); err != nil {
		return nil, fmt.Errorf("host: names: %w", err)
	}
	pl, err := newPipeline(stages)
	if err != nil {
		return nil, err
	}
	h := &Host{
		asked:    config.Config{Policy: cfg.Policy, Results: cfg.Results, Plugins: slices.Clone(cfg.Plugins)},
		pipeline: pl,
		pins:     newPinning(o.pinStore, cfg.Pinning),
		opts:     o,
		log:      o.logger.Named("host"),
		mapper:   mapper,
		byID:     map[string]*server{},
		progress: map[string]func(Progress){},
		closed:   make(chan struct{}),
	}
	add := func(sc *config.Server) error {
		if _, dup := h.byID[sc.ID]; dup {
			return fmt.Errorf("host: server %q is configured twice", sc.ID)
		}
		s := newServer(h, sc)
		h.servers = append(h.servers, s)
		h.byID[sc.ID] = s
		return nil
	}
	inProcess := map[string]bool{}
	for _, ip := range o.inProcess {
		inProcess[ip.id] = true
	}
	for _, sc := range cfg.Servers {
		if sc == nil {
			continue
		}
		sc = withDefaults(sc)
		if err := config.CheckServerID(sc.ID); err != nil && sc.Err == nil {
			sc.Err = fmt.Errorf("host: server %q: %w", sc.ID, err)
		}
		if inProcess[sc.ID] {
			// A configured entry for an in-process server supplies its
			// settings (timeouts, tool filters, enabled).
			sc.Transport = config.TransportInProcess
			delete(inProcess, sc.ID)
		}
		if err := add(sc); err != nil {
			return nil, err
		}
	}
	for _, ip := range o.inProcess {
		if !inProcess[ip.id] {
			continue
		}
		delete(inProcess, ip.id)
		sc := withDefaults(&config.Server{
			ID: ip.id, Transport: config.TransportInProcess, Enabled: true, Source: "library",
		})
		if err := config.CheckServerID(ip.id); err != nil {
			sc.Err = fmt.Errorf("host: in-process server: %w", err)
		}
		if err := add(sc); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(h.servers, func(a, b *server) int { return compareStrings(a.cfg.ID, b.cfg.ID) })
	return h, nil
}

// withDefaults returns a copy of sc with zero durations and sizes replaced by
// the defaults, so a config built in code needs only the fields it cares about.
func withDefaults(sc *config.Server) *config.Server {
	c := *sc
	if c.StartupTimeout <= 0 {
		c.StartupTimeout = config.DefaultStartupTimeout
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = config.DefaultRequestTimeout
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = config.DefaultMaxMessageBytes
	}
	if c.Transport == "" {
		switch {
		case c.Command != "":
			c.Transport = config.TransportStdio
		case c.URL != "":
			c.Transport = config.TransportHTTP
		}
	}
	return &c
}

// Start connects every enabled, trusted and valid server in parallel and
// returns when each has either connected or failed its first attempt
// (bounded by its own startup_timeout). A server that fails does not make
// Start fail: its supervisor goes on retrying with backoff, and its state
// and last error show in Status. Start returns an error only if ctx ends
// first or the host is closed.
func (h *Host) Start(ctx context.Context) error {
	if h.isClosed() {
		return ErrClosed
	}
	h.pinWatch.Do(func() { go h.watchPins() })
	h.serversMu.Lock()
	h.started = true
	var firsts []<-chan struct{}
	for _, s := range h.servers {
		if s.startable() {
			firsts = append(firsts, s.startSupervisor())
		}
	}
	h.serversMu.Unlock()
	for _, first := range firsts {
		select {
		case <-first:
		case <-ctx.Done():
			return fmt.Errorf("host: start: %w", ctx.Err())
		}
	}
	return nil
}

// DefaultCloseTimeout bounds Close when its context has no deadline.
const DefaultCloseTimeout = 5 * time.Second

// Close disconnects every server in parallel and waits until they are gone,
// bounded by ctx (DefaultCloseTimeout if ctx has no deadline). Calls in
// flight fail at once with ErrClosed. Stdio servers get their stdin closed,
// a short grace, then SIGTERM and SIGKILL to their process group, and are
// always reaped. Close is idempotent.
func (h *Host) Close(ctx context.Context) error {
	first := false
	h.closeOnce.Do(func() { close(h.closed); first = true })
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultCloseTimeout)
		defer cancel()
	}
	// Taking the lock once h.closed is closed: a SetServers that swapped
	// its servers in before this point has them in the snapshot, and one
	// after it sees the host closed and changes nothing.
	h.serversMu.Lock()
	servers := slices.Clone(h.servers)
	h.serversMu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(servers))
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.close(ctx)
		}()
	}
	wg.Wait()
	// The stages go last: a call still finishing may need them.
	if first && h.opts.config != nil && h.opts.config.Close != nil {
		errs = append(errs, h.opts.config.Close(ctx))
	}
	return errors.Join(errs...)
}

func (h *Host) isClosed() bool {
	select {
	case <-h.closed:
		return true
	default:
		return false
	}
}

// list is a snapshot of the servers, sorted by id.
func (h *Host) list() []*server {
	h.serversMu.RLock()
	defer h.serversMu.RUnlock()
	return slices.Clone(h.servers)
}

// server returns the server with the given id, or an error naming it.
func (h *Host) server(id string) (*server, error) {
	h.serversMu.RLock()
	s, ok := h.byID[id]
	h.serversMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("host: server %q: %w (see \"mcphost mcp list\")", id, ErrUnknownServer)
	}
	return s, nil
}

// Server ids in order.
func (h *Host) ServerIDs() []string {
	servers := h.list()
	ids := make([]string, len(servers))
	for i, s := range servers {
		ids[i] = s.cfg.ID
	}
	return ids
}

// registerProgress allocates a progress token routed to fn.
func (h *Host) registerProgress(fn func(Progress)) (token string, release func()) {
	h.progressMu.Lock()
	h.progressSeq++
	token = fmt.Sprintf("mcphost-%d", h.progressSeq)
	h.progress[token] = fn
	h.progressMu.Unlock()
	return token, func() {
		h.progressMu.Lock()
		delete(h.progress, token)
		h.progressMu.Unlock()
	}
}

func (h *Host) dispatchProgress(serverID string, p *mcp.ProgressNotificationParams) {
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	h.progressMu.Lock()
	fn := h.progress[token]
	h.progressMu.Unlock()
	if fn != nil {
		fn(Progress{Server: serverID, Progress: p.Progress, Total: p.Total, Message: p.Message})
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

package host

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/mcphost/mcphost/host/config"
)

// Reconnect drops server id's session (if it has one) and connects again at
// once, skipping any backoff; a server that gave up (state error after
// reconnect.max_attempts) starts trying again. Calls in flight on the old
// session fail; calls made meanwhile wait for the new one.
func (h *Host) Reconnect(id string) error {
	if h.isClosed() {
		return ErrClosed
	}
	s, err := h.server(id)
	if err != nil {
		return err
	}
	if !s.startable() {
		s.mu.Lock()
		err := s.unavailableLocked()
		s.mu.Unlock()
		return fmt.Errorf("host: reconnect: %w", err)
	}
	if !h.isStarted() {
		return fmt.Errorf("host: reconnect %q: the host is not started", id)
	}
	s.mu.Lock()
	running := s.run != nil
	s.mu.Unlock()
	if running {
		s.kick()
		return nil
	}
	s.startSupervisor()
	return nil
}

// SetEnabled enables or disables server id for the life of the host (the
// configuration files are not changed). A disabled server's session is
// closed and its tools leave the registry; enabled again, it connects and
// its tools come back under the same public names (if no other server took
// them meanwhile).
func (h *Host) SetEnabled(ctx context.Context, id string, enabled bool) error {
	if h.isClosed() {
		return ErrClosed
	}
	s, err := h.server(id)
	if err != nil {
		return err
	}
	if enabled && s.cfg.Blocked != "" {
		return fmt.Errorf("host: enable: server %q is %s", id, s.cfg.Blocked)
	}
	s.mu.Lock()
	if s.enabled == enabled {
		s.mu.Unlock()
		return nil
	}
	s.enabled = enabled
	s.mu.Unlock()
	if !enabled {
		err := s.stopSupervisor(ctx)
		s.unlist()
		if s.cfg.Blocked == "" {
			s.setState(StateDisabled, nil)
		}
		return err
	}
	if !s.startable() {
		s.mu.Lock()
		err := s.unavailableLocked()
		s.mu.Unlock()
		return fmt.Errorf("host: enable: %w", err)
	}
	if h.isStarted() {
		s.setState(StateConnecting, nil)
		s.startSupervisor()
	}
	return nil
}

// ServersChange is what SetServers did.
type ServersChange struct {
	// Added, Removed and Changed are server ids, sorted.
	Added, Removed, Changed []string
	// Errors are the problems of entries of the new configuration (a bad
	// field, untrusted), by server id; those servers are kept in the
	// error or untrusted state, as New would.
	Errors map[string]error
}

// Empty reports whether nothing changed.
func (c ServersChange) Empty() bool {
	return len(c.Added)+len(c.Removed)+len(c.Changed) == 0
}

// SetServers applies a new configuration's servers: it connects the added
// ones, disconnects the removed ones and reconnects the changed ones, and
// leaves every other server (and the calls in flight on it) alone. Servers
// given in code (WithInProcessServer) are kept. The names of tools of
// unchanged servers stay the same unless a new tool collides with them.
// The configuration's policy, plugins and results are those the host was
// built with (they apply when a host is built again; see
// NextStartSections). When cfg's differ, only removals are applied: an
// added or changed server would run without what cfg asks of its calls,
// so it is left as it was, with an error in Errors saying to restart. A
// cfg that asks for any of them on a host built without WithConfigStages
// is refused, as New refuses it.
func (h *Host) SetServers(ctx context.Context, cfg *config.Config) (ServersChange, error) {
	var change ServersChange
	if h.isClosed() {
		return change, ErrClosed
	}
	if cfg == nil {
		cfg = &config.Config{}
	}
	if h.opts.config == nil {
		if asked := restrictions(cfg); len(asked) > 0 {
			return change, errUnappliedConfig(asked)
		}
	}
	// Servers added or changed under a policy, plugins or results that
	// differ from the host's would run without them: they wait for a
	// restart. Removing a server is safe and goes ahead.
	var held error
	if changed := changedRestrictions(&h.asked, cfg); h.opts.config != nil && len(changed) > 0 {
		held = fmt.Errorf("host: not applied: the configuration's %s changed, which applies only when the host is built again; restart to apply it with this server",
			strings.Join(changed, ", "))
	}
	change.Errors = map[string]error{}
	want := map[string]*config.Server{}
	for _, sc := range cfg.Servers {
		if sc == nil {
			continue
		}
		if _, dup := want[sc.ID]; dup {
			change.Errors[sc.ID] = fmt.Errorf("host: server %q is configured twice", sc.ID)
			continue
		}
		want[sc.ID] = withDefaults(sc)
		switch {
		case sc.Blocked != "":
			change.Errors[sc.ID] = errors.New(sc.Blocked)
		case sc.Err != nil:
			change.Errors[sc.ID] = sc.Err
		case sc.Untrusted && sc.Enabled:
			change.Errors[sc.ID] = errors.New(sc.UntrustedHint())
		}
	}

	h.serversMu.Lock()
	if h.isClosed() {
		// Close took its snapshot already: servers added now would never
		// be closed.
		h.serversMu.Unlock()
		return ServersChange{}, ErrClosed
	}
	var stop, start []*server
	next := make([]*server, 0, len(want))
	byID := map[string]*server{}
	for _, s := range h.servers {
		sc, keep := want[s.cfg.ID]
		if s.inproc != nil && !keep {
			// Given in code: not the configuration's to remove.
			next, byID[s.cfg.ID] = append(next, s), s
			continue
		}
		switch {
		case !keep:
			change.Removed = append(change.Removed, s.cfg.ID)
			stop = append(stop, s)
		case sameServer(s.cfg, sc, s.inproc != nil):
			next, byID[s.cfg.ID] = append(next, s), s
		case held != nil:
			next, byID[s.cfg.ID] = append(next, s), s
			change.Errors[s.cfg.ID] = held
		default:
			change.Changed = append(change.Changed, s.cfg.ID)
			stop = append(stop, s)
			if s.inproc != nil {
				sc.Transport = config.TransportInProcess
			}
			ns := newServer(h, sc)
			next, byID[sc.ID] = append(next, ns), ns
			start = append(start, ns)
		}
	}
	for id, sc := range want {
		if _, ok := byID[id]; ok || slices.Contains(change.Removed, id) {
			continue
		}
		if held != nil {
			change.Errors[id] = held
			continue
		}
		change.Added = append(change.Added, id)
		ns := newServer(h, sc)
		next, byID[id] = append(next, ns), ns
		start = append(start, ns)
	}
	slices.SortFunc(next, func(a, b *server) int { return compareStrings(a.cfg.ID, b.cfg.ID) })
	h.servers, h.byID = next, byID
	started := h.started
	h.serversMu.Unlock()
	slices.Sort(change.Added)
	slices.Sort(change.Removed)
	slices.Sort(change.Changed)

	var wg sync.WaitGroup
	errs := make([]error, len(stop))
	for i, s := range stop {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.close(ctx)
		}()
	}
	wg.Wait()
	h.rebuildRegistry()
	if started {
		for _, s := range start {
			if s.startable() {
				s.startSupervisor()
			}
		}
	}
	if len(change.Errors) == 0 {
		change.Errors = nil
	}
	return change, errors.Join(errs...)
}

// sameServer reports whether a server's configuration is unchanged in what
// its connection depends on (its source file does not matter).
func sameServer(old, new *config.Server, inProcess bool) bool {
	a, b := *old, *new
	a.Source, b.Source = "", ""
	a.Scope, b.Scope = "", ""
	if inProcess {
		b.Transport = config.TransportInProcess
	}
	if (a.Err == nil) != (b.Err == nil) || (a.Err != nil && a.Err.Error() != b.Err.Error()) {
		return false
	}
	a.Err, b.Err = nil, nil
	return reflect.DeepEqual(a, b)
}

func (h *Host) isStarted() bool {
	h.serversMu.RLock()
	defer h.serversMu.RUnlock()
	return h.started
}

package host

import (
	"context"
	"sync"
)

// onListChanged re-fetches one list after a list_changed notification. It
// runs outside the notification handler, which must not block the session's
// read loop.
func (s *server) onListChanged(kind string) {
	// A flood of notifications costs one goroutine and at most one more
	// refresh of each list than the one under way: pending kinds are
	// coalesced and refreshed one at a time by a single worker.
	s.changes.mu.Lock()
	defer s.changes.mu.Unlock()
	if s.changes.pending == nil {
		s.changes.pending = map[string]bool{}
	}
	s.changes.pending[kind] = true
	if !s.changes.running {
		s.changes.running = true
		go s.refreshChanged()
	}
}

// listChanges is the state of a server's list_changed worker.
type listChanges struct {
	mu      sync.Mutex
	pending map[string]bool // lists to re-fetch
	running bool            // a worker is draining pending
}

// refreshChanged re-fetches the pending lists until none is left.
func (s *server) refreshChanged() {
	for {
		s.changes.mu.Lock()
		kind := ""
		for _, k := range []string{"tools", "resources", "prompts"} {
			if s.changes.pending[k] {
				kind = k
				break
			}
		}
		if kind == "" {
			s.changes.running = false
			s.changes.mu.Unlock()
			return
		}
		delete(s.changes.pending, kind)
		s.changes.mu.Unlock()
		s.refreshList(kind)
	}
}

func (s *server) refreshList(kind string) {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	sess, err := s.readySession()
	if err != nil {
		return
	}
	ctx, cancel := s.requestContext(context.Background(), 0)
	defer cancel()
	switch kind {
	case "tools":
		err = s.refreshTools(ctx, sess)
		if err == nil {
			s.h.rebuildRegistry()
		}
	case "resources":
		err = s.refreshResources(ctx, sess)
	case "prompts":
		err = s.refreshPrompts(ctx, sess)
	}
	if err != nil {
		if s.life.Err() != nil {
			// The server is closing or reconnecting: the list is fetched
			// again when it is back, and nothing was lost.
			s.log.Debug("list re-fetch after list_changed ended with the connection", "list", kind, "error", err)
			return
		}
		s.log.Warn("re-fetching list after list_changed failed", "list", kind, "error", err)
		return
	}
	s.log.Debug("list re-fetched after list_changed", "list", kind)
	s.h.emit(Event{Server: s.cfg.ID, Kind: kind, State: StateReady})
}

package host

import (
	"fmt"
	"time"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/pinstore"
)

// PinChange is a tool whose listing differs from what was approved.
type PinChange struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// State is PinNew or PinChanged.
	State string `json:"state"`
	// Approved is what was approved (nil for a new tool, or for a tool
	// pinned by its fingerprint alone: it was too large to keep).
	Approved *pinstore.Definition `json:"approved,omitempty"`
	// ApprovedAt is when it was approved (zero for a new tool).
	ApprovedAt time.Time `json:"approved_at,omitzero"`
	// Current is the tool as the server lists it now.
	Current pinstore.Definition `json:"current"`
	// Managed is the managed pin file that pins the tool: such a change
	// cannot be approved here.
	Managed string `json:"managed,omitempty"`
}

// Diff is a readable account of the change, escaped for a terminal.
func (c PinChange) Diff() string { return pinstore.Diff(c.Approved, c.Current) }

// PinChanges lists the tools of the server (every server when serverID
// is "") whose last listing differs from what was approved, and the new
// tools waiting for an approval (not under `new: allow`, which records
// them when they are listed), as the host holds them: ApprovePins approves exactly these definitions. It is nil without
// pinning.
func (h *Host) PinChanges(serverID string) ([]PinChange, error) {
	if h.pins == nil {
		return nil, nil
	}
	var servers []*server
	if serverID != "" {
		s, err := h.server(serverID)
		if err != nil {
			return nil, err
		}
		servers = []*server{s}
	} else {
		servers = h.list()
	}
	var out []PinChange
	for _, s := range servers {
		out = append(out, s.pinChanges()...)
	}
	return out, nil
}

func (s *server) pinChanges() []PinChange {
	s.mu.Lock()
	listed, states := s.pinListed, s.pin.states
	s.mu.Unlock()
	p := s.h.pins
	key := s.pinIdentity().Key()
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []PinChange
	for _, t := range listed {
		state := states[t.def.Name]
		// A new tool under `new: allow` was recorded when it was listed:
		// nothing is pending for it.
		if state != PinChanged && (state != PinNew || p.newTool == config.PinAllow) {
			continue
		}
		c := PinChange{Server: s.cfg.ID, Tool: t.def.Name, State: state, Current: t.def}
		var pin *pinstore.Pin
		if m, ok := p.managed[key][t.def.Name]; ok {
			pin, c.Managed = m.pin, m.file
		} else if p.file != nil && p.file.Servers[key] != nil {
			pin = p.file.Servers[key].Tools[t.def.Name]
		}
		if pin != nil {
			c.Approved, c.ApprovedAt = pin.Definition, pin.ApprovedAt
		}
		out = append(out, c)
	}
	return out
}

// ApprovePins approves the pending changes of a server's tools (one tool
// when tool is not ""): the definitions PinChanges shows are recorded in
// the pin store, and the tools are offered and callable again. It fails
// for a tool pinned by a managed pin file, and for a tool with no pending
// change. fingerprint, when not "", is the fingerprint the tool must still
// have (what a person was shown): a tool the server changed again since is
// refused. It returns what it approved.
func (h *Host) ApprovePins(server, tool, fingerprint string) ([]PinChange, error) {
	if h.pins == nil {
		return nil, fmt.Errorf("host: tool pinning is off (no pin store): there is nothing to approve")
	}
	s, err := h.server(server)
	if err != nil {
		return nil, err
	}
	h.pins.mu.Lock()
	failure := h.pins.failure()
	h.pins.mu.Unlock()
	if failure != nil {
		return nil, fmt.Errorf("host: nothing can be approved: %w", failure)
	}
	s.refreshMu.Lock()
	changes := s.pinChanges()
	var approve []PinChange
	for _, c := range changes {
		if tool == "" || c.Tool == tool {
			approve = append(approve, c)
		}
	}
	if tool != "" && len(approve) == 0 {
		s.refreshMu.Unlock()
		return nil, fmt.Errorf("host: tool %q has no change to approve (see \"mcphost tools diff %s\")", server+":"+tool, server)
	}
	for _, c := range approve {
		if fingerprint != "" {
			if fp, _ := pinstore.Fingerprint(c.Current); fp != fingerprint {
				s.refreshMu.Unlock()
				return nil, fmt.Errorf("host: tool %q is now %s, not the %s that was shown: nothing was approved; look again with \"mcphost tools diff %s\"", server+":"+c.Tool, fp, fingerprint, server+":"+c.Tool)
			}
		}
		if c.Managed != "" {
			s.refreshMu.Unlock()
			return nil, fmt.Errorf("host: tool %q is pinned by the managed pin file %s: it cannot be approved here; ask whoever manages that file", server+":"+c.Tool, c.Managed)
		}
	}
	pins := map[string]*pinstore.Pin{}
	now := time.Now()
	for _, c := range approve {
		pin, err := pinstore.NewPin(c.Current, now)
		if err != nil {
			s.refreshMu.Unlock()
			return nil, fmt.Errorf("host: approving %s:%s: %w", server, c.Tool, err)
		}
		pins[c.Tool] = pin
	}
	if len(pins) > 0 {
		h.pins.mu.Lock()
		err = h.pins.recordLocked(s.pinIdentity(), pins)
		h.pins.mu.Unlock()
		if err != nil {
			s.refreshMu.Unlock()
			return nil, fmt.Errorf("host: approving the tools of %s: %w", server, err)
		}
	}
	s.refreshMu.Unlock()
	h.reapplyPins()
	return approve, nil
}

// PinStore is the host's pin file, "" when it has none.
func (h *Host) PinStore() string {
	if h.pins == nil || h.pins.store == nil {
		return ""
	}
	return h.pins.store.Path
}

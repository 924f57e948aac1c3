package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/pinstore"
)

// Tool pinning: a server's tools as it first listed them are recorded
// (trust on first use) or approved, and a later listing that differs for a
// tool, or brings a tool the server did not have, gets the configured
// action: the tool hidden, each call confirmed, or a warning.

// Pin states of a tool (Tool.Pin, abi.PolicyRequest.Pin).
const (
	PinPinned  = string(pinstore.Pinned)
	PinNew     = string(pinstore.New)
	PinChanged = string(pinstore.Changed)
)

// ErrToolChanged is wrapped by the error of a call of a tool that pinning
// hides: it changed since it was approved, or is new and `new: hide`.
var ErrToolChanged = errors.New("tool changed since it was approved")

// hiddenToolError refuses a call of a tool pinning hides. It is a denial
// (ErrDenied) as a policy's is, for whoever counts them.
type hiddenToolError struct{ msg string }

func (e *hiddenToolError) Error() string   { return e.msg }
func (e *hiddenToolError) Unwrap() []error { return []error{ErrToolChanged, ErrDenied} }

// pinPollInterval is how often a host with a pin store checks (a stat)
// whether another process approved something.
const pinPollInterval = time.Second

// WithPinStore turns tool pinning on, with the pins kept in the JSON file
// at path (the mcphost command uses pins.json in the user's state
// directory, the gateway gateway-pins.json). The configuration's pinning
// section says what happens to changed and new tools. Without it a host
// pins only against the configuration's managed pin files, if any, and
// keeps its first-use records in memory.
func WithPinStore(path string) Option {
	return func(o *options) { o.pinStore = path }
}

// pinning is a host's pin store and what it says.
type pinning struct {
	store   *pinstore.Store // nil: managed files only, records in memory
	changed string          // config.Pin* action for changed tools
	newTool string          // config.Pin* action for new tools
	files   []string        // managed pin files

	mu      sync.Mutex
	loaded  bool
	file    *pinstore.File // the store as last read (never nil once loaded)
	stamp   pinstore.Stamp
	managed map[string]map[string]managedPin // identity key -> tool -> pin
	// storeErr: the store cannot be read or written; managedErr: a managed
	// file cannot be read. Either hides every tool.
	storeErr, managedErr error
}

type managedPin struct {
	pin  *pinstore.Pin
	file string
}

func newPinning(path string, cfg config.Pinning) *pinning {
	if path == "" && len(cfg.ManagedFiles) == 0 {
		return nil
	}
	p := &pinning{changed: cfg.ChangedAction(), newTool: cfg.NewAction(), files: slices.Clone(cfg.ManagedFiles)}
	if path != "" {
		p.store = &pinstore.Store{Path: path}
	}
	return p
}

// refreshLocked reads the managed files once, and the store at first and
// again when it changed on disk (or could not be read). It reports
// whether anything was read.
func (p *pinning) refreshLocked() bool {
	if !p.loaded {
		p.loaded = true
		// Without a store, first sightings are kept here, in memory.
		p.file = &pinstore.File{Version: pinstore.FileVersion, Servers: map[string]*pinstore.ServerPins{}}
		p.managed, p.managedErr = loadManaged(p.files)
		if p.store != nil {
			p.loadStoreLocked()
		}
		return true
	}
	if p.store == nil || (p.storeErr == nil && p.store.Stat() == p.stamp) {
		return false
	}
	p.loadStoreLocked()
	return true
}

// loadStoreLocked reads the store; p.file keeps the last good read when
// it fails (storeErr then hides every tool).
func (p *pinning) loadStoreLocked() {
	f, stamp, err := p.store.Load()
	p.stamp, p.storeErr = stamp, err
	if err == nil {
		p.file = f
	}
}

// failure is why pinning cannot decide (a managed file or the store
// cannot be read), nil when it can.
func (p *pinning) failure() error {
	if p.managedErr != nil {
		return p.managedErr
	}
	return p.storeErr
}

// loadManaged reads the managed pin files; the first file that pins a
// tool wins. A file that cannot be read is an error for good: the pins it
// holds are unknown.
func loadManaged(files []string) (map[string]map[string]managedPin, error) {
	managed := map[string]map[string]managedPin{}
	for _, f := range files {
		mf, err := pinstore.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("pinstore: managed pin file %s does not exist: every tool is hidden until it is restored (and mcphost restarted)", f)
		}
		if err != nil {
			return nil, err
		}
		for key, sp := range mf.Servers {
			if managed[key] == nil {
				managed[key] = map[string]managedPin{}
			}
			for name, pin := range sp.Tools {
				if _, first := managed[key][name]; !first {
					managed[key][name] = managedPin{pin, f}
				}
			}
		}
	}
	return managed, nil
}

// listedTool is a tool as the server sent it, with its fingerprint.
type listedTool struct {
	def pinstore.Definition
	fp  string
}

func toDefinition(t *mcp.Tool) (pinstore.Definition, error) {
	d := pinstore.Definition{Name: t.Name, Title: t.Title, Description: t.Description}
	for _, f := range []struct {
		v   any
		out *json.RawMessage
	}{{t.InputSchema, &d.InputSchema}, {t.OutputSchema, &d.OutputSchema}, {t.Annotations, &d.Annotations}} {
		if f.v == nil || f.v == (*mcp.ToolAnnotations)(nil) {
			continue
		}
		data, err := json.Marshal(f.v)
		if err != nil {
			return d, err
		}
		*f.out = data
	}
	return d, nil
}

// fingerprintTools is what pinning knows of a listing. It runs once per
// listing, never per call.
func fingerprintTools(tools []*mcp.Tool) []listedTool {
	out := make([]listedTool, 0, len(tools))
	for _, t := range tools {
		d, err := toDefinition(t)
		fp := ""
		if err == nil {
			fp, err = pinstore.Fingerprint(d)
		}
		if err != nil {
			// A tool whose fingerprint cannot be taken matches no pin:
			// it is treated as changed.
			fp = "unreadable: " + err.Error()
		}
		out = append(out, listedTool{def: d, fp: fp})
	}
	return out
}

func (s *server) pinIdentity() pinstore.Identity {
	// As written, before ${VAR} expansion: a rotated token in the
	// arguments or the URL must not make the server a new one, whose
	// first listing would be trusted again.
	w := s.cfg.Written
	if w.Command == "" && w.URL == "" {
		// A server given to the library as a struct.
		w = config.Target{Command: s.cfg.Command, Args: s.cfg.Args, URL: s.cfg.URL}
	}
	return pinstore.Identity{ID: s.cfg.ID, Transport: s.cfg.Transport, Command: w.Command, Args: w.Args, URL: w.URL}
}

// pinVerdict is what pinning decided about one server's listing.
type pinVerdict struct {
	states   map[string]string // tool -> PinPinned, PinNew, PinChanged
	hidden   map[string]string // tool -> why calls are refused
	confirm  map[string]string // tool -> why calls are confirmed
	warnings []string
}

// evaluatePins decides the pin state of each listed tool, records the
// tools of a server seen for the first time (and new tools under `new:
// allow`), and applies the actions. It never fails open: when the store
// cannot be read, every tool is hidden with the store's error.
func (s *server) evaluatePins(listed []listedTool) pinVerdict {
	p := s.h.pins
	display := func(tool string) string { return s.cfg.ID + ":" + tool }
	v := pinVerdict{states: map[string]string{}, hidden: map[string]string{}, confirm: map[string]string{}}
	id := s.pinIdentity()
	key := id.Key()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refreshLocked()
	if p.failure() == nil {
		record := map[string]*pinstore.Pin{}
		sp := p.file.Servers[key]
		mp := p.managed[key]
		now := time.Now()
		for _, t := range listed {
			name := t.def.Name
			state := PinNew
			switch {
			case mp[name].pin != nil:
				state = sameFP(mp[name].pin, t.fp)
			case sp != nil && sp.Tools[name] != nil:
				state = sameFP(sp.Tools[name], t.fp)
			case sp == nil && mp == nil:
				state = PinPinned // first sight of the server: trust on first use
			}
			v.states[name] = state
			if (state == PinPinned && (sp == nil || sp.Tools[name] == nil) && mp[name].pin == nil) || (state == PinNew && p.newTool == config.PinAllow) {
				pin, err := pinstore.NewPin(t.def, now)
				if err == nil {
					record[name] = pin
				}
			}
		}
		// A server seen for the first time is recorded even with no tools:
		// a tool it lists later is new, not trusted on first use.
		if len(record) > 0 || (sp == nil && mp == nil) {
			p.storeErr = p.recordLocked(id, record)
		}
	}
	if err := p.failure(); err != nil {
		for _, t := range listed {
			v.states[t.def.Name] = PinChanged
			v.hidden[t.def.Name] = fmt.Sprintf("tool %q is hidden: the pins cannot be checked: %v", display(t.def.Name), err)
		}
		v.warnings = append(v.warnings, fmt.Sprintf("every tool hidden: %v", err))
		return v
	}
	for _, name := range slices.Sorted(maps.Keys(v.states)) {
		state := v.states[name]
		action := ""
		switch state {
		case PinChanged:
			action = p.changed
		case PinNew:
			action = p.newTool
		default:
			continue
		}
		what := "changed since it was approved"
		if state == PinNew {
			what = "is new since the server's tools were approved"
		}
		see := fmt.Sprintf("see \"mcphost tools diff %s\", then \"mcphost tools approve %s\"", display(name), display(name))
		switch action {
		case config.PinHide:
			v.hidden[name] = fmt.Sprintf("tool %q %s (pinning: %s: %s): %s", display(name), what, state, action, see)
			v.warnings = append(v.warnings, fmt.Sprintf("tool %q hidden: it %s; %s", name, what, see))
		case config.PinConfirm:
			v.confirm[name] = fmt.Sprintf("tool %q %s: %s", display(name), what, see)
			v.warnings = append(v.warnings, fmt.Sprintf("tool %q needs a confirmation for every call: it %s; %s", name, what, see))
		case config.PinWarn:
			v.warnings = append(v.warnings, fmt.Sprintf("tool %q %s; %s", name, what, see))
		}
	}
	return v
}

func sameFP(pin *pinstore.Pin, fp string) string {
	if pin.Fingerprint == fp {
		return PinPinned
	}
	return PinChanged
}

// recordLocked writes pins for a server, to the store or, without one, to
// memory.
func (p *pinning) recordLocked(id pinstore.Identity, pins map[string]*pinstore.Pin) error {
	if p.store == nil {
		return p.file.Set(id, pins)
	}
	if err := p.store.Update(func(f *pinstore.File) error { return f.Set(id, pins) }); err != nil {
		return err
	}
	p.loadStoreLocked()
	return p.storeErr
}

// applyPins evaluates the server's last listing and keeps the verdict,
// auditing each tool that became new or changed.
func (s *server) applyPins(listed []listedTool) {
	v := s.evaluatePins(listed)
	s.mu.Lock()
	before := s.pin.states
	s.pin = v
	s.pinListed = listed
	s.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(v.states)) {
		state := v.states[name]
		if state == PinPinned || before[name] == state {
			continue
		}
		action := s.h.pins.changed
		if state == PinNew {
			action = s.h.pins.newTool
		}
		reason := v.hidden[name]
		if reason == "" {
			reason = "pinning: " + state + ": " + action
		}
		// An audit event, and so a metric of the gateway's stage decisions.
		s.h.audit(AuditEvent{Stage: "pinning", Hook: "tools/list", Server: s.cfg.ID, Tool: name, Outcome: state, Reason: reason})
		// warn lets the tool through: the log says so loudly. A hidden
		// or confirmed tool says it at each call, and in the warnings.
		if action == config.PinWarn {
			s.log.Warn("tool changed since it was approved, and is let through (pinning: warn)", "tool", name, "state", state)
		} else {
			s.log.Info("tool pin", "tool", name, "state", state, "action", action)
		}
	}
}

// pinsOf is the pin state of a server's tool, and why its calls are
// refused or confirmed ("" when they are not).
func (s *server) pinsOf(tool string) (state, hidden, confirm string) {
	return s.pin.states[tool], s.pin.hidden[tool], s.pin.confirm[tool]
}

// watchPins re-reads the pin store when another process changed it (an
// approval by "mcphost tools approve"), so that a long-running host (the
// gateway) offers an approved tool again, or hides one whose pin changed.
func (h *Host) watchPins() {
	if h.pins == nil || h.pins.store == nil {
		return
	}
	t := time.NewTicker(pinPollInterval)
	defer t.Stop()
	for {
		select {
		case <-h.closed:
			return
		case <-t.C:
			h.pins.mu.Lock()
			changed := h.pins.refreshLocked()
			h.pins.mu.Unlock()
			if changed {
				h.reapplyPins()
			}
		}
	}
}

// reapplyPins evaluates every server's last listing again and tells the
// host's users about the servers whose tools changed state.
func (h *Host) reapplyPins() {
	changed := false
	for _, s := range h.list() {
		s.refreshMu.Lock()
		s.mu.Lock()
		listed, before := s.pinListed, s.pin
		s.mu.Unlock()
		if listed == nil {
			s.refreshMu.Unlock()
			continue
		}
		s.applyPins(listed)
		s.mu.Lock()
		after := s.pin
		s.mu.Unlock()
		s.refreshMu.Unlock()
		if !maps.Equal(before.states, after.states) || !maps.Equal(before.hidden, after.hidden) || !maps.Equal(before.confirm, after.confirm) {
			changed = true
			defer h.emit(Event{Server: s.cfg.ID, Kind: "tools", State: StateReady})
		}
	}
	if changed {
		h.rebuildRegistry()
	}
}

package config

import (
	"fmt"
	"slices"
)

// Pinning says what happens to a tool that differs from the one a person
// approved (see internal/pinstore): a changed tool, or a tool its server did
// not have when it was pinned. Layers can only tighten it from a project
// file: changed warn < confirm < hide, new allow < confirm < hide.
type Pinning struct {
	// Changed is PinHide (default), PinConfirm or PinWarn.
	Changed string
	// New is PinAllow (default), PinConfirm or PinHide.
	New string
	// ManagedFiles are read-only pin files whose pins win over the user's
	// store: a tool that differs from one of them is changed, and cannot be
	// approved. The managed layer fills it.
	ManagedFiles []string
}

// ManagedPinsFile is the file of pins an administrator ships in the
// managed directory: the user's store's format (a copy of a reference
// machine's, after "mcphost tools approve").
const ManagedPinsFile = "pins.json"

// Pinning actions, as written in config files.
const (
	PinHide    = "hide"
	PinConfirm = "confirm"
	PinWarn    = "warn"
	PinAllow   = "allow"
)

var (
	pinningFields  = []string{"changed", "new"}
	changedActions = []string{PinWarn, PinConfirm, PinHide} // weakest first
	newActions     = []string{PinAllow, PinConfirm, PinHide}
)

// ChangedAction is Changed with its default.
func (p Pinning) ChangedAction() string {
	if p.Changed == "" {
		return PinHide
	}
	return p.Changed
}

// NewAction is New with its default.
func (p Pinning) NewAction() string {
	if p.New == "" {
		return PinAllow
	}
	return p.New
}

// applyPinning merges one layer's pinning section into p.
func applyPinning(p *Pinning, l *layer, h held, warn func(string, ...any)) error {
	if l.pinning == nil || l.untrusted {
		return nil
	}
	var errs []error
	for _, k := range sortedKeys(l.pinning) {
		v := l.pinning[k]
		var (
			actions []string
			cur     *string
			def     string
		)
		switch k {
		case "changed":
			actions, cur, def = changedActions, &p.Changed, PinHide
		case "new":
			actions, cur, def = newActions, &p.New, PinAllow
		default:
			errs = append(errs, fmt.Errorf("config: %s: pinning: unknown field %q%s", l.source, k, suggest(k, pinningFields)))
			continue
		}
		s, ok := v.(string)
		if !ok || !slices.Contains(actions, s) {
			errs = append(errs, fmt.Errorf("config: %s: pinning.%s: %s is not one of %v", l.source, k, quoteValue(v), actions))
			continue
		}
		effective := *cur
		if effective == "" {
			effective = def
		}
		weaker := slices.Index(actions, s) < slices.Index(actions, effective)
		if l.fromProject() && weaker {
			warn("config: %s: pinning.%s: %s is ignored: a project file can make pinning stricter, not weaker (set it in your user or local file)", l.source, k, s)
			continue
		}
		if floor, held := h.pinning[k]; held && l.kind != kindManaged && slices.Index(actions, s) < slices.Index(actions, floor) {
			warn("config: %s: pinning.%s: %s is ignored: the administrator's managed configuration sets it (%s); other files can make it stricter, not weaker", l.source, k, s, h.pinningFile)
			continue
		}
		*cur = s
	}
	if len(errs) == 0 {
		return nil
	}
	return joinErrors(errs)
}

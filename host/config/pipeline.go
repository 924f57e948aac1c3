package config

import (
	"cmp"
	"fmt"

	"github.com/mcphost/mcphost/pdk/glob"
)

// Policy configures the built-in policy stages, which run before any policy
// plugin. Layers can only tighten it: deny globs from every layer apply,
// confirm_destructive once set stays set, the allow list is the highest of
// the user's own layers' (global file, --config, environment, flags), and a
// project file's allow list narrows it further (AllowAlso). A project file
// cannot exempt tools from confirmation. Untrusted project files do not
// contribute.
type Policy struct {
	// Allow: when not empty, only tools matching one of these globs (public
	// name or server:tool) may be called.
	Allow []string
	// AllowAlso holds the allow lists of project files: a call must match
	// each of them as well as Allow.
	AllowAlso [][]string
	// Deny: tools matching any of these globs may not be called.
	Deny []string
	// ConfirmDestructive asks for a confirmation before tools annotated
	// destructive.
	ConfirmDestructive bool
	// AssumeDestructive counts tools without annotations as destructive, as
	// the MCP specification's defaults say.
	AssumeDestructive bool
	// ConfirmExcept lists globs that never need a confirmation.
	ConfirmExcept []string
}

// Results configures the built-in result truncation, which runs after every
// transform plugin (so the full result it keeps is already redacted).
type Results struct {
	// MaxBytes bounds the JSON of a result, all of it (builtin.Truncate);
	// 0 turns truncation off.
	MaxBytes int
	// StoreBytes bounds the store of full results (0: 64 MiB).
	StoreBytes int
}

// defaultStoreBytes mirrors builtin.DefaultResultStoreBytes (config does
// not import the host's packages).
const defaultStoreBytes = 64 << 20

var (
	policyFields  = []string{"allow", "deny", "confirm_destructive", "assume_destructive", "confirm_except"}
	resultsFields = []string{"max_bytes", "store_bytes"}
)

// applyPolicy merges one layer's policy section into p.
func applyPolicy(p *Policy, l *layer, h held, warn func(string, ...any)) error {
	if l.policy == nil || l.untrusted {
		return nil
	}
	var errs []error
	globs := func(k string, v any) []string {
		list, ok := asStringList(v)
		if !ok {
			errs = append(errs, fmt.Errorf("config: %s: policy.%s: must be a list of globs", l.source, k))
			return nil
		}
		for _, g := range list {
			if err := glob.Valid(g); err != nil {
				errs = append(errs, fmt.Errorf("config: %s: policy.%s: %w", l.source, k, err))
				return nil
			}
		}
		return list
	}
	flag := func(k string, v any) bool {
		b, ok := v.(bool)
		if !ok {
			errs = append(errs, fmt.Errorf("config: %s: policy.%s: must be true or false", l.source, k))
		}
		return b
	}
	for _, k := range sortedKeys(l.policy) {
		v := l.policy[k]
		switch k {
		case "allow":
			// The managed layer's list holds whatever the user's says.
			if l.fromProject() || l.kind == kindManaged {
				if list := globs(k, v); len(list) > 0 {
					p.AllowAlso = append(p.AllowAlso, list)
				}
				continue
			}
			p.Allow = globs(k, v)
		case "deny":
			p.Deny = append(p.Deny, globs(k, v)...)
		case "confirm_destructive":
			p.ConfirmDestructive = p.ConfirmDestructive || flag(k, v)
		case "assume_destructive":
			p.AssumeDestructive = p.AssumeDestructive || flag(k, v)
		case "confirm_except":
			list := globs(k, v)
			if l.fromProject() {
				if len(list) > 0 {
					warn("config: %s: policy.confirm_except is ignored: a project file can ask for more confirmations, not fewer (set it in your user or local file)", l.source)
				}
				continue
			}
			if h.confirm && l.kind != kindManaged {
				if len(list) > 0 {
					warn("config: %s: policy.confirm_except is ignored: the administrator's managed configuration sets the confirmations (%s)", l.source, h.policyFile)
				}
				continue
			}
			p.ConfirmExcept = list
		default:
			errs = append(errs, fmt.Errorf("config: %s: policy: unknown field %q%s", l.source, k, suggest(k, policyFields)))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return joinErrors(errs)
}

// applyResults merges one layer's results section into r.
func applyResults(r *Results, l *layer, h held, warn func(string, ...any)) error {
	if l.results == nil || l.untrusted {
		return nil
	}
	var errs []error
	for _, k := range sortedKeys(l.results) {
		v := l.results[k]
		i, ok := asInt(v)
		if !ok || i < 0 {
			errs = append(errs, fmt.Errorf("config: %s: results.%s: %s must be a whole number of bytes, 0 or more", l.source, k, quoteValue(v)))
			continue
		}
		// A project file may only lower the limits (0 means no cap), and
		// so may every layer above a managed limit.
		lowerOnly := l.fromProject() || (l.kind != kindManaged && h.results[k])
		why := func(what string) string {
			if l.fromProject() {
				return "a project file can " + what
			}
			return "the administrator's managed configuration sets it (" + h.resultsFile + "); other files can " + what
		}
		lowers := func(cur int) bool { return !lowerOnly || (i > 0 && (cur == 0 || int(i) <= cur)) }
		switch k {
		case "max_bytes":
			if !lowers(r.MaxBytes) {
				warn("config: %s: results.max_bytes is ignored: %s", l.source, why("lower the cap, not raise or remove it"))
				continue
			}
			r.MaxBytes = int(i)
		case "store_bytes":
			// 0 is the default store (64 MiB), not an unlimited one.
			if cur := r.StoreBytes; lowerOnly && (i == 0 || int(i) > cmp.Or(cur, defaultStoreBytes)) {
				warn("config: %s: results.store_bytes is ignored: %s", l.source, why("lower it, not raise it"))
				continue
			}
			r.StoreBytes = int(i)
		default:
			errs = append(errs, fmt.Errorf("config: %s: results: unknown field %q%s", l.source, k, suggest(k, resultsFields)))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return joinErrors(errs)
}

func asStringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case []string:
		return x, true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// held says which settings the managed layer set, so that the layers
// above it may only tighten them.
type held struct {
	confirm     bool // confirm_destructive, assume_destructive or confirm_except
	policyFile  string
	results     map[string]bool
	resultsFile string
	pinning     map[string]string // the managed value of each key it sets
	pinningFile string
}

func heldBy(layers []*layer) held {
	h := held{results: map[string]bool{}, pinning: map[string]string{}}
	for _, l := range layers {
		if l.kind != kindManaged {
			continue
		}
		for _, k := range []string{"confirm_destructive", "assume_destructive", "confirm_except"} {
			if _, ok := l.policy[k]; ok {
				h.confirm, h.policyFile = true, l.source
			}
		}
		for k := range l.results {
			h.results[k], h.resultsFile = true, l.source
		}
		for k, v := range l.pinning {
			s, _ := v.(string)
			h.pinning[k], h.pinningFile = s, l.source
		}
	}
	return h
}

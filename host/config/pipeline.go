package config

import (
	"fmt"
	"github.com/mcphost/mcphost/pdk/glob"
)

// Policy configures the built-in policy stages, which run before any policy
// plugin. Layers can only tighten it: deny globs from every layer apply,
// confirm_destructive once set stays set, and the allow list is the highest
// layer's. Untrusted project files do not contribute.
type Policy struct {
	// Allow: when not empty, only tools matching one of these globs (public
	// name or server:tool) may be called.
	Allow []string
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
	// MaxBytes caps the text of a result; 0 turns truncation off.
	MaxBytes int
	// StoreBytes bounds the store of full results (0: 64 MiB).
	StoreBytes int
}

var (
	policyFields  = []string{"allow", "deny", "confirm_destructive", "assume_destructive", "confirm_except"}
	resultsFields = []string{"max_bytes", "store_bytes"}
)

// applyPolicy merges one layer's policy section into p.
func applyPolicy(p *Policy, l *layer) error {
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
			p.Allow = globs(k, v)
		case "deny":
			p.Deny = append(p.Deny, globs(k, v)...)
		case "confirm_destructive":
			p.ConfirmDestructive = p.ConfirmDestructive || flag(k, v)
		case "assume_destructive":
			p.AssumeDestructive = p.AssumeDestructive || flag(k, v)
		case "confirm_except":
			p.ConfirmExcept = globs(k, v)
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
func applyResults(r *Results, l *layer) error {
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
		switch k {
		case "max_bytes":
			r.MaxBytes = int(i)
		case "store_bytes":
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

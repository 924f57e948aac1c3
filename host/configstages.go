package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/host/config"
)

// ConfigStages carry out what a configuration asks of every call: its
// built-in policy, its plugins and its result truncation, as stages in
// chain order. Package host/chain builds them from a configuration
// (chain.NewHost does all of it); host.New refuses a configuration that
// asks for any of those without them, so that no program gets a running
// host that skips its configuration's policies.
type ConfigStages struct {
	// Stages run first, in this order; stages given with WithStages
	// follow them.
	Stages []StageConfig
	// Results keeps the full results of truncated calls (nil: none).
	Results *builtin.ResultStore
	// Close, if set, is called once when the Host closes (releasing the
	// plugins).
	Close func(context.Context) error
}

// WithConfigStages installs the stages that carry out the configuration's
// policy, plugins and results (see ConfigStages and host/chain). Without
// it, New refuses a configuration that asks for any of them.
func WithConfigStages(cs ConfigStages) Option {
	return func(o *options) { o.config = &cs }
}

// restrictions names the settings of cfg that restrict or rewrite calls
// and that New does not carry out by itself: they need ConfigStages. The
// servers' own tool filters are not among them (the host applies those).
func restrictions(cfg *config.Config) []string {
	var out []string
	p := cfg.Policy
	if len(p.Allow) > 0 || len(p.AllowAlso) > 0 {
		out = append(out, "policy.allow")
	}
	if len(p.Deny) > 0 {
		out = append(out, "policy.deny")
	}
	if p.ConfirmDestructive {
		out = append(out, "policy.confirm_destructive")
	}
	if cfg.Results.MaxBytes > 0 {
		out = append(out, "results.max_bytes")
	}
	// Every entry counts, an untrusted one too (chain leaves it out of
	// the chain and says so): failing closed, with the count of those.
	untrusted := 0
	for _, p := range cfg.Plugins {
		if p != nil && p.Untrusted {
			untrusted++
		}
	}
	if n := len(cfg.Plugins); n > 0 {
		what := "1 plugin"
		if n > 1 {
			what = fmt.Sprintf("%d plugins", n)
		}
		if untrusted > 0 {
			what += fmt.Sprintf(" (%d from an untrusted project)", untrusted)
		}
		out = append(out, what)
	}
	return out
}

// errUnappliedConfig says why New (or SetServers) refused cfg and what to
// use instead.
func errUnappliedConfig(asked []string) error {
	return fmt.Errorf("host: the configuration asks for %s, which a host built without them (host.New) does not carry out: "+
		"build the host with chain.NewHost(ctx, cfg, chain.Options{}) (package github.com/mcphost/mcphost/host/chain), "+
		"which applies the built-in policy, the plugins and the result truncation", strings.Join(asked, ", "))
}

// Package chain puts the Wasm plugins into the host as stages and builds
// the whole stage chain a configuration asks for: the built-in policies
// (host/builtin), the plugins in configuration order (package plugins),
// then the built-in truncation.
//
// It is the one place that knows both sides: the plugin runtime (package
// plugins) reads only its own plugins.Spec and knows nothing of
// configuration files or of host; this package turns config.Plugin entries
// into specs and loaded plugins into host.StageConfig values.
//
// NewHost is the constructor of a host from a configuration: it loads the
// plugins, builds the chain and the host, and the host's Close releases the
// plugins. host.New alone refuses a configuration with policies, plugins or
// result truncation, so that none of them can be skipped by mistake.
//
//	cfg, err := config.Load(config.LoadOptions{})
//	h, err := chain.NewHost(ctx, cfg, chain.Options{}, host.WithLogger(logger))
//	err = h.Start(ctx)
//	defer h.Close(context.Background())
//
// Programs that manage the plugins' lifetime themselves (mcphost's command
// reports on each plugin) use New and HostOptions instead.
package chain

import (
	"context"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/plugins"
)

// A loaded plugin serves every hook interface of the host; which of them
// the chain uses is its Hooks().
var (
	_ host.PolicyStage    = (*plugins.Plugin)(nil)
	_ host.FilterStage    = (*plugins.Plugin)(nil)
	_ host.NameStage      = (*plugins.Plugin)(nil)
	_ host.TransformStage = (*plugins.Plugin)(nil)
	_ host.AuthStage      = (*plugins.Plugin)(nil)
)

// Options configure New.
type Options struct {
	// Plugins are the runtime options the plugins load with.
	Plugins plugins.Options
	// ResultsDir, if set, keeps the full results of truncated calls as
	// files there (builtin.NewDiskResultStore), readable from the next
	// process; "" keeps them in memory.
	ResultsDir string
}

// Chain is the whole stage chain a configuration asks for: the built-in
// policies, the plugins in config order, then the built-in truncation (last,
// so the full result it keeps has already been redacted by any plugin).
type Chain struct {
	Set     *plugins.Set
	Results *builtin.ResultStore
	stages  []host.StageConfig
}

// New loads cfg's plugins and builds the chain. Like plugins.Load, a plugin
// that fails does not stop the others (see plugins.Set.Status). Close it
// when done.
func New(ctx context.Context, cfg *config.Config, opts Options) (*Chain, error) {
	set, err := plugins.Load(ctx, Specs(cfg.Plugins), opts.Plugins)
	if err != nil {
		return nil, err
	}
	c := &Chain{Set: set, Results: builtin.NewResultStore(cfg.Results.StoreBytes)}
	if opts.ResultsDir != "" {
		if store, err := builtin.NewDiskResultStore(opts.ResultsDir, cfg.Results.StoreBytes, 0); err != nil {
			if opts.Plugins.Logger != nil {
				opts.Plugins.Logger.Warn("full results are kept in memory only", "error", err)
			}
		} else {
			c.Results = store
		}
	}
	pol := cfg.Policy
	if len(pol.Allow) > 0 || len(pol.Deny) > 0 {
		c.stages = append(c.stages, host.StageConfig{Stage: builtin.GlobPolicy{Allow: pol.Allow, Deny: pol.Deny}})
	}
	// A project's allow list narrows the user's: a call must match each.
	for _, allow := range pol.AllowAlso {
		c.stages = append(c.stages, host.StageConfig{Stage: builtin.GlobPolicy{Allow: allow}})
	}
	if pol.ConfirmDestructive {
		c.stages = append(c.stages, host.StageConfig{Stage: builtin.ConfirmDestructive{AssumeDestructive: pol.AssumeDestructive, Except: pol.ConfirmExcept}})
	}
	c.stages = append(c.stages, Stages(set)...)
	if cfg.Results.MaxBytes > 0 {
		c.stages = append(c.stages, host.StageConfig{Stage: builtin.Truncate{MaxBytes: cfg.Results.MaxBytes, Store: c.Results}})
	}
	return c, nil
}

// HostOptions installs the chain and the result store in a host, as the
// configuration's stages (host.WithConfigStages). The host does not close
// the chain: Close it after the host.
func (c *Chain) HostOptions() []host.Option {
	return []host.Option{host.WithConfigStages(host.ConfigStages{Stages: c.stages, Results: c.Results})}
}

// NewHost builds a host that carries out everything cfg asks of calls: the
// built-in policy, the plugins in configuration order and the result
// truncation (see New), then opts. The host's Close releases the plugins.
// A plugin that fails to load does not fail NewHost: it stays in the chain
// as a stage that fails every call, and its on_error decides (deny by
// default); it is logged to o.Plugins.Logger. To show each plugin's state,
// use New, Chain.Set.Status and HostOptions instead.
func NewHost(ctx context.Context, cfg *config.Config, o Options, opts ...host.Option) (*host.Host, error) {
	c, err := New(ctx, cfg, o)
	if err != nil {
		return nil, err
	}
	cs := host.ConfigStages{Stages: c.stages, Results: c.Results, Close: c.Close}
	h, err := host.New(cfg, append([]host.Option{host.WithConfigStages(cs)}, opts...)...)
	if err != nil {
		c.Close(context.Background())
		return nil, err
	}
	return h, nil
}

// Close releases the plugins.
func (c *Chain) Close(ctx context.Context) error { return c.Set.Close(ctx) }

// Stages returns the stages of set's plugins, in chain order, with the
// hooks, servers, mode and on_error of their specs. A plugin that failed
// to load is included (see plugins.Plugin.Hooks); untrusted ones are not
// in the Set.
func Stages(set *plugins.Set) []host.StageConfig {
	ps := set.Plugins()
	out := make([]host.StageConfig, 0, len(ps))
	for _, p := range ps {
		out = append(out, Stage(p))
	}
	return out
}

// Stage is how one plugin goes into the chain.
func Stage(p *plugins.Plugin) host.StageConfig {
	spec := p.Spec()
	mode := host.ModeEnforce
	if spec.Mode == plugins.ModeShadow {
		mode = host.ModeShadow
	}
	return host.StageConfig{
		Stage:   p,
		Hooks:   p.Hooks(),
		Servers: append([]string(nil), spec.Servers...),
		Mode:    mode,
		OnError: spec.OnError,
	}
}

package plugins

import (
	"context"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/host/config"
)

// Pipeline is the whole stage chain a configuration asks for: the built-in
// policies, the plugins in config order, then the built-in truncation (last,
// so the full result it keeps has already been redacted by any plugin).
type Pipeline struct {
	Set     *Set
	Results *builtin.ResultStore
	stages  []host.StageConfig
}

// NewPipeline loads cfg's plugins and builds the chain. Like Load, a plugin
// that fails does not stop the others (see Set.Status). Close it when done.
func NewPipeline(ctx context.Context, cfg *config.Config, opts Options) (*Pipeline, error) {
	set, err := Load(ctx, cfg.Plugins, opts)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{Set: set, Results: builtin.NewResultStore(cfg.Results.StoreBytes)}
	if opts.ResultsDir != "" {
		if store, err := builtin.NewDiskResultStore(opts.ResultsDir, cfg.Results.StoreBytes, 0); err != nil {
			opts.logger().Warn("full results are kept in memory only", "error", err)
		} else {
			p.Results = store
		}
	}
	pol := cfg.Policy
	if len(pol.Allow) > 0 || len(pol.Deny) > 0 {
		p.stages = append(p.stages, host.StageConfig{Stage: builtin.GlobPolicy{Allow: pol.Allow, Deny: pol.Deny}})
	}
	// A project's allow list narrows the user's: a call must match each.
	for _, allow := range pol.AllowAlso {
		p.stages = append(p.stages, host.StageConfig{Stage: builtin.GlobPolicy{Allow: allow}})
	}
	if pol.ConfirmDestructive {
		p.stages = append(p.stages, host.StageConfig{Stage: builtin.ConfirmDestructive{AssumeDestructive: pol.AssumeDestructive, Except: pol.ConfirmExcept}})
	}
	p.stages = append(p.stages, set.Stages()...)
	if cfg.Results.MaxBytes > 0 {
		p.stages = append(p.stages, host.StageConfig{Stage: builtin.Truncate{MaxBytes: cfg.Results.MaxBytes, Store: p.Results}})
	}
	return p, nil
}

// HostOptions installs the chain and the result store in a host.
func (p *Pipeline) HostOptions() []host.Option {
	return []host.Option{host.WithStages(p.stages...), host.WithResultStore(p.Results)}
}

// Close releases the plugins.
func (p *Pipeline) Close(ctx context.Context) error { return p.Set.Close(ctx) }

package chain

import (
	"maps"
	"slices"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/plugins"
)

// Spec is the runtime's spec of a configured plugin: the same fields, with
// the same meaning. The mode and on_error values of host/config and of
// plugins are the same strings (TestValuesAgree).
func Spec(p *config.Plugin) *plugins.Spec {
	if p == nil {
		return nil
	}
	return &plugins.Spec{
		Name:    p.Name,
		Path:    p.Path,
		SHA256:  p.SHA256,
		Hooks:   slices.Clone(p.Hooks),
		Servers: slices.Clone(p.Servers),
		Config:  maps.Clone(p.Config),
		Limits: plugins.Limits{
			Timeout:        p.Limits.Timeout,
			MemoryMB:       p.Limits.MemoryMB,
			MaxOutputBytes: p.Limits.MaxOutputBytes,
		},
		Secrets:      plugins.Secrets(maps.Clone(p.Secrets)),
		AllowedHosts: slices.Clone(p.AllowedHosts),
		AllowPrivate: p.AllowPrivate,
		OnError:      p.OnError,
		Mode:         p.Mode,
		Source:       p.Source,
		Untrusted:    p.Untrusted,
		Blocked:      p.Blocked,
		Err:          p.Err,
	}
}

// Specs converts a configuration's plugin list (Config.Plugins), keeping
// its order and its nil entries.
func Specs(ps []*config.Plugin) []*plugins.Spec {
	out := make([]*plugins.Spec, len(ps))
	for i, p := range ps {
		out[i] = Spec(p)
	}
	return out
}

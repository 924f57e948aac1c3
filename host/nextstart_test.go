package host_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
)

// The sections SetServers does not apply are named when they change, and
// only then; servers are not among them.
func TestNextStartSections(t *testing.T) {
	base := func() *config.Config {
		return &config.Config{
			Servers: []*config.Server{{ID: "a"}},
			Names:   config.Names{Scheme: config.SchemePrefixed, MaxLength: 64},
			Policy:  config.Policy{Deny: []string{"*delete*"}},
			Results: config.Results{MaxBytes: 1000},
			Plugins: []*config.Plugin{{Name: "p", Err: errors.New("broken")}},
		}
	}
	for _, c := range []struct {
		what   string
		change func(*config.Config)
		want   []string
	}{
		{"nothing", func(*config.Config) {}, nil},
		{"servers only", func(c *config.Config) { c.Servers = append(c.Servers, &config.Server{ID: "b"}) }, nil},
		{"the same plugin error", func(c *config.Config) { c.Plugins[0].Err = errors.New("broken") }, nil},
		{"another plugin error", func(c *config.Config) { c.Plugins[0].Err = errors.New("other") }, []string{"plugins"}},
		{"a plugin fixed", func(c *config.Config) { c.Plugins[0].Err = nil }, []string{"plugins"}},
		{"a plugin added", func(c *config.Config) { c.Plugins = append(c.Plugins, &config.Plugin{Name: "q"}) }, []string{"plugins"}},
		{"a plugin renamed", func(c *config.Config) { c.Plugins[0].Name = "r" }, []string{"plugins"}},
		{"a nil plugin", func(c *config.Config) { c.Plugins[0] = nil }, []string{"plugins"}},
		{"policy", func(c *config.Config) { c.Policy.Deny = nil }, []string{"policy"}},
		{"results", func(c *config.Config) { c.Results.MaxBytes = 0 }, []string{"results"}},
		{"names", func(c *config.Config) { c.Names.Scheme = config.SchemeBare }, []string{"names"}},
		{"all of them, in order", func(c *config.Config) {
			c.Names.MaxLength = 40
			c.Results.StoreBytes = 1
			c.Policy.ConfirmDestructive = true
			c.Plugins = nil
		}, []string{"plugins", "policy", "results", "names"}},
	} {
		cfg := base()
		c.change(cfg)
		if got := host.NextStartSections(base(), cfg); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.what, got, c.want)
		}
	}
}

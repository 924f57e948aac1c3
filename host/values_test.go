package host_test

import (
	"testing"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/naming"
)

// host/config and host/naming are siblings that may not import each other,
// so the naming schemes and the name length limits are written in both:
// the configuration checks them, the mapper applies them, and host passes
// one to the other. They must agree.
func TestNamingValuesAgree(t *testing.T) {
	for _, v := range []struct {
		what         string
		config, name any
	}{
		{"scheme mcp", config.SchemePrefixed, naming.SchemePrefixed},
		{"scheme server", config.SchemeServer, naming.SchemeServer},
		{"scheme tool", config.SchemeBare, naming.SchemeBare},
		{"default max length", config.DefaultMaxNameLength, naming.DefaultMaxLength},
		{"smallest max length", config.MinNameLength, naming.MinMaxLength},
		{"largest max length", config.MaxNameLength, naming.MaxMaxLength},
	} {
		if v.config != v.name {
			t.Errorf("%s: host/config says %v, host/naming %v", v.what, v.config, v.name)
		}
	}
}

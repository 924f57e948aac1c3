package host

import (
	"reflect"

	"github.com/mcphost/mcphost/host/config"
)

// NextStartSections names the sections of cfg that differ from those of
// running, the configuration the host was made with, and that SetServers
// does not apply: the plugin chain, the policy and results stages and the
// name mapper are built when the host starts. They are named, in this
// order, "plugins", "policy", "results" and "names"; nil when none
// differs.
func NextStartSections(running, cfg *config.Config) []string {
	var out []string
	if !samePlugins(running.Plugins, cfg.Plugins) {
		out = append(out, "plugins")
	}
	if !reflect.DeepEqual(running.Policy, cfg.Policy) {
		out = append(out, "policy")
	}
	if running.Results != cfg.Results {
		out = append(out, "results")
	}
	if running.Names != cfg.Names {
		out = append(out, "names")
	}
	return out
}

// changedRestrictions is NextStartSections without "names": the sections
// of cfg that restrict or rewrite calls and differ from running's.
func changedRestrictions(running, cfg *config.Config) []string {
	var out []string
	for _, s := range NextStartSections(running, cfg) {
		if s != "names" {
			out = append(out, s)
		}
	}
	return out
}

// samePlugins compares plugin entries, their errors by message.
func samePlugins(a, b []*config.Plugin) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if (a[i] == nil) != (b[i] == nil) {
			return false
		}
		if a[i] == nil {
			continue
		}
		x, y := *a[i], *b[i]
		if (x.Err == nil) != (y.Err == nil) || (x.Err != nil && x.Err.Error() != y.Err.Error()) {
			return false
		}
		x.Err, y.Err = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

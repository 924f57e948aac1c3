package builtin_test

import (
	"testing"

	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins/plugintest"
)

// Every built-in stage passes the same conformance kit as plugins.
func TestBuiltinStagesConform(t *testing.T) {
	t.Run("glob-policy", func(t *testing.T) {
		plugintest.Run(t, builtin.GlobPolicy{Allow: []string{"*"}, Deny: []string{"*delete*"}}, abi.HookPolicy)
	})
	t.Run("confirm-destructive", func(t *testing.T) {
		plugintest.Run(t, builtin.ConfirmDestructive{AssumeDestructive: true}, abi.HookPolicy)
	})
	t.Run("truncate", func(t *testing.T) {
		plugintest.Run(t, builtin.Truncate{MaxBytes: 16}, abi.HookTransformResult)
	})
	t.Run("truncate-with-store", func(t *testing.T) {
		// Each stored result gets a fresh id: the marker differs every time.
		plugintest.RunWith(t, builtin.Truncate{MaxBytes: 16, Store: builtin.NewResultStore(0)},
			plugintest.Options{Hooks: []abi.Hook{abi.HookTransformResult}, NonDeterministic: true})
	})
}

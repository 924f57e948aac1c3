// Package plugintest is the conformance kit of the plugin ABI: a table of
// checks, per hook, that any stage must pass, whether it is a WebAssembly
// plugin (package plugins) or a native Go stage of the host. Every example
// plugin and every built-in stage runs it:
//
//	p, err := plugins.Open(ctx, plugins.SpecForFile("deny-destructive.wasm"), plugins.Options{})
//	...
//	plugintest.Run(t, p)                      // every hook p implements
//	plugintest.Run(t, builtin.Truncate{MaxBytes: 4096}, abi.HookTransformResult)
//
// The checks are about the contract, not about what a stage decides: a
// policy may allow or deny anything, but it must answer allow, deny or
// confirm, leave the request as it was, answer the same way twice, and keep
// doing so under concurrent calls.
//
// It imports only the ABI, where the stage interfaces it checks are defined
// (host.PolicyStage and the others are the same types), so that it can be
// used from any package's tests (package plugins included).
package plugintest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The kit's entry points: which hooks a stage serves, and running the checks.

// Options tune a run. The zero value is the standard run.
type Options struct {
	// Hooks to check; empty means every hook interface the stage implements.
	Hooks []abi.Hook
	// Concurrency is the number of parallel calls of the concurrency check
	// (default 16); negative skips it.
	Concurrency int
	// Timeout bounds each call (default 10 s): a stage that blocks fails.
	Timeout time.Duration
	// NonDeterministic skips the "same answer twice" checks, for a stage
	// that legitimately varies (one that fetches fresh tokens, say).
	NonDeterministic bool
}

// Violation is one failed check.
type Violation struct {
	Hook abi.Hook
	Case string
	Msg  string
}

func (v Violation) Error() string {
	return fmt.Sprintf("%s: %s: %s", v.Hook, v.Case, v.Msg)
}

// HookLister is implemented by a stage that implements more hook
// interfaces than it serves (a *plugins.Plugin implements all five; the
// plugin's describe says which it has).
type HookLister interface {
	Hooks() []abi.Hook
}

// Hooks lists the hooks stage serves, in pipeline order: its Hooks() if it
// is a HookLister, else every hook interface it implements.
func Hooks(stage abi.Stage) []abi.Hook {
	if l, ok := stage.(HookLister); ok {
		var out []abi.Hook
		for _, h := range abi.Hooks {
			for _, k := range l.Hooks() {
				if k == h && implements(stage, h) {
					out = append(out, h)
				}
			}
		}
		return out
	}
	var out []abi.Hook
	for _, h := range abi.Hooks {
		if implements(stage, h) {
			out = append(out, h)
		}
	}
	return out
}

func implements(stage abi.Stage, h abi.Hook) bool {
	var ok bool
	switch h {
	case abi.HookPolicy:
		_, ok = stage.(abi.PolicyStage)
	case abi.HookFilterTools:
		_, ok = stage.(abi.FilterStage)
	case abi.HookMapNames:
		_, ok = stage.(abi.NameStage)
	case abi.HookTransformResult:
		_, ok = stage.(abi.TransformStage)
	case abi.HookAuth:
		_, ok = stage.(abi.AuthStage)
	}
	return ok
}

// Run runs the checks for hooks (default: every hook the stage implements)
// as subtests of t, one per hook.
func Run(t *testing.T, stage abi.Stage, hooks ...abi.Hook) {
	t.Helper()
	RunWith(t, stage, Options{Hooks: hooks})
}

// RunWith is Run with options.
func RunWith(t *testing.T, stage abi.Stage, opts Options) {
	t.Helper()
	hooks := opts.Hooks
	if len(hooks) == 0 {
		hooks = Hooks(stage)
	}
	if len(hooks) == 0 {
		t.Fatalf("stage %q implements no hook interface", stage.StageName())
	}
	for _, h := range hooks {
		t.Run(string(h), func(t *testing.T) {
			o := opts
			o.Hooks = []abi.Hook{h}
			for _, v := range Check(context.Background(), stage, o) {
				t.Error(v.Error())
			}
		})
	}
}

// Check runs the checks and returns the violations (none: the stage
// conforms). For use outside `go test`, and to test the kit itself.
func Check(ctx context.Context, stage abi.Stage, opts Options) []Violation {
	c := &checker{ctx: ctx, stage: stage, opts: opts}
	if c.opts.Timeout <= 0 {
		c.opts.Timeout = 10 * time.Second
	}
	if c.opts.Concurrency == 0 {
		c.opts.Concurrency = 16
	}
	hooks := opts.Hooks
	if len(hooks) == 0 {
		hooks = Hooks(stage)
	}
	if strings.TrimSpace(stage.StageName()) == "" {
		c.fail("", "stage", "StageName is empty")
	}
	for _, h := range hooks {
		if !implements(stage, h) {
			c.fail(h, "interface", fmt.Sprintf("the stage does not implement the %s hook's interface", h))
			continue
		}
		switch h {
		case abi.HookPolicy:
			c.policy()
		case abi.HookFilterTools:
			c.filterTools()
		case abi.HookMapNames:
			c.mapNames()
		case abi.HookTransformResult:
			c.transformResult()
		case abi.HookAuth:
			c.auth()
		default:
			c.fail(h, "hook", "not a hook of ABI v1")
		}
		c.canceled(h)
	}
	return c.violations
}

package plugins

import (
	"context"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Try runs one call of one hook and judges its answer: what "mcphost plugin
// test" shows.

// Trial is the outcome of one call of one hook (Try).
type Trial struct {
	Hook abi.Hook
	// Result holds the measurements (duration, memory, a fresh instance or
	// not) and, when the call succeeded, the raw output. It is nil when the
	// call failed before it ran (Err says why).
	Result *Result
	// Err is the call's error, an *Error whose Kind says what went wrong.
	Err error
	// Answer is the decoded answer (as DecodeOutput returns it: an
	// *abi.PolicyDecision, *abi.AuthResponse...) when the call succeeded and
	// its output is a valid answer for the hook; Invalid says why it is not.
	Answer  any
	Invalid error
}

// OK reports whether the call returned a valid answer.
func (t *Trial) OK() bool { return t.Err == nil && t.Invalid == nil }

// Try calls hook once with input (the hook's request, JSON), with every
// limit of the plugin, and decodes the output as the host would, without
// the checks that need the decoded request (DecodeOutput). It never returns
// nil: a failed call is in Err.
func Try(ctx context.Context, p *Plugin, hook abi.Hook, input []byte) *Trial {
	t := &Trial{Hook: hook}
	t.Result, t.Err = p.Invoke(ctx, hook, input)
	if t.Err != nil {
		return t
	}
	t.Answer, t.Invalid = DecodeOutput(hook, t.Result.Output)
	if t.Invalid != nil {
		t.Answer = nil
	}
	return t
}

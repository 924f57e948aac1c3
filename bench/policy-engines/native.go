package policyengines

import (
	"context"
	"fmt"
	"path"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Native is the rule as a hand-written Go function: the baseline any
// engine adds its cost to. The matcher is path.Match, whose '*' and '?'
// do not match '/', exactly the globs of the read-only plugin (which
// implements path.Match's algorithm without classes and escapes, refused by
// Globs). mcphost's own pdk/glob would also do for the benchmark's inputs,
// but its '*' crosses '/'.
type Native struct {
	globs []string
}

// NewNative prepares the rule for an allow value.
func NewNative(allow string) (*Native, error) {
	globs, err := Globs(allow)
	if err != nil {
		return nil, err
	}
	for _, g := range globs {
		// path.Match reports a malformed pattern only when it gets that
		// far: check each glob once against the empty name.
		if _, err := path.Match(g, ""); err != nil {
			return nil, fmt.Errorf("allow: glob %q: %w", g, err)
		}
	}
	return &Native{globs: globs}, nil
}

// Decide implements Decider.
func (n *Native) Decide(_ context.Context, req *abi.PolicyRequest) (abi.Decision, error) {
	if readOnly(req) {
		return abi.Allow, nil
	}
	full := FullName(req)
	for _, g := range n.globs {
		// The patterns were checked in NewNative: no error here.
		if ok, _ := path.Match(g, req.Name); ok {
			return abi.Allow, nil
		}
		if ok, _ := path.Match(g, full); ok {
			return abi.Allow, nil
		}
	}
	return abi.Deny, nil
}

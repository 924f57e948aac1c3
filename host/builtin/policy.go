// Package builtin holds mcphost's native pipeline stages: the defaults that
// need no WebAssembly. They implement the same hook interfaces as plugins
// (package host) with the same documents (package pdk/abi), so the plugin
// conformance kit runs against them too.
package builtin

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcphost/mcphost/pdk/glob"

	"github.com/mcphost/mcphost/pdk/abi"
)

// GlobPolicy allows or denies calls by tool name. Globs (pdk/glob syntax:
// '*' crosses '/', '.' and ':') are matched against the public name,
// "server:tool" and "mcp__server__tool". Deny wins; a non-empty Allow denies
// everything it does not match.
type GlobPolicy struct {
	Allow []string
	Deny  []string
}

var _ abi.ToolDenier = GlobPolicy{}

// StageName implements abi.Stage.
func (GlobPolicy) StageName() string { return "builtin:glob-policy" }

// Validate reports a bad glob.
func (p GlobPolicy) Validate() error {
	for _, g := range append(append([]string{}, p.Allow...), p.Deny...) {
		if err := glob.Valid(g); err != nil {
			return fmt.Errorf("builtin: policy: %w", err)
		}
	}
	return nil
}

// Policy implements abi.PolicyStage.
func (p GlobPolicy) Policy(_ context.Context, req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	if reason, denied := p.DeniesTool(req); denied {
		return &abi.PolicyDecision{Decision: abi.Deny, Reason: reason}, nil
	}
	return &abi.PolicyDecision{Decision: abi.Allow}, nil
}

// DeniesTool implements abi.ToolDenier: a glob policy looks at names only,
// so what it denies, it denies for every call.
func (p GlobPolicy) DeniesTool(req *abi.PolicyRequest) (string, bool) {
	if g, ok := matchAny(p.Deny, req); ok {
		return fmt.Sprintf("matches deny %q", g), true
	}
	if len(p.Allow) > 0 {
		if _, ok := matchAny(p.Allow, req); !ok {
			return "matches no allow glob", true
		}
	}
	return "", false
}

// matchAny matches the tool's public name, its "server:tool" and its name
// under the default scheme ("mcp__server__tool"): a rule means the same
// tools whatever the naming scheme or a map_names plugin calls them, so a
// renaming cannot walk a tool past a deny.
func matchAny(globs []string, req *abi.PolicyRequest) (string, bool) {
	if len(globs) == 0 {
		return "", false
	}
	forms := [...]string{req.Name, req.Server + ":" + req.Tool, "mcp__" + req.Server + "__" + req.Tool}
	for _, g := range globs {
		p := compiled(g)
		if p == nil {
			continue // matches nothing, as glob.Match says
		}
		for _, name := range forms {
			if p.Match(name) {
				return g, true
			}
		}
	}
	return "", false
}

// patterns holds the policies' globs compiled (string → *glob.Pattern,
// nil for one that does not compile): a policy runs on every call, and
// its globs are the configuration's, a set that hardly grows. Past
// maxPatterns of them, the others are compiled on each use.
var (
	patterns      sync.Map
	patternsCount atomic.Int64
)

const maxPatterns = 4096

func compiled(g string) *glob.Pattern {
	if p, ok := patterns.Load(g); ok {
		return p.(*glob.Pattern)
	}
	p, err := glob.Compile(g)
	if err != nil {
		p = nil
	}
	if patternsCount.Load() < maxPatterns {
		if _, loaded := patterns.LoadOrStore(g, p); !loaded {
			patternsCount.Add(1)
		}
	}
	return p
}

// ConfirmDestructive asks for a confirmation before tools annotated
// destructive (destructiveHint true and not read-only). With
// AssumeDestructive, tools without annotations count as destructive too, as
// the MCP specification's defaults say. Except lists globs (public name or
// server:tool) that never need confirming.
type ConfirmDestructive struct {
	AssumeDestructive bool
	Except            []string
}

// StageName implements abi.Stage.
func (ConfirmDestructive) StageName() string { return "builtin:confirm-destructive" }

// Policy implements abi.PolicyStage.
func (c ConfirmDestructive) Policy(_ context.Context, req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	a := req.Annotations
	destructive := false
	switch {
	case a == nil:
		destructive = c.AssumeDestructive
	case a.ReadOnlyHint:
	case a.DestructiveHint != nil:
		destructive = *a.DestructiveHint
	default:
		destructive = c.AssumeDestructive
	}
	if !destructive {
		return &abi.PolicyDecision{Decision: abi.Allow}, nil
	}
	if _, ok := matchAny(c.Except, req); ok {
		return &abi.PolicyDecision{Decision: abi.Allow, Reason: "destructive, but excepted"}, nil
	}
	return &abi.PolicyDecision{Decision: abi.Confirm, Reason: fmt.Sprintf("%s:%s is annotated destructive", req.Server, req.Tool)}, nil
}

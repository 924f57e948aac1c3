// Package policyengines compares ways of deciding one tool call: the rule of
// mcphost's example plugin read-only, written natively in Go, in CEL, in
// Cedar, in Rego, as a shell hook, and run as mcphost's own Wasm plugins
// through the real host API. It also compares a transform_result plugin
// (redact-secrets) with the same redaction done by Go's regexp package.
//
// It is a module of its own so that mcphost's product module never depends
// on the policy engines. The benchmarks are in the _test.go files; the
// engines here are written as a real integration would be: everything that
// can be prepared once (compiling, parsing) is, and each decision starts
// from the typed request the host holds (*abi.PolicyRequest).
package policyengines

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/pdk/abi"
)

// AllowList is the read-only plugin's `allow` config value that every
// engine is given: comma-separated globs matched against the public name
// and against server:tool.
const AllowList = "github:list_*, github:get_*"

// A Decider decides one tool call. Every engine of the benchmark is one.
type Decider interface {
	Decide(ctx context.Context, req *abi.PolicyRequest) (abi.Decision, error)
}

// BenchRequest is the policy request of the benchmarks: the one of
// benchInputs[abi.HookPolicy] in mcphost's plugins/bench_test.go (a test
// file, so it is copied here). The rule denies it: the tool is not
// annotated read-only and no glob of AllowList matches it.
func BenchRequest() *abi.PolicyRequest {
	return &abi.PolicyRequest{
		Server: "github", Tool: "delete_repository", Name: "mcp__github__delete_repository",
		Arguments:   map[string]any{"owner": "acme", "repo": "widgets", "confirm": true},
		Annotations: &abi.ToolAnnotations{DestructiveHint: new(true)},
		Caller:      &abi.Caller{Kind: "cli"},
	}
}

// Globs splits an allow value as the read-only plugin does (comma-separated,
// trimmed, empty items dropped) and, like it, refuses '[' and '\': only '*'
// and '?' are special, and every engine must read a glob the same way.
func Globs(allow string) ([]string, error) {
	var globs []string
	for g := range strings.SplitSeq(allow, ",") {
		g = strings.TrimSpace(g)
		if g == "" {
			continue
		}
		if strings.ContainsAny(g, `[\`) {
			return nil, fmt.Errorf("allow: glob %q: only * and ? are special here", g)
		}
		globs = append(globs, g)
	}
	return globs, nil
}

// FullName is the server:tool form the globs are also matched against.
func FullName(req *abi.PolicyRequest) string { return req.Server + ":" + req.Tool }

// RequestMap is the request as the JSON-shaped value that CEL and Rego take
// as input. It is built by hand from the typed request (what the host
// holds) rather than through a JSON round trip, which would cost more than
// some of the engines' evaluation. Annotations that are not set are left
// out, as in the request's JSON.
func RequestMap(req *abi.PolicyRequest) map[string]any {
	args := req.Arguments
	if args == nil {
		args = map[string]any{}
	}
	m := map[string]any{
		"server":    req.Server,
		"tool":      req.Tool,
		"name":      req.Name,
		"arguments": args,
	}
	if req.Annotations != nil {
		m["annotations"] = annotationsMap(req.Annotations)
	}
	if c := req.Caller; c != nil {
		m["caller"] = map[string]any{"kind": c.Kind, "id": c.ID}
	}
	return m
}

// annotationsMap is the annotations as JSON-shaped values: the hints that
// are set, as in their JSON. nil gives an empty map.
func annotationsMap(a *abi.ToolAnnotations) map[string]any {
	ann := make(map[string]any, 4)
	if a == nil {
		return ann
	}
	if a.ReadOnlyHint {
		ann["readOnlyHint"] = true
	}
	if a.DestructiveHint != nil {
		ann["destructiveHint"] = *a.DestructiveHint
	}
	if a.IdempotentHint {
		ann["idempotentHint"] = true
	}
	if a.OpenWorldHint != nil {
		ann["openWorldHint"] = *a.OpenWorldHint
	}
	return ann
}

// readOnly reports the annotation the rule allows by.
func readOnly(req *abi.PolicyRequest) bool {
	return req.Annotations != nil && req.Annotations.ReadOnlyHint
}

// decision maps an engine's yes/no to the ABI's words.
func decision(allow bool) abi.Decision {
	if allow {
		return abi.Allow
	}
	return abi.Deny
}

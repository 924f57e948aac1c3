package policyengines

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Rego is the rule as an OPA policy (Rego v1 syntax), prepared once with
// PrepareForEval and evaluated per decision with the request (RequestMap)
// as input. The globs use the built-in glob.match with "/" as the only
// delimiter, so '*' and '?' do not match '/', as in the other engines.
// OPA caches the compiled globs itself.
type Rego struct {
	query rego.PreparedEvalQuery
	src   string
}

// NewRego compiles and prepares the policy for an allow value.
func NewRego(ctx context.Context, allow string) (*Rego, error) {
	globs, err := Globs(allow)
	if err != nil {
		return nil, err
	}
	if globs == nil {
		globs = []string{}
	}
	// A JSON array of strings is a valid Rego array.
	list, err := json.Marshal(globs)
	if err != nil {
		return nil, err
	}
	src := `package mcphost.readonly

allow_globs := ` + string(list) + `

default allow := false

allow if input.annotations.readOnlyHint == true

allow if {
	some g in allow_globs
	glob.match(g, ["/"], input.name)
}

allow if {
	some g in allow_globs
	glob.match(g, ["/"], concat(":", [input.server, input.tool]))
}
`
	q, err := rego.New(
		rego.Query("data.mcphost.readonly.allow"),
		rego.Module("read-only.rego", src),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("rego: %w", err)
	}
	return &Rego{query: q, src: src}, nil
}

// Source is the Rego text of the policy.
func (r *Rego) Source() string { return r.src }

// Decide implements Decider.
func (r *Rego) Decide(ctx context.Context, req *abi.PolicyRequest) (abi.Decision, error) {
	rs, err := r.query.Eval(ctx, rego.EvalInput(RequestMap(req)))
	if err != nil {
		return "", fmt.Errorf("rego: %w", err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return "", fmt.Errorf("rego: %d results, want one", len(rs))
	}
	allow, ok := rs[0].Expressions[0].Value.(bool)
	if !ok {
		return "", fmt.Errorf("rego: allow is %v, not a bool", rs[0].Expressions[0].Value)
	}
	return decision(allow), nil
}

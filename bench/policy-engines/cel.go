package policyengines

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/interpreter"

	"github.com/mcphost/mcphost/pdk/abi"
)

// CEL is the rule as one CEL expression over a `request` variable (the
// request as RequestMap builds it). The globs are done with CEL's standard
// matches() on one anchored regexp built from the allow list ('*' is
// [^/]*, '?' is [^/]), not with a custom function: that keeps the policy
// text plain CEL that any CEL host can run. The regexp is a literal of the
// expression, so cel.OptimizeRegex compiles it once with the program
// instead of on every evaluation.
//
// cel-go's current releases are published as cel.dev/cel-go (the module
// path of github.com/google/cel-go since v0.32.0).
type CEL struct {
	prg  cel.Program
	expr string
}

// NewCEL compiles the rule for an allow value.
func NewCEL(allow string) (*CEL, error) {
	globs, err := Globs(allow)
	if err != nil {
		return nil, err
	}
	expr := celExpr(globs)
	env, err := cel.NewEnv(cel.Variable("request", cel.MapType(cel.StringType, cel.DynType)))
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, fmt.Errorf("cel: %w", iss.Err())
	}
	if !ast.OutputType().IsExactType(cel.BoolType) {
		return nil, fmt.Errorf("cel: the rule gives %s, not bool", ast.OutputType())
	}
	prg, err := env.Program(ast,
		cel.EvalOptions(cel.OptOptimize),
		cel.OptimizeRegex(interpreter.MatchesRegexOptimization))
	if err != nil {
		return nil, fmt.Errorf("cel: %w", err)
	}
	return &CEL{prg: prg, expr: expr}, nil
}

// Expr is the CEL source of the rule, for the README and test logs.
func (c *CEL) Expr() string { return c.expr }

// celExpr writes the rule. With no glob, the allow-list part is false.
func celExpr(globs []string) string {
	var b strings.Builder
	b.WriteString(`("readOnlyHint" in request.annotations && request.annotations.readOnlyHint == true)`)
	if len(globs) > 0 {
		// strconv.Quote's escapes (\\, \", \uXXXX) are valid CEL escapes.
		re := strconv.Quote(globRegexp(globs))
		b.WriteString(" || request.name.matches(" + re + ")")
		b.WriteString(` || (request.server + ":" + request.tool).matches(` + re + ")")
	}
	return b.String()
}

// globRegexp is one anchored RE2 regexp matching what any of globs matches,
// with path.Match's meaning: '*' any run of characters but '/', '?' one
// character but '/'.
func globRegexp(globs []string) string {
	var b strings.Builder
	b.WriteString("^(?:")
	for i, g := range globs {
		if i > 0 {
			b.WriteByte('|')
		}
		for _, r := range g {
			switch r {
			case '*':
				b.WriteString("[^/]*")
			case '?':
				b.WriteString("[^/]")
			default:
				b.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
	}
	b.WriteString(")$")
	return b.String()
}

// Decide implements Decider.
func (c *CEL) Decide(_ context.Context, req *abi.PolicyRequest) (abi.Decision, error) {
	m := RequestMap(req)
	if _, ok := m["annotations"]; !ok {
		// The expression reads request.annotations: give it an empty map
		// rather than a missing key (an evaluation error).
		m["annotations"] = map[string]any{}
	}
	out, _, err := c.prg.Eval(map[string]any{"request": m})
	if err != nil {
		return "", fmt.Errorf("cel: %w", err)
	}
	allow, ok := out.Value().(bool)
	if !ok {
		return "", fmt.Errorf("cel: the rule gave %v, not a bool", out)
	}
	return decision(allow), nil
}

package policyengines

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/cedar-policy/cedar-go"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Cedar is the rule as a Cedar policy set: one permit for read-only tools
// and one permit per glob of the allow list (Cedar denies what no policy
// permits). Per decision it builds what an integration would: the
// principal (the caller), the action (call_tool), the resource entity (the
// tool, with its names as attributes) and the context (annotations and
// arguments, converted to Cedar values).
//
// Cedar's `like` has only '*', and its '*' also matches '/': a glob with
// '?' is refused, and a glob's '*' crosses '/' here, unlike the other
// engines. Neither matters for the benchmark's allow list and requests.
type Cedar struct {
	policies *cedar.PolicySet
	src      string
}

// Cedar names of the model.
const (
	cedarTool   cedar.EntityType = "Tool"
	cedarCaller cedar.EntityType = "Caller"
)

var cedarCallTool = cedar.NewEntityUID("Action", "call_tool")

// NewCedar parses the policy set for an allow value.
func NewCedar(allow string) (*Cedar, error) {
	globs, err := Globs(allow)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.WriteString(`@id("read-only")
permit (principal, action == Action::"call_tool", resource)
when { context.annotations has readOnlyHint && context.annotations.readOnlyHint == true };
`)
	for i, g := range globs {
		if strings.Contains(g, "?") {
			return nil, fmt.Errorf("cedar: glob %q: like has no '?'", g)
		}
		// In a like pattern '*' is the wildcard; the string escapes are
		// Cedar's own ('\' is refused by Globs).
		pat := `"` + strings.ReplaceAll(g, `"`, `\"`) + `"`
		fmt.Fprintf(&b, `
@id("allow-%d")
permit (principal, action == Action::"call_tool", resource)
when { resource.name like %s || resource.full like %s };
`, i, pat, pat)
	}
	src := b.String()
	ps, err := cedar.NewPolicySetFromBytes("read-only.cedar", []byte(src))
	if err != nil {
		return nil, fmt.Errorf("cedar: %w", err)
	}
	return &Cedar{policies: ps, src: src}, nil
}

// Source is the Cedar text of the policy set.
func (c *Cedar) Source() string { return c.src }

// Decide implements Decider.
func (c *Cedar) Decide(_ context.Context, req *abi.PolicyRequest) (abi.Decision, error) {
	full := FullName(req)
	resource := cedar.NewEntityUID(cedarTool, cedar.String(full))
	caller := "anonymous"
	if req.Caller != nil {
		caller = req.Caller.Kind
		if req.Caller.ID != "" {
			caller = req.Caller.ID
		}
	}
	principal := cedar.NewEntityUID(cedarCaller, cedar.String(caller))
	entities := cedar.EntityMap{
		resource: {UID: resource, Attributes: cedar.NewRecord(cedar.RecordMap{
			"server": cedar.String(req.Server),
			"tool":   cedar.String(req.Tool),
			"name":   cedar.String(req.Name),
			"full":   cedar.String(full),
		})},
		principal: {UID: principal},
	}
	args, err := cedarValue(req.Arguments)
	if err != nil {
		return "", fmt.Errorf("cedar: arguments: %w", err)
	}
	ann, err := cedarValue(annotationsMap(req.Annotations))
	if err != nil {
		return "", err
	}
	d, diag := c.policies.IsAuthorized(entities, cedar.Request{
		Principal: principal,
		Action:    cedarCallTool,
		Resource:  resource,
		Context:   cedar.NewRecord(cedar.RecordMap{"arguments": args, "annotations": ann}),
	})
	if len(diag.Errors) > 0 {
		return "", fmt.Errorf("cedar: %s", diag.Errors[0].Message)
	}
	return decision(d == cedar.Allow), nil
}

// cedarValue converts a JSON-shaped Go value to Cedar's. Cedar has no null
// and no floating point: a null member is left out, a whole number is a
// Long and any other number a Decimal (which holds four decimal places).
func cedarValue(v any) (cedar.Value, error) {
	switch v := v.(type) {
	case string:
		return cedar.String(v), nil
	case bool:
		return cedar.Boolean(v), nil
	case int:
		return cedar.Long(v), nil
	case int64:
		return cedar.Long(v), nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			return cedar.Long(int64(v)), nil
		}
		return cedar.NewDecimalFromFloat(v)
	case map[string]any:
		rec := make(cedar.RecordMap, len(v))
		for k, e := range v {
			if e == nil {
				continue
			}
			cv, err := cedarValue(e)
			if err != nil {
				return nil, err
			}
			rec[cedar.String(k)] = cv
		}
		return cedar.NewRecord(rec), nil
	case []any:
		set := make([]cedar.Value, 0, len(v))
		for _, e := range v {
			if e == nil {
				continue
			}
			cv, err := cedarValue(e)
			if err != nil {
				return nil, err
			}
			set = append(set, cv)
		}
		return cedar.NewSet(set...), nil
	}
	return nil, fmt.Errorf("no Cedar value for %T", v)
}

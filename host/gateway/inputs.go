package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
)

// What a call asks of its client: the host's handlers for backends'
// elicitation and sampling requests (in the middle of a call, protocols
// before 2026-07-28), for the input requests in backends' results (2026-07-28)
// and for policies' confirmations all end here, and become input requests
// of the client's request (relay.go).

// inputs answers the input requests a backend returned in a result: all of
// them go to the calling client in one round, under the backend's keys where
// they are free, and the answers go back under the backend's keys (the host
// sends them with the backend's request state). The context is the call's,
// so the caller is known exactly: without one, nobody is asked.
func (r *Relay) inputs(ctx context.Context, server string, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	p, _ := ctx.Value(pendingKey{}).(*pending)
	if p == nil {
		return nil, fmt.Errorf("server %q asked for input, and no client of the gateway that could answer is waiting for it", server)
	}
	out := mcp.InputResponseMap{}
	ask := mcp.InputRequestMap{}
	for key, req := range reqs {
		switch q := req.(type) {
		case *mcp.ElicitParams:
			if !canElicit(p.caps, q) {
				// As for an elicitation in the middle of a call.
				out[key] = &mcp.ElicitResult{Action: "decline"}
				continue
			}
			ask[key] = sdkAcceptedForm(q)
		case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
			if p.caps.Sampling == nil {
				return nil, fmt.Errorf("server %q asked for sampling, and the calling client cannot sample", server)
			}
			ask[key] = req
		case *mcp.ListRootsParams:
			if !hasRoots(p.caps) {
				return nil, fmt.Errorf("server %q asked for roots, and the calling client has none", server)
			}
			ask[key] = req
		default:
			return nil, fmt.Errorf("server %q asked for input of an unknown kind (%T)", server, req)
		}
	}
	if len(ask) == 0 {
		return out, nil
	}
	answers, err := p.askAll(ctx, ask, true)
	if err != nil {
		return nil, err
	}
	maps.Copy(out, answers)
	return out, nil
}

func hasRoots(c *mcp.ClientCapabilities) bool { return c.RootsV2 != nil || c.Roots.ListChanged }

// relayable are the capabilities of a caller that the gateway declares to
// backends on its behalf (host.WithClientCapabilities): the kinds of input
// it carries to the caller, no more. A backend then asks only for what the
// caller can answer, and refuses (MissingRequiredClientCapability) what
// needs a capability the caller lacks, as it would if called directly.
func relayable(c *mcp.ClientCapabilities) *mcp.ClientCapabilities {
	out := &mcp.ClientCapabilities{Elicitation: c.Elicitation, Sampling: c.Sampling, RootsV2: c.RootsV2}
	if out.RootsV2 == nil && c.Roots.ListChanged {
		out.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	return out
}

// elicit relays an elicitation a backend sends in the middle of a call.
func (r *Relay) elicit(ctx context.Context, server string, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	p := r.callOf(ctx, server)
	if p == nil || !canElicit(p.caps, params) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	resp, err := p.ask(ctx, sdkAcceptedForm(params))
	if err != nil {
		return nil, err
	}
	res, ok := resp.(*mcp.ElicitResult)
	if !ok {
		return nil, fmt.Errorf("the client answered an elicitation with %T", resp)
	}
	return res, nil
}

// cannotConfirm is the refusal of a confirmation the calling client cannot
// be asked for.
func cannotConfirm(stage string) error {
	change := "change the policy of stage " + stage + " so that it allows or denies this call without asking"
	if stage == "builtin:confirm-destructive" {
		change = "list the tool in policy.confirm_except (in the user or local file) or allow or deny it in the policy"
	}
	return fmt.Errorf("%w: the client did not declare the elicitation capability, so it cannot show a confirmation; use a client that supports elicitation, or the gateway's operator can %s", host.ErrCannotAsk, change)
}

// canElicit reports whether a client with caps can answer params: a URL
// elicitation needs the url capability; a form, the form capability (or
// neither named, which older clients mean as forms).
func canElicit(caps *mcp.ClientCapabilities, params *mcp.ElicitParams) bool {
	e := caps.Elicitation
	switch {
	case e == nil:
		return false
	case params.Mode == "url":
		return e.URL != nil
	default:
		return e.Form != nil || e.URL == nil
	}
}

// sdkAcceptedForm returns params with a form go-sdk's server accepts: it
// checks an accepted answer against the form and refuses a titled
// multi-select whose items carry "type": "string" beside anyOf (which the
// host allows, as the specification does). Dropping that type changes
// nothing a client may answer, since every choice is a string const.
func sdkAcceptedForm(params *mcp.ElicitParams) *mcp.ElicitParams {
	form, ok := params.RequestedSchema.(map[string]any)
	if !ok {
		return params
	}
	props, _ := form["properties"].(map[string]any)
	var changed map[string]any
	for name, prop := range props {
		p, _ := prop.(map[string]any)
		items, _ := p["items"].(map[string]any)
		if p["type"] != "array" || items["type"] != "string" || items["anyOf"] == nil {
			continue
		}
		if changed == nil {
			changed = maps.Clone(props)
		}
		p, items = maps.Clone(p), maps.Clone(items)
		delete(items, "type")
		p["items"] = items
		changed[name] = p
	}
	if changed == nil {
		return params
	}
	form = maps.Clone(form)
	form["properties"] = changed
	out := *params
	out.RequestedSchema = form
	return &out
}

// sample relays a sampling request a backend sends in the middle of a call.
func (r *Relay) sample(ctx context.Context, server string, params *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	p := r.callOf(ctx, server)
	if p == nil || p.caps.Sampling == nil {
		return nil, fmt.Errorf("server %q asked for sampling, and no client of the gateway that could answer is waiting for it", server)
	}
	resp, err := p.ask(ctx, params)
	if err != nil {
		return nil, err
	}
	switch res := resp.(type) {
	case *mcp.CreateMessageResult:
		return res, nil
	case *mcp.CreateMessageWithToolsResult:
		data, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		var out mcp.CreateMessageResult
		if err := json.Unmarshal(data, &out); err != nil {
			return nil, errors.New("the client's sampling answer has content a backend without tools cannot take")
		}
		return &out, nil
	}
	return nil, fmt.Errorf("the client answered a sampling request with %T", resp)
}

// confirm asks the calling client to approve a call a policy wants
// confirmed, as an elicitation; a client that cannot elicit gets a denial
// that says so (nobody said no) and what the operator can change.
func (r *Relay) confirm(ctx context.Context, req host.ConfirmRequest) (bool, error) {
	p, _ := ctx.Value(pendingKey{}).(*pending)
	if p == nil || !canElicit(p.caps, &mcp.ElicitParams{}) { // a form
		return false, cannotConfirm(req.Stage)
	}
	args, _ := json.Marshal(req.Arguments)
	if len(args) > 2000 {
		args = append(args[:2000], []byte("…")...)
	}
	msg := fmt.Sprintf("Policy %s asks you to confirm the call of %s (server %s) with arguments %s", req.Stage, req.Name, req.Server, args)
	if req.Reason != "" {
		msg += ": " + req.Reason
	}
	resp, err := p.ask(ctx, &mcp.ElicitParams{
		Message: msg,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"confirm": map[string]any{"type": "boolean", "title": "Run this call", "default": false},
			},
			"required": []string{"confirm"},
		},
	})
	if err != nil {
		return false, fmt.Errorf("asking the client to confirm: %w", err)
	}
	res, ok := resp.(*mcp.ElicitResult)
	if !ok || res.Action != "accept" {
		return false, nil
	}
	yes, _ := res.Content["confirm"].(bool)
	return yes, nil
}

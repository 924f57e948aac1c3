package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fastjson "github.com/segmentio/encoding/json"

	"github.com/mcphost/mcphost/internal/toolresult"
	"github.com/mcphost/mcphost/pdk/abi"
)

// A plugin is every kind of stage: the hook interfaces are the ABI's, which
// host's stage types are, so the chain takes a *Plugin as it is.
var (
	_ abi.PolicyStage    = (*Plugin)(nil)
	_ abi.FilterStage    = (*Plugin)(nil)
	_ abi.NameStage      = (*Plugin)(nil)
	_ abi.TransformStage = (*Plugin)(nil)
	_ abi.AuthStage      = (*Plugin)(nil)
)

// The hook adapters: each marshals the ABI request, calls the export and
// decodes the answer strictly (one JSON object, no unknown fields), then
// checks what the host relies on. An answer that fails is a KindOutput
// error: the chain treats it as the plugin failing, never as an outcome.

func (p *Plugin) invoke(ctx context.Context, hook abi.Hook, req any) ([]byte, error) {
	input, err := encodeRequest(req)
	if err != nil {
		return nil, &Error{Plugin: p.name, Hook: hook, Kind: KindInput, Msg: "cannot encode the request: " + err.Error(), Err: err}
	}
	res, err := p.Invoke(ctx, hook, input)
	if err != nil {
		return nil, err
	}
	return res.Output, nil
}

// encodeRequest encodes a hook's request to the values encoding/json's
// encoding has, without its escaping of <, > and & (which no guest needs)
// and without compacting raw values (the host made them), about three
// times faster, and a large raw result forty times faster: encoding/json
// re-scans every raw value byte by byte. TestEncodeRequestLikeEncodingJSON
// holds the two to the same decoded values.
func encodeRequest(req any) ([]byte, error) {
	return fastjson.Append(make([]byte, 0, 1024), req, fastjson.SortMapKeys)
}

func (p *Plugin) outputError(hook abi.Hook, err error) error {
	return &Error{Plugin: p.name, Hook: hook, Kind: KindOutput, Msg: err.Error()}
}

// Policy implements the host's PolicyStage.
func (p *Plugin) Policy(ctx context.Context, req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	out, err := p.invoke(ctx, abi.HookPolicy, req)
	if err != nil {
		return nil, err
	}
	d, err := decodePolicy(out)
	if err != nil {
		return nil, p.outputError(abi.HookPolicy, err)
	}
	return d, nil
}

// FilterTools implements the host's FilterStage.
func (p *Plugin) FilterTools(ctx context.Context, req *abi.FilterToolsRequest) (*abi.FilterToolsResponse, error) {
	out, err := p.invoke(ctx, abi.HookFilterTools, req)
	if err != nil {
		return nil, err
	}
	r, err := decodeFilterTools(req, out)
	if err != nil {
		return nil, p.outputError(abi.HookFilterTools, err)
	}
	return r, nil
}

// MapNames implements the host's NameStage.
func (p *Plugin) MapNames(ctx context.Context, req *abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
	out, err := p.invoke(ctx, abi.HookMapNames, req)
	if err != nil {
		return nil, err
	}
	r, err := decodeMapNames(req, out)
	if err != nil {
		return nil, p.outputError(abi.HookMapNames, err)
	}
	return r, nil
}

// TransformResult implements the host's TransformStage.
func (p *Plugin) TransformResult(ctx context.Context, req *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
	out, err := p.invoke(ctx, abi.HookTransformResult, req)
	if err != nil {
		return nil, err
	}
	r, err := decodeTransformResult(out)
	if err != nil {
		return nil, p.outputError(abi.HookTransformResult, err)
	}
	return r, nil
}

// Auth implements the host's AuthStage.
func (p *Plugin) Auth(ctx context.Context, req *abi.AuthRequest) (*abi.AuthResponse, error) {
	out, err := p.invoke(ctx, abi.HookAuth, req)
	if err != nil {
		return nil, err
	}
	r, err := decodeAuth(out)
	if err != nil {
		return nil, p.outputError(abi.HookAuth, err)
	}
	return r, nil
}

// DecodeOutput decodes and checks a hook's raw output (as Invoke returns
// it) without the request: the checks that need the request (a filter's
// names are a subset of its tools, map_names gives one name per tool) are
// left out. Try and Bench judge answers with it.
func DecodeOutput(hook abi.Hook, data []byte) (any, error) {
	switch hook {
	case abi.HookPolicy:
		return decodePolicy(data)
	case abi.HookFilterTools:
		return decodeFilterTools(nil, data)
	case abi.HookMapNames:
		return decodeMapNames(nil, data)
	case abi.HookTransformResult:
		return decodeTransformResult(data)
	case abi.HookAuth:
		return decodeAuth(data)
	}
	return nil, fmt.Errorf("unknown hook %q", hook)
}

// decodePolicy decodes a policy answer: decision allow, deny or confirm;
// rewritten arguments, if any, an object.
func decodePolicy(data []byte) (*abi.PolicyDecision, error) {
	var d abi.PolicyDecision
	if err := strictUnmarshal(data, &d); err != nil {
		return nil, err
	}
	switch d.Decision {
	case abi.Allow, abi.Deny, abi.Confirm:
	case "":
		return nil, errors.New(`no decision (want "allow", "deny" or "confirm")`)
	default:
		return nil, fmt.Errorf(`decision %q is not "allow", "deny" or "confirm"`, guestText(string(d.Decision)))
	}
	d.Reason = guestText(d.Reason)
	return &d, nil
}

// decodeFilterTools decodes a filter answer. With req, every name kept must
// be one of req's tools, once.
func decodeFilterTools(req *abi.FilterToolsRequest, data []byte) (*abi.FilterToolsResponse, error) {
	var r struct {
		Tools *[]string `json:"tools"`
	}
	if err := strictUnmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.Tools == nil {
		return nil, errors.New(`no "tools" list (an empty list keeps no tool)`)
	}
	out := &abi.FilterToolsResponse{Tools: *r.Tools}
	if out.Tools == nil {
		out.Tools = []string{}
	}
	if req != nil {
		known := make(map[string]bool, len(req.Tools))
		for _, t := range req.Tools {
			known[t.Name] = true
		}
		seen := make(map[string]bool, len(out.Tools))
		for _, n := range out.Tools {
			if !known[n] {
				return nil, fmt.Errorf("keeps tool %q, which is not in the list it was given", guestText(n))
			}
			if seen[n] {
				return nil, fmt.Errorf("keeps tool %q twice", guestText(n))
			}
			seen[n] = true
		}
	}
	return out, nil
}

// decodeMapNames decodes a map_names answer. With req, it must give one
// name per tool; the host checks the names themselves (pattern, length,
// uniqueness) and falls back to the built-in mapping.
func decodeMapNames(req *abi.MapNamesRequest, data []byte) (*abi.MapNamesResponse, error) {
	var r struct {
		Names *[]string `json:"names"`
	}
	if err := strictUnmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.Names == nil {
		return nil, errors.New(`no "names" list`)
	}
	if req != nil && len(*r.Names) != len(req.Tools) {
		return nil, fmt.Errorf("gives %d names for %d tools", len(*r.Names), len(req.Tools))
	}
	return &abi.MapNamesResponse{Names: *r.Names}, nil
}

// decodeTransformResult decodes a transform answer: result must be an MCP
// CallToolResult.
func decodeTransformResult(data []byte) (*abi.TransformResultResponse, error) {
	var r abi.TransformResultResponse
	if err := strictUnmarshal(data, &r); err != nil {
		return nil, err
	}
	if err := checkCallToolResult(r.Result); err != nil {
		return nil, err
	}
	return &r, nil
}

// checkCallToolResult reports whether data is an MCP CallToolResult (a JSON
// object the MCP SDK decodes).
func checkCallToolResult(data json.RawMessage) error {
	t := bytes.TrimSpace(data)
	if len(t) == 0 || t[0] != '{' {
		return errors.New(`"result" must be a CallToolResult object`)
	}
	if toolresult.Check(t) {
		return nil
	}
	var res mcp.CallToolResult
	if err := res.UnmarshalJSON(t); err != nil {
		return fmt.Errorf(`"result" is not a CallToolResult: %s`, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// decodeAuth decodes an auth answer: header names must be HTTP tokens and
// values free of control characters (no header injection).
func decodeAuth(data []byte) (*abi.AuthResponse, error) {
	var r struct {
		Headers   *map[string]string `json:"headers"`
		ExpiresIn int                `json:"expires_in"`
	}
	if err := strictUnmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.Headers == nil {
		return nil, errors.New(`no "headers" map (an empty map adds none)`)
	}
	for k, v := range *r.Headers {
		if !validHeaderName(k) {
			return nil, fmt.Errorf("bad header name %q", guestText(k))
		}
		if !validHeaderValue(v) {
			// Never quote the value: it is a credential.
			return nil, fmt.Errorf("header %s: the value has control characters or is over 8 KiB", k)
		}
	}
	if r.ExpiresIn < 0 {
		return nil, fmt.Errorf("expires_in %d is negative", r.ExpiresIn)
	}
	h := *r.Headers
	if h == nil {
		h = map[string]string{}
	}
	return &abi.AuthResponse{Headers: h, ExpiresIn: r.ExpiresIn}, nil
}

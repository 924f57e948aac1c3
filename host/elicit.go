package host

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/internal/elicitform"
)

const methodElicit = "elicitation/create"

// elicitReceiver answers elicitation/create itself rather than through
// go-sdk's client, whose schema check refuses forms the specification allows
// (a titled multi-select whose items carry "type": "string" beside anyOf, as
// go-sdk's own conformance server sends). It checks the form by the
// specification's rules (elicitform.Check), asks the handler, and checks an accepted answer
// against the form before the server sees it.
func elicitReceiver(handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			er, ok := req.(*mcp.ElicitRequest)
			if method != methodElicit || !ok || er.Params == nil {
				return next(ctx, method, req)
			}
			mode := er.Params.Mode
			if mode != "" && mode != "form" {
				return next(ctx, method, req) // url mode has no form to check
			}
			if er.Params.URL != "" {
				return nil, invalidParams("URL must not be set for form elicitation")
			}
			schema, err := elicitform.Check(er.Params.RequestedSchema)
			if err != nil {
				return nil, invalidParams(err.Error())
			}
			res, err := handler(ctx, er)
			if err != nil || res == nil || res.Action != "accept" || schema == nil || res.Content == nil {
				return res, err
			}
			resolved, err := schema.Resolve(nil)
			if err != nil {
				return nil, invalidParams("requested schema: " + err.Error())
			}
			if err := resolved.Validate(res.Content); err != nil {
				return nil, invalidParams("the answer does not match the requested schema: " + err.Error())
			}
			if err := resolved.ApplyDefaults(&res.Content); err != nil {
				return nil, invalidParams("requested schema defaults: " + err.Error())
			}
			return res, nil
		}
	}
}

func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

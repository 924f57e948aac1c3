package host

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"

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
			if mode := er.Params.Mode; mode != "" && mode != "form" {
				return next(ctx, method, req) // url mode has no form to check
			}
			form, err := checkElicitParams(er.Params)
			if err != nil {
				return nil, err
			}
			res, err := handler(ctx, er)
			if err != nil || res == nil {
				return res, err
			}
			if err := form.checkAnswer(res); err != nil {
				return nil, err
			}
			return res, nil
		}
	}
}

// elicitForm is the checked form of a form-mode elicitation (nil: url mode,
// or no form).
type elicitForm struct{ schema *jsonschema.Schema }

// checkElicitParams checks an elicitation by the specification's rules.
func checkElicitParams(p *mcp.ElicitParams) (*elicitForm, error) {
	if p.Mode != "" && p.Mode != "form" {
		return nil, nil
	}
	if p.URL != "" {
		return nil, invalidParams("URL must not be set for form elicitation")
	}
	schema, err := elicitform.Check(p.RequestedSchema)
	if err != nil {
		return nil, invalidParams(err.Error())
	}
	if schema == nil {
		return nil, nil
	}
	return &elicitForm{schema}, nil
}

// checkAnswer checks an accepted answer against the form before the server
// sees it, and fills in the form's defaults.
func (f *elicitForm) checkAnswer(res *mcp.ElicitResult) error {
	if f == nil || res == nil || res.Action != "accept" || res.Content == nil {
		return nil
	}
	resolved, err := f.schema.Resolve(nil)
	if err != nil {
		return invalidParams("requested schema: " + err.Error())
	}
	if err := resolved.Validate(res.Content); err != nil {
		return invalidParams("the answer does not match the requested schema: " + err.Error())
	}
	if err := resolved.ApplyDefaults(&res.Content); err != nil {
		return invalidParams("requested schema defaults: " + err.Error())
	}
	return nil
}

func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

package host

import (
	"context"
	"fmt"
	"net/url"

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

// elicitForm is a checked elicitation: its mode, and its form's schema
// (nil: url mode, or a form without one).
type elicitForm struct {
	url    bool
	schema *jsonschema.Schema
}

// checkElicitParams checks an elicitation by the specification's rules: a
// form (mode "" or "form") without a URL and with a form elicitform.Check
// passes, or a URL (mode "url") without a form. Any other mode is refused:
// the client would not know what it answers.
func checkElicitParams(p *mcp.ElicitParams) (*elicitForm, error) {
	switch p.Mode {
	case "", "form":
	case "url":
		if p.URL == "" {
			return nil, invalidParams("URL elicitation without a URL")
		}
		if u, err := url.Parse(p.URL); err != nil || u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
			return nil, invalidParams("URL elicitation: the URL is not an http(s) URL")
		}
		if p.RequestedSchema != nil {
			return nil, invalidParams("URL elicitation with a requested schema")
		}
		return &elicitForm{url: true}, nil
	default:
		return nil, invalidParams(fmt.Sprintf("unsupported elicitation mode %q (form or url)", p.Mode))
	}
	if p.URL != "" {
		return nil, invalidParams("URL must not be set for form elicitation")
	}
	schema, err := elicitform.Check(p.RequestedSchema)
	if err != nil {
		return nil, invalidParams(err.Error())
	}
	return &elicitForm{schema: schema}, nil
}

// checkAnswer checks an answer before the server sees it: one of the three
// actions, content only with "accept" (and none for a URL), and accepted
// content that fits the form, holding only its fields; the form's defaults
// are filled in.
func (f *elicitForm) checkAnswer(res *mcp.ElicitResult) error {
	if res == nil {
		return invalidParams("no answer")
	}
	switch res.Action {
	case "accept":
	case "decline", "cancel":
		if len(res.Content) > 0 {
			return invalidParams("an answer of " + res.Action + " carries content")
		}
		return nil
	default:
		return invalidParams(fmt.Sprintf("answer with action %q (accept, decline or cancel)", res.Action))
	}
	if f.url || f.schema == nil {
		if len(res.Content) > 0 {
			return invalidParams("content in the answer to an elicitation without a form")
		}
		return nil
	}
	if res.Content == nil {
		return nil
	}
	for name := range res.Content {
		if _, ok := f.schema.Properties[name]; !ok {
			return invalidParams(fmt.Sprintf("the answer has a field %q the form does not ask", name))
		}
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

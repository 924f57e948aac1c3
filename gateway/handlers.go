package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
)

// maxArgumentBytes bounds the arguments of one call: the HTTP body cap
// bounds them too, but stdio clients have no such cap.
const maxArgumentBytes = 16 << 20

// callTool is the handler of the public tool name: the host's CallTool,
// with the client's identity for policies, its progress token relayed,
// and its cancellation passed on.
func (g *Gateway) callTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if raw := req.Params.Arguments; len(raw) > 0 {
			if len(raw) > maxArgumentBytes {
				return toolError(fmt.Errorf("arguments over %d MiB", maxArgumentBytes>>20)), nil
			}
			if err := json.Unmarshal(raw, &args); err != nil {
				return toolError(fmt.Errorf("arguments are not a JSON object: %v", err)), nil
			}
		}
		caller := callerOf(req)
		if state := req.Params.RequestState; state != "" {
			// The client answers what the call asked it.
			p := g.relay.resume(state, resumeKey(caller))
			if p == nil {
				// A request state mcphost did not hand out to this caller
				// (tampered, replayed, expired, another caller's): the
				// request is invalid, not the tool.
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: unknown, expired or not this caller's; call the tool again"}
			}
			p.answer(req.Params.InputResponses)
			return g.result(g.relay.next(ctx, p))
		}
		opts := []host.CallOption{host.WithCaller(caller)}
		if token := req.Params.GetProgressToken(); token != nil {
			opts = append(opts, host.WithProgress(func(p host.Progress) {
				// From the backend session's goroutine: never block it.
				go req.Session.NotifyProgress(context.WithoutCancel(ctx), &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: p.Progress, Total: p.Total, Message: p.Message,
				})
			}))
		}
		server := g.serverOf(name)
		p := g.relay.start(ctx, server, resumeKey(caller), req.ClientCapabilities(), func(ctx context.Context) (*mcp.CallToolResult, error) {
			start := time.Now()
			ctx, span := g.tracer().Start(ctx, "tools/call "+name, trace.WithSpanKind(trace.SpanKindServer),
				trace.WithAttributes(attribute.String("mcphost.server", server), attribute.String("mcphost.tool", name),
					attribute.String("mcphost.caller", caller.ID), attribute.String("mcphost.session", caller.Session)))
			defer span.End()
			res, err := g.h.CallTool(ctx, name, args, opts...)
			outcome := outcomeOf(res, err)
			span.SetAttributes(attribute.String("mcphost.outcome", outcome))
			if err != nil {
				span.SetStatus(codes.Error, outcome)
			}
			g.metrics.observeCall(server, name, outcome, time.Since(start))
			if aerr := g.audit.Write(record(caller, server, name, args, start, outcome, err)); aerr != nil {
				g.logger.Warn("audit log", "error", aerr)
			}
			return res, err
		})
		return g.result(g.relay.next(ctx, p))
	}
}

// result turns the host's answer into the client's: refusals and failures
// reach the model as a tool error it can read, as a direct call to the
// server would; a call the client cancelled gets no answer.
func (g *Gateway) result(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	if err == nil {
		return res, nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) && res == nil {
		return nil, err
	}
	return toolError(err), nil
}

func (g *Gateway) serverOf(publicName string) string {
	if t, ok := g.h.Resolve(publicName); ok {
		return t.Server
	}
	return ""
}

func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

// readResource reads from the server that listed the resource (or whose
// template matched).
func (g *Gateway) readResource(serverID string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		res, err := g.h.ReadResource(ctx, serverID, req.Params.URI)
		if err != nil {
			if strings.Contains(err.Error(), "not found") {
				return nil, mcp.ResourceNotFoundError(req.Params.URI)
			}
			return nil, err
		}
		return res, nil
	}
}

// getPrompt renders a backend's prompt (display is "server:prompt").
func (g *Gateway) getPrompt(display string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return g.h.GetPrompt(ctx, display, req.Params.Arguments)
	}
}

// complete asks the server that owns the prompt or resource of the
// reference, under its own name for it.
func (g *Gateway) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := *req.Params
	if p.Ref == nil {
		return nil, errors.New("completion without a reference")
	}
	ref := *p.Ref
	p.Ref = &ref
	var server string
	switch ref.Type {
	case "ref/prompt":
		g.mu.Lock()
		display, ok := g.prompts[ref.Name]
		g.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("no prompt %q", ref.Name)
		}
		server, ref.Name, _ = strings.Cut(display, ":")
	case "ref/resource":
		server = g.resourceOwner(ref.URI)
		if server == "" {
			return nil, fmt.Errorf("no resource or template %q", ref.URI)
		}
	default:
		return nil, fmt.Errorf("unknown reference type %q", ref.Type)
	}
	return g.h.Complete(ctx, server, &p)
}

// resourceOwner finds the server that lists a URI or URI template.
func (g *Gateway) resourceOwner(uri string) string {
	rs, ts := g.h.ListedResources("")
	for _, r := range rs {
		if r.Resource != nil && r.URI == uri {
			return r.Server
		}
	}
	for _, t := range ts {
		if t.ResourceTemplate != nil && t.URITemplate == uri {
			return t.Server
		}
	}
	return ""
}

// resumeKey is who may answer a call's input requests: the same identity,
// and the same session where there is one (stateless HTTP has none, and
// anonymous callers share the empty identity).
func resumeKey(c abi.Caller) string { return c.ID + "\x00" + c.Session }

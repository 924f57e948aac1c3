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
		in := relayIn{what: "tools/call " + name, server: server, caller: caller, conn: req.Session, caps: req.ClientCapabilities(),
			logLevel: logLevelOf(req.Params), state: req.Params.RequestState, answers: req.Params.InputResponses}
		s, err := g.relayed(ctx, in, func(ctx context.Context) (mcp.Result, error) {
			start := time.Now()
			var span trace.Span
			if g.trace != nil { // without traces, no span to build on every call
				ctx, span = g.trace.Start(ctx, "tools/call "+name, trace.WithSpanKind(trace.SpanKindServer),
					trace.WithAttributes(attribute.String("mcphost.server", server), attribute.String("mcphost.tool", name),
						attribute.String("mcphost.caller", caller.ID), attribute.String("mcphost.session", caller.Session)))
				defer span.End()
			}
			res, err := g.h.CallTool(ctx, name, args, opts...)
			outcome := outcomeOf(res, err)
			if span != nil {
				span.SetAttributes(attribute.String("mcphost.outcome", outcome))
				if err != nil {
					span.SetStatus(codes.Error, outcome)
				}
			}
			g.metrics.observeCall(server, name, outcome, time.Since(start))
			if g.audit != nil {
				if aerr := g.audit.Write(record(caller, server, name, args, start, outcome, err)); aerr != nil {
					g.logger.Warn("audit log", "error", aerr)
				}
			}
			return res, err
		})
		if err == nil && s.asks != nil {
			return &mcp.CallToolResult{InputRequests: s.asks, RequestState: s.state}, nil
		}
		res, _ := s.res.(*mcp.CallToolResult)
		return g.result(res, err)
	}
}

// relayIn is a client request whose handling may ask the client for input.
type relayIn struct {
	what   string // "tools/call name": a request state answers only the request it was given for
	server string // the backend
	caller abi.Caller
	conn   *mcp.ServerSession      // the client's connection
	caps   *mcp.ClientCapabilities // the caller's
	// logLevel is the level the caller asked for in the request (protocol
	// 2026-07-28; older clients set theirs for the session).
	logLevel mcp.LoggingLevel
	state    string // the request state the client answers under
	answers  mcp.InputResponseMap
}

// relayed runs a client request through the relay: a new call, or with a
// request state the call it belongs to, given the client's answers. Either
// way the client gets the call's result or what the call asks it. A new call
// declares the caller's capabilities to a backend that takes them per
// request (protocol 2026-07-28), with any answers the client gave unasked.
func (g *Gateway) relayed(ctx context.Context, in relayIn, call func(context.Context) (mcp.Result, error)) (step, error) {
	key := resumeKey(in.caller)
	var p *pending
	if in.state != "" {
		// The client answers what the call asked it.
		if p = g.relay.resume(in.state, key, in.what); p == nil {
			// A request state mcphost did not hand out to this caller for
			// this request (tampered, replayed, expired, another
			// caller's): the request is invalid, not the tool.
			return step{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: unknown, expired or not this caller's; make the request again"}
		}
		p.answer(in.answers)
	} else {
		caps := in.caps
		if caps == nil {
			caps = &mcp.ClientCapabilities{}
		}
		answers := in.answers
		if len(answers) > maxInputRequests {
			answers = nil // more than the gateway would ever ask: the backend asks
		}
		var err error
		p, err = g.relay.start(ctx, in.server, key, in.conn, in.what, caps, func(ctx context.Context) (mcp.Result, error) {
			// Answers the client gave unasked go to the backend, which
			// takes those it recognises (SEP-2322).
			ctx = host.WithInputResponses(host.WithClientCapabilities(ctx, relayable(caps)), answers)
			if in.logLevel != "" {
				ctx = host.WithLogLevel(ctx, in.logLevel)
			}
			return call(ctx)
		})
		if err != nil {
			return step{}, err
		}
	}
	return g.relay.next(ctx, p)
}

// result turns the host's answer into the client's: refusals and failures
// reach the model as a tool error it can read, as a direct call to the
// server would; a call the client cancelled gets no answer.
func (g *Gateway) result(res *mcp.CallToolResult, err error) (*mcp.CallToolResult, error) {
	if err == nil {
		return res, nil
	}
	if jerr, ok := err.(*jsonrpc.Error); ok {
		return nil, jerr // the gateway refuses the request itself
	}
	if jerr := callerError(err); jerr != nil {
		return nil, jerr
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) && res == nil {
		return nil, err
	}
	return toolError(err), nil
}

// callerError is the backend's error when it is about the caller rather
// than the call: a capability the caller did not declare (which the gateway
// declared on its behalf). It reaches the caller as the backend sent it,
// code and data, so that the caller learns what it must declare, as it
// would from the backend directly; nil for any other error.
func callerError(err error) *jsonrpc.Error {
	var jerr *jsonrpc.Error
	if errors.As(err, &jerr) && jerr.Code == mcp.CodeMissingRequiredClientCapabilities {
		return jerr
	}
	return nil
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
// template matched), through the relay: a backend may ask the client for
// input before it answers.
func (g *Gateway) readResource(serverID string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri, server := req.Params.URI, serverID
		if host.OwnURI(uri) {
			// Whatever template matched, mcphost:// is read from
			// mcphost's own store, never from a backend.
			server = host.ResultsServer
		}
		in := relayIn{what: "resources/read " + uri, server: server, caller: callerOf(req), conn: req.Session, caps: req.ClientCapabilities(),
			logLevel: logLevelOf(req.Params), state: req.Params.RequestState, answers: req.Params.InputResponses}
		s, err := g.relayed(ctx, in, func(ctx context.Context) (mcp.Result, error) {
			return g.h.ReadResource(ctx, server, uri)
		})
		switch {
		case err != nil:
			if jerr := callerError(err); jerr != nil {
				return nil, jerr
			}
			if strings.Contains(err.Error(), "not found") {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, err
		case s.asks != nil:
			res := &mcp.ReadResourceResult{InputRequests: s.asks, RequestState: s.state}
			if olderClient(req.Session) {
				// go-sdk's server refuses a read result without
				// contents before it sends an older client the input
				// requests itself; that client never sees this result.
				res.Contents = []*mcp.ResourceContents{}
			}
			return res, nil
		}
		res, _ := s.res.(*mcp.ReadResourceResult)
		return res, nil
	}
}

// olderClient reports whether a client speaks a protocol before 2026-07-28,
// whose input requests go-sdk's server sends as requests of their own.
func olderClient(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion < "2026-07-28"
}

// getPrompt renders a backend's prompt (display is "server:prompt"),
// through the relay like readResource.
func (g *Gateway) getPrompt(display string) mcp.PromptHandler {
	server, _, _ := strings.Cut(display, ":")
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		in := relayIn{what: "prompts/get " + req.Params.Name, server: server, caller: callerOf(req), conn: req.Session, caps: req.ClientCapabilities(),
			logLevel: logLevelOf(req.Params), state: req.Params.RequestState, answers: req.Params.InputResponses}
		s, err := g.relayed(ctx, in, func(ctx context.Context) (mcp.Result, error) {
			return g.h.GetPrompt(ctx, display, req.Params.Arguments)
		})
		switch {
		case err != nil:
			if jerr := callerError(err); jerr != nil {
				return nil, jerr
			}
			return nil, err
		case s.asks != nil:
			return &mcp.GetPromptResult{InputRequests: s.asks, RequestState: s.state}, nil
		}
		res, _ := s.res.(*mcp.GetPromptResult)
		return res, nil
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

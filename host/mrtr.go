package host

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// InputHandler answers the input requests a server returns instead of a
// result (protocol 2026-07-28, multi round-trip requests, SEP-2322): all the
// requests of one round at once, under the server's own keys, answered under
// the same keys. server is the id of the server that asked. The requests are
// *mcp.ElicitParams, *mcp.CreateMessageWithToolsParams (or
// *mcp.CreateMessageParams) and *mcp.ListRootsParams.
type InputHandler func(ctx context.Context, server string, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error)

// WithInputHandler answers servers' input requests with fn instead of
// go-sdk's own loop, which asks the elicitation and sampling handlers one
// request at a time and answers roots from WithRoots: a host that passes the
// requests on (the gateway, to its client) needs them whole, with their keys.
// Servers on older protocols send their requests in the middle of a call
// instead; those still go to the elicitation and sampling handlers.
func WithInputHandler(fn InputHandler) Option {
	return func(o *options) { o.inputs = fn }
}

type clientCapsKey struct{}

// WithClientCapabilities returns a context whose tools/call, prompts/get and
// resources/read requests declare caps as the client's capabilities to
// servers on protocol 2026-07-28, which take them per request, instead of the
// host's own. A host that serves another client (the gateway) declares that
// client's, so that a server asks only for what it can answer and refuses
// what needs a capability it lacks; the caller must be able to answer the
// requests caps allow (WithInputHandler). Servers on older protocols learnt
// the capabilities once, at initialize: there it changes nothing.
func WithClientCapabilities(ctx context.Context, caps *mcp.ClientCapabilities) context.Context {
	return context.WithValue(ctx, clientCapsKey{}, caps)
}

type logLevelKey struct{}

// WithLogLevel returns a context whose tools/call, prompts/get and
// resources/read requests to servers on protocol 2026-07-28 ask for their
// log messages from level on: that protocol asks per request (and a server
// sends none unasked). Servers on older protocols were asked once, at
// connect. A host that serves another client (the gateway) asks at that
// client's level, and the lines come back through WithLogMessages.
func WithLogLevel(ctx context.Context, level mcp.LoggingLevel) context.Context {
	return context.WithValue(ctx, logLevelKey{}, level)
}

type firstAnswersKey struct{}

// WithInputResponses returns a context whose tools/call, prompts/get and
// resources/read requests to servers on protocol 2026-07-28 carry answers
// their client gave before it was asked: SEP-2322 lets a client send
// inputResponses with a request, and a server takes those it recognises. A
// host that serves another client (the gateway) passes them on, as the
// server would get them directly.
func WithInputResponses(ctx context.Context, answers mcp.InputResponseMap) context.Context {
	return context.WithValue(ctx, firstAnswersKey{}, answers)
}

const (
	// maxInputRounds bounds the rounds of one request, as go-sdk's own
	// loop does: a server that keeps asking is not answered forever.
	maxInputRounds = 10
	// maxBusyRounds bounds the retries of a server that answers with no
	// input requests at all (it is shedding load).
	maxBusyRounds = 3
	// busyPause is the pause before such a retry, times its number.
	busyPause = 100 * time.Millisecond
	// protocolMRTR is the first protocol version with per-request
	// capabilities and input requests in results.
	protocolMRTR = "2026-07-28"
)

// inputRounds is the sending middleware of a server's client that declares
// the caller's capabilities (WithClientCapabilities) and, with an
// InputHandler, answers the input requests in results and sends the request
// again with the answers and the server's request state, round after round.
func (h *Host) inputRounds(server string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "tools/call", "prompts/get", "resources/read":
			default:
				return next(ctx, method, req)
			}
			cs, _ := req.GetSession().(*mcp.ClientSession)
			if cs == nil || cs.InitializeResult() == nil || cs.InitializeResult().ProtocolVersion < protocolMRTR {
				return next(ctx, method, req)
			}
			caps, _ := ctx.Value(clientCapsKey{}).(*mcp.ClientCapabilities)
			level, _ := ctx.Value(logLevelKey{}).(mcp.LoggingLevel)
			if p := req.GetParams(); p != nil && (caps != nil || level != "") {
				// go-sdk filled in the host's own; the map may be the
				// caller's, so it is copied.
				m := maps.Clone(p.GetMeta())
				if m == nil {
					m = map[string]any{}
				}
				if caps != nil {
					m[mcp.MetaKeyClientCapabilities] = capabilitiesMeta(caps)
				}
				if level != "" {
					m[mcp.MetaKeyLogLevel] = level
				}
				p.SetMeta(m)
			}
			if answers, _ := ctx.Value(firstAnswersKey{}).(mcp.InputResponseMap); len(answers) > 0 {
				var err error
				if req, err = retryWith(cs, req, answers, ""); err != nil {
					return nil, hostError{err}
				}
			}
			if h.opts.inputs == nil {
				return next(ctx, method, req) // go-sdk's loop answers
			}
			busy := 0
			for round := 1; ; round++ {
				res, err := next(ctx, method, req)
				if err != nil {
					return res, err
				}
				reqs, state, asks := inputRequests(res)
				if !asks {
					return res, nil
				}
				if round >= maxInputRounds {
					return nil, hostError{fmt.Errorf("server %q still asks for input after %d rounds", server, maxInputRounds)}
				}
				if len(reqs) == 0 {
					if busy++; busy >= maxBusyRounds {
						return nil, hostError{fmt.Errorf("server %q is busy (it asked for no input %d times)", server, busy)}
					}
					select {
					case <-time.After(time.Duration(busy) * busyPause):
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					continue
				}
				answers, err := h.answerInputs(ctx, server, reqs)
				if err != nil {
					return nil, hostError{err}
				}
				if req, err = retryWith(cs, req, answers, state); err != nil {
					return nil, hostError{err}
				}
			}
		}
	}
}

// answerInputs asks the InputHandler, checking elicitation forms and the
// accepted answers to them by the specification's rules, as the host does
// for elicitations sent in the middle of a call (elicitReceiver).
func (h *Host) answerInputs(ctx context.Context, server string, reqs mcp.InputRequestMap) (mcp.InputResponseMap, error) {
	forms := map[string]*elicitForm{}
	for key, r := range reqs {
		if ep, ok := r.(*mcp.ElicitParams); ok {
			f, err := checkElicitParams(ep)
			if err != nil {
				return nil, fmt.Errorf("server %q: input request %q: %w", server, key, err)
			}
			forms[key] = f
		}
	}
	answers, err := h.opts.inputs(ctx, server, reqs)
	if err != nil {
		return nil, err
	}
	for key, a := range answers {
		if _, asked := reqs[key]; !asked {
			delete(answers, key) // the server did not ask it
			continue
		}
		if f := forms[key]; f != nil {
			res, ok := a.(*mcp.ElicitResult)
			if !ok {
				return nil, fmt.Errorf("server %q: input request %q: an elicitation answered with %T", server, key, a)
			}
			if err := f.checkAnswer(res); err != nil {
				return nil, fmt.Errorf("server %q: input request %q: %w", server, key, err)
			}
		}
	}
	return answers, nil
}

// inputRequests returns what a result asks for; asks is false for a
// complete result.
func inputRequests(res mcp.Result) (reqs mcp.InputRequestMap, state string, asks bool) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		if r != nil {
			return r.InputRequests, r.RequestState, r.InputRequests != nil
		}
	case *mcp.GetPromptResult:
		if r != nil {
			return r.InputRequests, r.RequestState, r.InputRequests != nil
		}
	case *mcp.ReadResourceResult:
		if r != nil {
			return r.InputRequests, r.RequestState, r.InputRequests != nil
		}
	}
	return nil, "", false
}

// retryWith is req with the answers and the server's state (none on a
// first request); the params are copied, the caller's are not changed.
func retryWith(cs *mcp.ClientSession, req mcp.Request, answers mcp.InputResponseMap, state string) (mcp.Request, error) {
	var params mcp.Params
	switch p := req.GetParams().(type) {
	case *mcp.CallToolParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		params = &cp
	case *mcp.GetPromptParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		params = &cp
	case *mcp.ReadResourceParams:
		cp := *p
		cp.InputResponses, cp.RequestState = answers, state
		params = &cp
	default:
		return nil, errors.New("input requests in the answer to a request that cannot carry answers")
	}
	return &mcp.ClientRequest[mcp.Params]{Session: cs, Params: params}, nil
}

// capabilitiesMeta is caps as the _meta entry carries them: roots as an
// object only when declared (go-sdk's ClientCapabilities always encodes it).
func capabilitiesMeta(caps *mcp.ClientCapabilities) map[string]any {
	m := map[string]any{}
	if caps.Elicitation != nil {
		m["elicitation"] = caps.Elicitation
	}
	if caps.Sampling != nil {
		m["sampling"] = caps.Sampling
	}
	switch {
	case caps.RootsV2 != nil:
		m["roots"] = caps.RootsV2
	case caps.Roots.ListChanged:
		m["roots"] = &mcp.RootCapabilities{ListChanged: true}
	}
	if len(caps.Experimental) > 0 {
		m["experimental"] = caps.Experimental
	}
	if len(caps.Extensions) > 0 {
		m["extensions"] = caps.Extensions
	}
	return m
}

package gateway

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// olderRounds bounds the rounds mcphost plays for a request of a client
// older than 2026-07-28 (go-sdk's server plays one more within each; the
// host's own bound on a backend's rounds usually ends it first).
const olderRounds = 10

// askOlder plays further rounds for a client older than 2026-07-28: go-sdk
// sends one round of input requests to such a client and calls the
// handler again once; a request that asks again (a policy's confirmation
// and a backend's question, or a backend asking in several rounds) would
// otherwise reach the client as an empty result. Each round's requests
// are sent to the client one at a time, as a person answers them, and the
// request is made again with the answers, at most olderRounds times.
func askOlder(ctx context.Context, ss *mcp.ServerSession, method string, req mcp.Request, res mcp.Result,
	next mcp.MethodHandler) (mcp.Result, error) {
	for round := 0; asksClient(res); round++ {
		if round == olderRounds {
			return nil, fmt.Errorf("gateway: %s asked for input more than %d times", method, olderRounds)
		}
		reqs, state := inputRequestsOf(res)
		answers := mcp.InputResponseMap{}
		for id, ir := range reqs {
			// As long as a 2026-07-28 client gets to answer a round.
			actx, cancel := context.WithTimeout(ctx, resumeWait)
			a, err := askDirectly(actx, ss, ir)
			cancel()
			if err != nil {
				return nil, fmt.Errorf("gateway: asking the client: %w", err)
			}
			answers[id] = a
		}
		retry, err := withAnswers(req, answers, state)
		if err != nil {
			return nil, err
		}
		if res, err = next(ctx, method, retry); err != nil {
			return res, err
		}
	}
	return res, nil
}

func askDirectly(ctx context.Context, ss *mcp.ServerSession, ir mcp.InputRequest) (mcp.InputResponse, error) {
	switch p := ir.(type) {
	case *mcp.ElicitParams:
		return ss.Elicit(ctx, p)
	case *mcp.CreateMessageParams:
		return ss.CreateMessage(ctx, p)
	case *mcp.CreateMessageWithToolsParams:
		return ss.CreateMessageWithTools(ctx, p)
	case *mcp.ListRootsParams:
		return ss.ListRoots(ctx, p)
	}
	return nil, fmt.Errorf("an input request of type %T", ir)
}

// inputRequestsOf is what a result asks the client, with the state to
// answer under (none for a complete result, or no result).
func inputRequestsOf(res mcp.Result) (mcp.InputRequestMap, string) {
	switch r := res.(type) {
	case *mcp.CallToolResult:
		if r != nil {
			return r.InputRequests, r.RequestState
		}
	case *mcp.GetPromptResult:
		if r != nil {
			return r.InputRequests, r.RequestState
		}
	case *mcp.ReadResourceResult:
		if r != nil {
			return r.InputRequests, r.RequestState
		}
	}
	return nil, ""
}

// withAnswers is req made again with the answers and the request state;
// the client's own params are copied, never changed.
func withAnswers(req mcp.Request, answers mcp.InputResponseMap, state string) (mcp.Request, error) {
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		p := *r.Params
		p.InputResponses, p.RequestState = answers, state
		return &mcp.CallToolRequest{Session: r.Session, Params: &p, Extra: r.Extra}, nil
	case *mcp.GetPromptRequest:
		p := *r.Params
		p.InputResponses, p.RequestState = answers, state
		return &mcp.GetPromptRequest{Session: r.Session, Params: &p, Extra: r.Extra}, nil
	case *mcp.ReadResourceRequest:
		p := *r.Params
		p.InputResponses, p.RequestState = answers, state
		return &mcp.ReadResourceRequest{Session: r.Session, Params: &p, Extra: r.Extra}, nil
	}
	return nil, fmt.Errorf("gateway: cannot ask again in a request of type %T", req)
}

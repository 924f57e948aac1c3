package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
)

// Relay carries what a call needs of "the user" to the gateway client that
// made the call: a backend's elicitation or sampling request, and a
// policy's confirm decision.
//
// It works the way protocol 2026-07-28 asks (multi round-trip requests,
// SEP-2322): the call runs on, waiting, while the gateway answers the
// client's tools/call with the input requests and a request state; the
// client answers them in a retried tools/call carrying that state, and the
// call continues. go-sdk plays the older protocols' part (it sends the
// requests to older clients itself), so one mechanism serves every client.
//
// A confirmation comes with the call's context, so its call is known
// exactly. A backend's request carries no link to the call it belongs to
// (stdio has none at all): it goes to the latest call waiting on that
// backend — exact when one client at a time uses a backend, a best guess
// otherwise — and is declined when there is none.
type Relay struct {
	// logTo forwards backends' log messages (the gateway's LogMessages).
	logTo atomic.Pointer[func(string, *mcp.LoggingMessageParams)]
	// stageTo traces the pipeline's stages (the gateway's StageSpans).
	stageTo atomic.Pointer[func(context.Context, host.AuditEvent)]
	// updatesTo passes resource updates on (the gateway's resourceUpdated).
	updatesTo atomic.Pointer[func(string, string)]

	// wait is how long a call waits for its client's answers (resumeWait).
	wait time.Duration

	mu      sync.Mutex
	pending map[string]*pending   // by request state
	byBack  map[string][]*pending // backend id → calls in flight, latest last
}

// NewRelay returns a relay; give its HostOptions to host.New and the relay
// to the Gateway.
func NewRelay() *Relay {
	return &Relay{wait: resumeWait, pending: map[string]*pending{}, byBack: map[string][]*pending{}}
}

// HostOptions are the host's handlers that relay to clients.
func (r *Relay) HostOptions() []host.Option {
	return []host.Option{
		host.WithElicitationHandler(r.elicit),
		host.WithSamplingHandler(r.sample),
		host.WithConfirmer(r.confirm),
		host.WithLogMessages(func(server string, p *mcp.LoggingMessageParams) {
			if fn := r.logTo.Load(); fn != nil {
				(*fn)(server, p)
			}
		}),
		host.WithResourceUpdates(func(server, uri string) {
			if fn := r.updatesTo.Load(); fn != nil {
				(*fn)(server, uri)
			}
		}),
		host.WithStageObserver(func(ctx context.Context, e host.AuditEvent) {
			if fn := r.stageTo.Load(); fn != nil {
				(*fn)(ctx, e)
			}
		}),
	}
}

// resumeWait bounds how long a call waits for its client to answer input
// requests.
const resumeWait = 2 * time.Minute

// pending is one client call in flight.
type pending struct {
	state   string
	backend string
	caller  string // identity of the caller: only it may resume
	caps    *mcp.ClientCapabilities
	ctx     context.Context // the call's: done when it ends
	cancel  context.CancelFunc

	asks chan asked
	done chan outcome

	mu      sync.Mutex
	waiting map[string]chan mcp.InputResponse
}

type asked struct {
	id  string
	req mcp.InputRequest
}

type outcome struct {
	res *mcp.CallToolResult
	err error
}

type pendingKey struct{}

func newID() string { return rand.Text() }

// start runs call as a new pending call for a client.
func (r *Relay) start(ctx context.Context, backend, caller string, caps *mcp.ClientCapabilities,
	call func(context.Context) (*mcp.CallToolResult, error)) *pending {
	if caps == nil {
		caps = &mcp.ClientCapabilities{}
	}
	// The call outlives the request that started it when it asks the
	// client for input; it ends with its result, a cancel, or resumeWait.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.wait)
	p := &pending{state: newID(), backend: backend, caller: caller, caps: caps, ctx: cctx, cancel: cancel,
		asks: make(chan asked), done: make(chan outcome, 1), waiting: map[string]chan mcp.InputResponse{}}
	r.mu.Lock()
	r.pending[p.state] = p
	r.byBack[backend] = append(r.byBack[backend], p)
	r.mu.Unlock()
	go func() {
		res, err := call(context.WithValue(cctx, pendingKey{}, p))
		p.done <- outcome{res, err} // buffered: never blocks
		// A client that asked no more (it went away after input
		// requests) leaves the result here: the call is forgotten when
		// its time is up, or at once when next has taken the result.
		<-cctx.Done()
		r.finish(p)
	}()
	return p
}

// resume finds the pending call of a request state, for its caller only.
func (r *Relay) resume(state, caller string) *pending {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending[state]
	if p == nil || p.caller != caller {
		return nil
	}
	return p
}

func (r *Relay) finish(p *pending) {
	p.cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending[p.state] == p {
		delete(r.pending, p.state)
	}
	list := r.byBack[p.backend]
	for i, q := range list {
		if q == p {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(r.byBack, p.backend)
	} else {
		r.byBack[p.backend] = list
	}
}

// next waits for the call's result, or for what it asks the client: then
// the answer to the client is the input requests and the call's state.
func (r *Relay) next(ctx context.Context, p *pending) (*mcp.CallToolResult, error) {
	select {
	case o := <-p.done:
		r.finish(p)
		return o.res, o.err
	case a := <-p.asks:
		reqs := mcp.InputRequestMap{a.id: a.req}
		// Whatever else the call asks at the same moment goes along.
		for more := true; more; {
			select {
			case b := <-p.asks:
				reqs[b.id] = b.req
			default:
				more = false
			}
		}
		// Each round gets a state of its own: an answer to an earlier
		// round (a replay) is refused.
		r.mu.Lock()
		delete(r.pending, p.state)
		p.state = newID()
		r.pending[p.state] = p
		r.mu.Unlock()
		if rs, ok := ctx.Value(roundsKey{}).(*rounds); ok {
			rs.mu.Lock()
			rs.calls = append(rs.calls, p)
			rs.mu.Unlock()
		}
		return &mcp.CallToolResult{InputRequests: reqs, RequestState: p.state}, nil
	case <-ctx.Done():
		// The client gave up on the call (cancelled it, or went away).
		r.finish(p)
		return nil, ctx.Err()
	}
}

// rounds records, for one tools/call request, the calls whose input
// requests were handed out while serving it.
type rounds struct {
	mu    sync.Mutex
	calls []*pending
}

type roundsKey struct{}

// endUnanswered ends a call whose input requests will never be answered.
// For a client older than 2026-07-28, go-sdk fulfils the input requests
// itself (it sends them as requests of their own) and calls the tool again
// with the answers, all within one tools/call; when that fails (the
// client refuses, goes away, answers nonsense) the call would wait for
// resumeWait, and its backend's next requests would look like another
// caller's. So: the request over without input requests to answer later,
// every call that asked something in it ends now.
func (r *Relay) endUnanswered(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		rs := &rounds{}
		res, err := next(context.WithValue(ctx, roundsKey{}, rs), method, req)
		if tr, ok := res.(*mcp.CallToolResult); ok && err == nil && len(tr.InputRequests) > 0 {
			return res, err // the client answers in a request of its own
		}
		rs.mu.Lock()
		for _, p := range rs.calls {
			r.finish(p)
		}
		rs.mu.Unlock()
		return res, err
	}
}

// answer delivers the client's responses to the waiting askers.
func (p *pending) answer(responses mcp.InputResponseMap) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, resp := range responses {
		if ch, ok := p.waiting[id]; ok {
			delete(p.waiting, id)
			ch <- resp
		}
	}
}

// ask puts an input request to the call's client and waits for the answer.
func (p *pending) ask(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	id := newID()
	ch := make(chan mcp.InputResponse, 1)
	p.mu.Lock()
	p.waiting[id] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.waiting, id)
		p.mu.Unlock()
	}()
	select {
	case p.asks <- asked{id, req}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.ctx.Done():
		return nil, errors.New("the call this request belongs to has ended")
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.ctx.Done():
		return nil, errors.New("the call this request belongs to has ended")
	}
}

// latest is the call waiting on backend that a backend's request belongs
// to: the latest live one, provided every live call on that backend is the
// same caller's. With calls of several callers in flight the request could
// be any one's, and going to the wrong one would show one caller's
// question (or sampling messages) to another: nil, and it is declined.
func (r *Relay) latest(backend string) *pending {
	r.mu.Lock()
	defer r.mu.Unlock()
	var found *pending
	for _, p := range r.byBack[backend] {
		if p.ctx.Err() != nil {
			continue
		}
		if found != nil && found.caller != p.caller {
			return nil
		}
		found = p
	}
	return found
}

// callOf is the pending call of ctx (a confirmation), else the latest one
// on backend.
func (r *Relay) callOf(ctx context.Context, backend string) *pending {
	if p, ok := ctx.Value(pendingKey{}).(*pending); ok {
		return p
	}
	return r.latest(backend)
}

func (r *Relay) elicit(ctx context.Context, server string, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	p := r.callOf(ctx, server)
	if p == nil || p.caps.Elicitation == nil {
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
// confirmed, as an elicitation; a client that cannot elicit gets a denial.
func (r *Relay) confirm(ctx context.Context, req host.ConfirmRequest) (bool, error) {
	p, _ := ctx.Value(pendingKey{}).(*pending)
	if p == nil || p.caps.Elicitation == nil {
		return false, nil
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

// waitIdle waits until no call is in flight (true), or ctx ends (false).
func (r *Relay) waitIdle(ctx context.Context) bool {
	for {
		r.mu.Lock()
		n := len(r.pending)
		r.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

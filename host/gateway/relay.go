package gateway

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
)

// Relay carries what a call needs of "the user" to the gateway client that
// made the call: a backend's elicitation, sampling or roots request, and a
// policy's confirm decision.
//
// It works the way protocol 2026-07-28 asks (multi round-trip requests,
// SEP-2322): the call runs on, waiting, while the gateway answers the
// client's request (tools/call, prompts/get, resources/read) with the input
// requests and a request state; the client answers them in a retried
// request carrying that state, and the call continues. go-sdk plays the
// older protocols' part (it sends the requests to older clients itself), so
// one mechanism serves every client.
//
// A confirmation, and the input requests a 2026-07-28 backend returns in
// its result, come with the call's context, so their call is known exactly;
// the backend's keys are kept, and the backend sees the caller's
// capabilities, so that it asks only what the caller can answer. A request
// an older backend sends in the middle of a call carries no link to the
// call it belongs to (stdio has none at all): it goes to the call waiting
// on that backend when all the calls waiting there are one client's, and is
// declined otherwise. Backends' log messages follow the same rule (logs.go).
//
// Backends that pin no protocol_version are spoken to at 2025-11-25 (see
// HostOptions), unless the gateway's clients hold no sessions
// (StatelessClients).
type Relay struct {
	// logTo forwards backends' log messages (the gateway's LogMessages).
	logTo atomic.Pointer[func(string, *mcp.LoggingMessageParams)]
	// stageTo traces the pipeline's stages (the gateway's StageSpans).
	stageTo atomic.Pointer[func(context.Context, host.AuditEvent)]
	// updatesTo passes resource updates on (the gateway's resourceUpdated).
	updatesTo atomic.Pointer[func(string, string)]

	// wait is how long a call waits for its client's answers (resumeWait).
	wait time.Duration
	// stateless: the gateway's clients hold no sessions (StatelessClients).
	stateless bool

	mu        sync.Mutex
	pending   map[string]*pending   // by request state
	perCaller map[string]int        // requests in flight by caller key
	byBack    map[string][]*pending // backend id → calls in flight, latest last
}

// NewRelay returns a relay; give its HostOptions to host.New and the relay
// to the Gateway.
func NewRelay(opts ...RelayOption) *Relay {
	r := &Relay{wait: resumeWait, pending: map[string]*pending{}, perCaller: map[string]int{}, byBack: map[string][]*pending{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// A RelayOption configures NewRelay.
type RelayOption func(*Relay)

// StatelessClients is for a gateway that serves stateless HTTP: its clients
// hold no sessions, so the only way to ask them anything is the input
// requests of protocol 2026-07-28, and backends that pin no
// protocol_version negotiate it as the host does by default.
func StatelessClients() RelayOption {
	return func(r *Relay) { r.stateless = true }
}

// sessionProtocol is the protocol spoken to backends that pin none when the
// gateway's clients hold sessions (stdio, stateful HTTP, SSE): the newest in
// which a server may ask its client in the middle of a call. At 2026-07-28 a
// server may not (SDKs refuse it), so a server written that way — most
// servers that sample, elicit or log — would fail those calls through the
// gateway while passing them when a client of that protocol calls it
// directly. A backend that returns input requests instead is answered at
// this version by its SDK, which sends them in the middle of the call.
const sessionProtocol = "2025-11-25"

// HostOptions are the host's handlers that relay to clients, and the
// protocol spoken to backends that pin none (sessionProtocol, unless
// StatelessClients).
func (r *Relay) HostOptions() []host.Option {
	opts := []host.Option{
		host.WithElicitationHandler(r.elicit),
		host.WithSamplingHandler(r.sample),
		host.WithInputHandler(r.inputs),
		host.WithConfirmer(r.confirm),
		host.WithOrderedLogMessages(r.log),
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
	if !r.stateless {
		opts = append(opts, host.WithDefaultProtocolVersion(sessionProtocol))
	}
	return opts
}

// resumeWait bounds how long a call waits for its client to answer input
// requests.
const resumeWait = 2 * time.Minute

const (
	// maxInputRequests bounds the input requests of one round.
	maxInputRequests = 64
	// maxKeyBytes bounds a backend's key that the client sees as it is;
	// a longer one is replaced.
	maxKeyBytes = 256
)

// pending is one client request in flight whose handling may ask the client
// for input: a tools/call, prompts/get or resources/read.
type pending struct {
	state   string
	backend string
	caller  string // identity of the caller: only it may resume
	conn    any    // the client's connection (its *mcp.ServerSession)
	what    string // the request ("tools/call name"): a state answers only it
	caps    *mcp.ClientCapabilities
	ctx     context.Context // the call's: done when it ends
	cancel  context.CancelFunc
	wait    time.Duration // how long it waits for its client's answers

	asks chan []asked // what the call asks the client, a round's worth at once
	done chan outcome

	mu      sync.Mutex
	waiting map[string]*waiter // by the key the client sees

	logs callLogs // the backend's log lines on their way to the client

	finished bool // set by finish, under the relay's mu
}

type asked struct {
	id  string
	req mcp.InputRequest
}

// waiter is an input request waiting for the client's answer.
type waiter struct {
	req    mcp.InputRequest
	answer chan mcp.InputResponse // buffered: one answer
	handed bool                   // given to the client in a round
}

type outcome struct {
	res mcp.Result
	err error
}

type pendingKey struct{}

func newID() string { return rand.Text() }

// start runs call as a new pending request of a client.
func (r *Relay) start(ctx context.Context, backend, caller string, conn any, what string, caps *mcp.ClientCapabilities,
	call func(context.Context) (mcp.Result, error)) (*pending, error) {
	if caps == nil {
		caps = &mcp.ClientCapabilities{}
	}
	// The call outlives the request that started it when it asks the
	// client for input; it ends with its result, a cancel, or its client
	// not answering within resumeWait.
	r.mu.Lock()
	who := identityOf(caller)
	if len(r.pending) >= maxPending || r.perCaller[who] >= maxPendingPerCaller {
		r.mu.Unlock()
		return nil, errTooManyPending
	}
	// No deadline of its own: the host's request_timeout bounds the call;
	// the relay bounds only the waits for the client (askAll, and a result
	// nobody comes for).
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	p := &pending{state: newID(), backend: backend, caller: caller, conn: conn, what: what, caps: caps, ctx: cctx, cancel: cancel, wait: r.wait,
		asks: make(chan []asked), done: make(chan outcome, 1), waiting: map[string]*waiter{}}
	r.pending[p.state] = p
	r.byBack[backend] = append(r.byBack[backend], p)
	r.perCaller[who]++
	r.mu.Unlock()
	go func() {
		res, err := callSafely(context.WithValue(cctx, pendingKey{}, p), call)
		p.done <- outcome{res, err} // buffered: never blocks
		// A client that asked no more (it went away after input
		// requests) leaves the result here: the call is forgotten when
		// its time is up, or at once when next has taken the result.
		unclaimed := time.NewTimer(r.wait)
		defer unclaimed.Stop()
		select {
		case <-cctx.Done():
		case <-unclaimed.C:
		}
		r.finish(p)
	}()
	return p, nil
}

// identityOf is who a caller key (resumeKey: identity and session) counts
// as for the bounds: its identity, so that one token cannot take every
// slot by opening sessions; the whole key when there is no identity.
func identityOf(caller string) string {
	if who, _, _ := strings.Cut(caller, "\x00"); who != "" {
		return who
	}
	return caller
}

// Bounds on the requests in flight: each holds a goroutine and, while it
// waits for its client, a backend request, for up to resumeWait after its
// client went away.
const (
	maxPending          = 4096
	maxPendingPerCaller = 256
)

var errTooManyPending = errors.New("gateway: too many requests in flight for this caller (or in all); retry when some have finished")

// callSafely runs call, a panic in it becoming its error: the call runs on
// a goroutine of its own, where a panic would end the gateway and every
// caller's session with it.
func callSafely(ctx context.Context, call func(context.Context) (mcp.Result, error)) (res mcp.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, fmt.Errorf("gateway: the request failed inside mcphost (%T)", v)
		}
	}()
	return call(ctx)
}

// resume finds the pending request of a request state, for its caller and
// the same request only.
func (r *Relay) resume(state, caller, what string) *pending {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending[state]
	if p == nil || p.caller != caller || p.what != what {
		return nil
	}
	return p
}

func (r *Relay) finish(p *pending) {
	p.cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	if who := identityOf(p.caller); r.perCaller[who] > 1 {
		r.perCaller[who]--
	} else {
		delete(r.perCaller, who)
	}
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

// step is what a client's request gets: the call's result, or input
// requests with the state to answer them under.
type step struct {
	res   mcp.Result
	asks  mcp.InputRequestMap
	state string
}

// next waits for the call's result, or for what it asks the client. Input
// requests the client was given and left unanswered go out again at once
// (SEP-2322: re-request what is missing), with whatever else is asked.
func (r *Relay) next(ctx context.Context, p *pending) (step, error) {
	reqs := p.unanswered()
	if len(reqs) == 0 {
		select {
		case o := <-p.done:
			// The call's log lines reach its client before its result.
			p.flushLogs(ctx)
			r.finish(p)
			return step{res: o.res}, o.err
		case batch := <-p.asks:
			reqs = mcp.InputRequestMap{}
			for _, a := range batch {
				reqs[a.id] = a.req
			}
		case <-ctx.Done():
			// The client gave up on the call (cancelled it, or went away).
			r.finish(p)
			return step{}, ctx.Err()
		case <-p.ctx.Done():
			// Ended (another resume took its result, or its time is up):
			// a result that came at the same moment still wins.
			select {
			case o := <-p.done:
				r.finish(p)
				return step{res: o.res}, o.err
			default:
			}
			r.finish(p)
			return step{}, errCallEnded
		}
	}
	// Whatever else the call asks at the same moment goes along.
	for more := true; more; {
		select {
		case batch := <-p.asks:
			for _, a := range batch {
				reqs[a.id] = a.req
			}
		default:
			more = false
		}
	}
	p.mu.Lock()
	for id := range reqs {
		if w := p.waiting[id]; w != nil {
			w.handed = true
		}
	}
	p.mu.Unlock()
	// Each round gets a state of its own: an answer to an earlier round (a
	// replay) is refused.
	r.mu.Lock()
	if p.finished {
		// Ended while its questions were gathered: nobody can answer.
		r.mu.Unlock()
		return step{}, errCallEnded
	}
	delete(r.pending, p.state)
	p.state = newID()
	r.pending[p.state] = p
	state := p.state
	r.mu.Unlock()
	if rs, ok := ctx.Value(roundsKey{}).(*rounds); ok {
		rs.mu.Lock()
		rs.calls = append(rs.calls, p)
		rs.mu.Unlock()
	}
	return step{asks: reqs, state: state}, nil
}

var errCallEnded = errors.New("gateway: the request ended before it could ask its client")

// unanswered are the input requests handed to the client and not answered.
func (p *pending) unanswered() mcp.InputRequestMap {
	p.mu.Lock()
	defer p.mu.Unlock()
	var reqs mcp.InputRequestMap
	for id, w := range p.waiting {
		if w.handed {
			if reqs == nil {
				reqs = mcp.InputRequestMap{}
			}
			reqs[id] = w.req
		}
	}
	return reqs
}

// rounds records, for one client request, the calls whose input requests
// were handed out while serving it.
type rounds struct {
	mu    sync.Mutex
	calls []*pending
}

type roundsKey struct{}

// endUnanswered ends a call whose input requests will never be answered.
// For a client older than 2026-07-28, go-sdk fulfils the input requests
// itself (it sends them as requests of their own) and makes the request
// again with the answers, all within one client request; when that fails
// (the client refuses, goes away, answers nonsense) the call would wait for
// resumeWait, and its backend's next requests would look like another
// caller's. So: the request over without input requests to answer later,
// every call that asked something in it ends now.
func (r *Relay) endUnanswered(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call", "prompts/get", "resources/read":
		default:
			return next(ctx, method, req)
		}
		rs := &rounds{}
		rctx := context.WithValue(ctx, roundsKey{}, rs)
		res, err := next(rctx, method, req)
		if ss, _ := req.GetSession().(*mcp.ServerSession); olderClient(ss) && err == nil && asksClient(res) {
			res, err = askOlder(rctx, ss, method, req, res, next)
		}
		if err == nil && asksClient(res) {
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

// asksClient reports whether a result hands input requests to the client.
func asksClient(res mcp.Result) bool {
	reqs, _ := inputRequestsOf(res)
	return len(reqs) > 0
}

// answer delivers the client's responses to the waiting askers; an answer
// to a request the client was not given is ignored.
func (p *pending) answer(responses mcp.InputResponseMap) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, resp := range responses {
		if w, ok := p.waiting[id]; ok && w.handed {
			delete(p.waiting, id)
			w.answer <- resp // buffered, and removed: never blocks
		}
	}
}

// ask puts one input request to the call's client and waits for the answer.
func (p *pending) ask(ctx context.Context, req mcp.InputRequest) (mcp.InputResponse, error) {
	answers, err := p.askAll(ctx, mcp.InputRequestMap{newID(): req}, false)
	if err != nil {
		return nil, err
	}
	for _, a := range answers {
		return a, nil
	}
	return nil, errors.New("no answer")
}

// askAll puts input requests to the call's client in one round and waits
// for all the answers, returned under the keys of reqs. With keepKeys the
// client sees those keys (a backend's own, which it may show or log), unless
// one is taken by another request of the call or too long: then a key of
// the gateway's, mapped back here.
func (p *pending) askAll(ctx context.Context, reqs mcp.InputRequestMap, keepKeys bool) (mcp.InputResponseMap, error) {
	if len(reqs) > maxInputRequests {
		return nil, fmt.Errorf("%d input requests at once (at most %d)", len(reqs), maxInputRequests)
	}
	keys := make(map[string]string, len(reqs)) // the client's key → reqs's
	mine := make(map[string]*waiter, len(reqs))
	batch := make([]asked, 0, len(reqs))
	p.mu.Lock()
	if len(p.waiting)+len(reqs) > maxInputRequests {
		// Many askers at once (a backend's concurrent requests) count
		// together: what one client is shown stays bounded.
		p.mu.Unlock()
		return nil, fmt.Errorf("more than %d input requests waiting at once", maxInputRequests)
	}
	for key, req := range reqs {
		id := key
		if _, taken := p.waiting[id]; !keepKeys || taken || id == "" || len(id) > maxKeyBytes {
			id = newID()
		}
		w := &waiter{req: req, answer: make(chan mcp.InputResponse, 1)}
		p.waiting[id], mine[id] = w, w
		keys[id] = key
		batch = append(batch, asked{id, req})
	}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		for id := range keys {
			delete(p.waiting, id)
		}
		p.mu.Unlock()
	}()
	ended := errors.New("the call this request belongs to has ended")
	late := time.NewTimer(p.wait)
	defer late.Stop()
	unanswered := fmt.Errorf("the client did not answer within %s", p.wait)
	select {
	case p.asks <- batch:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.ctx.Done():
		return nil, ended
	case <-late.C:
		return nil, unanswered
	}
	out := make(mcp.InputResponseMap, len(keys))
	for id, key := range keys {
		select {
		case resp := <-mine[id].answer:
			out[key] = resp
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-p.ctx.Done():
			return nil, ended
		case <-late.C:
			return nil, unanswered
		}
	}
	return out, nil
}

// latest is the call waiting on backend that a backend's request belongs
// to: the latest live one, provided every live call on that backend is the
// same caller's. With calls of several callers in flight the request could
// be any one's, and going to the wrong one would show one caller's
// question (or sampling messages) to another: nil, and it is declined.
func (r *Relay) latest(backend string) *pending {
	p, _ := r.live(backend)
	return p
}

// live is latest, and whether any call is live on backend at all.
func (r *Relay) live(backend string) (p *pending, busy bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var found *pending
	for _, p := range r.byBack[backend] {
		if p.ctx.Err() != nil {
			continue
		}
		// Two connections of one caller (clients sharing a token without
		// sessions: stateless HTTP gives every request a connection of its
		// own) are as ambiguous as two callers.
		if found != nil && !sameClient(found, p) {
			return nil, true
		}
		found = p
	}
	return found, found != nil
}

func sameClient(a, b *pending) bool { return a.caller == b.caller && a.conn == b.conn }

// callOf is the pending call of ctx (a confirmation), else the latest one on
// backend (a backend's request in the middle of a call, which carries no
// link to it).
func (r *Relay) callOf(ctx context.Context, backend string) *pending {
	if p, ok := ctx.Value(pendingKey{}).(*pending); ok {
		return p
	}
	return r.latest(backend)
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

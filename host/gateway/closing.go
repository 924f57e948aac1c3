package gateway

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// go-sdk's ServerSession.Close waits for every request of the session in
// flight, and cancels none but the subscriptions/listen it has started. A
// request that waits on its client would hold the close, and with it the
// gateway's shutdown, an eviction or an idle timeout, for ever: a question
// go-sdk puts to a client older than 2026-07-28 on a handler's behalf (it
// has only the request's context, which a client going away does not end on
// Streamable HTTP), or a subscriptions/listen that go-sdk had accepted but
// not yet started when the close began (it parks until its client cancels
// it). So the gateway closes a session through closeSession, which cancels
// the session's requests first, and gives every request it sends a client
// a deadline.

// errSessionClosed is the cause of the requests the gateway cancels when it
// closes their session.
var errSessionClosed = errors.New("gateway: the client's session was closed (the gateway is stopping, the client's stream ended, or the session was idle too long or made room for a newer one)")

// inflight knows the client sessions that have requests in flight or are
// being closed, so that closing a session can cancel its requests.
type inflight struct {
	mu sync.Mutex
	// bySession holds an entry only while it is used: the requests and the
	// closes under way hold it.
	bySession map[*mcp.ServerSession]*sessionWork
}

// sessionWork is one session's requests in flight.
type sessionWork struct {
	ctx    context.Context // done when the gateway closes the session
	cancel context.CancelCauseFunc
	users  int
}

func (f *inflight) hold(ss *mcp.ServerSession) *sessionWork {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bySession == nil {
		f.bySession = map[*mcp.ServerSession]*sessionWork{}
	}
	w := f.bySession[ss]
	if w == nil {
		ctx, cancel := context.WithCancelCause(context.Background())
		w = &sessionWork{ctx: ctx, cancel: cancel}
		f.bySession[ss] = w
	}
	w.users++
	return w
}

func (f *inflight) release(ss *mcp.ServerSession, w *sessionWork) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.users--; w.users == 0 {
		w.cancel(nil)
		delete(f.bySession, ss)
	}
}

// cancelOnClose is the server's outermost receiving middleware: every
// request of a session, go-sdk's own handling included, ends when the
// gateway closes the session.
func (f *inflight) cancelOnClose(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok || ss == nil {
			return next(ctx, method, req)
		}
		w := f.hold(ss)
		defer f.release(ss, w)
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(w.ctx, func() { cancel(context.Cause(w.ctx)) })
		defer stop()
		return next(ctx, method, req)
	}
}

// closeSession closes ss in bounded time: its requests in flight are
// cancelled first, and so is any that go-sdk accepted before the close and
// starts after it (the entry is held until the close has ended, and
// go-sdk takes no request in once the close has begun).
func (f *inflight) closeSession(ss *mcp.ServerSession) {
	w := f.hold(ss)
	defer f.release(ss, w)
	w.cancel(errSessionClosed)
	ss.Close()
}

// CloseSessions ends every client session of the gateway, in bounded time:
// the requests in flight are cancelled, including those waiting on a
// client that will never answer. Serve calls it when it stops; call it when
// serving HTTPHandler from a server of your own.
func (g *Gateway) CloseSessions() {
	var all []*mcp.ServerSession
	var held []*sessionWork
	for ss := range g.srv.Sessions() {
		// Every session's requests are told at once, and wind down
		// together while the sessions close one after another.
		w := g.inflight.hold(ss)
		w.cancel(errSessionClosed)
		all, held = append(all, ss), append(held, w)
	}
	for i, ss := range all {
		ss.Close()
		g.inflight.release(ss, held[i])
	}
}

// Run serves one client over t (stdio) until the client leaves or ctx
// ends; then it closes the session as CloseSessions does. go-sdk's
// Server.Run closes it with ServerSession.Close alone, which can wait for
// ever (see closeSession).
func (g *Gateway) Run(ctx context.Context, t mcp.Transport) error {
	ss, err := g.srv.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
		g.inflight.closeSession(ss)
		<-ended
		return ctx.Err()
	}
}

// boundClientRequests is the server's sending middleware: a request the
// gateway sends a client (an elicitation, a sampling or roots request, a
// ping) waits for its answer at most as long as the relay waits for a
// client's answers, whoever sends it. go-sdk sends the questions of a
// handler to a client older than 2026-07-28 itself, under the handler's
// context, which has no deadline of its own.
func (g *Gateway) boundClientRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithTimeoutCause(ctx, g.relay.wait, errNoAnswer)
		defer cancel()
		res, err := next(ctx, method, req)
		if err != nil && errors.Is(context.Cause(ctx), errNoAnswer) {
			return nil, fmt.Errorf("gateway: the client did not answer %s within %s (%w)", method, g.relay.wait, err)
		}
		return res, err
	}
}

// errNoAnswer is the cause of a request to a client that ran out of time.
var errNoAnswer = errors.New("no answer from the client in time")

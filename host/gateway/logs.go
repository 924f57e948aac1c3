package gateway

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A backend's log message (notifications/message) carries no link to the
// call it is about, as a backend's request in the middle of a call carries
// none: it follows the rule of those requests (Relay.latest). A line that
// comes while calls of one client wait on its backend goes to that client
// only, on the call's stream, before the call's result. A line that could
// be either of two clients' goes to neither. A line while no call waits on
// that backend goes to every client when the gateway forwards logs
// (Options.ForwardLogs), else nowhere. The host hands a line on as its
// transport reads it (host.WithOrderedLogMessages), so a line written
// during a call comes while the call is in flight; over Streamable HTTP,
// go-sdk's own transport, it may come after, and goes to no caller of its
// own.

const (
	// maxQueuedLogs bounds the lines of one call waiting to be sent: a
	// flood beyond is dropped.
	maxQueuedLogs = 64
	// logSendWait bounds sending one line to a client, and how long a
	// call's result waits for its lines to be sent.
	logSendWait = 5 * time.Second
)

// log passes a backend's log message on by the rule above. A line that
// did not come in order with the backend's answers (Streamable HTTP) may be
// about a call that has ended, whoever's call waits now: it goes to no
// caller of its own.
func (r *Relay) log(server string, params *mcp.LoggingMessageParams, inOrder bool) {
	p, busy := r.live(server)
	switch {
	case p != nil && inOrder:
		p.queueLog(fromBackend(server, params))
	case busy:
		// Calls of several clients, or a line that may be another's.
	default:
		if fn := r.logTo.Load(); fn != nil {
			(*fn)(server, params)
		}
	}
}

// fromBackend is a backend's log message as clients see it: its logger
// named after the backend.
func fromBackend(server string, p *mcp.LoggingMessageParams) *mcp.LoggingMessageParams {
	msg := *p
	if msg.Logger == "" {
		msg.Logger = server
	} else {
		msg.Logger = server + "/" + msg.Logger
	}
	return &msg
}

// callLogs are a call's log lines waiting to be sent to its client, in
// order, by one goroutine at a time: the backend's session never waits for
// a slow client.
type callLogs struct {
	queue []*mcp.LoggingMessageParams
	// sent is closed when the queue has been sent; nil while nothing is
	// queued or being sent. Under the call's mu, as the queue.
	sent chan struct{}
}

func (p *pending) queueLog(msg *mcp.LoggingMessageParams) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.logs.queue) >= maxQueuedLogs {
		return
	}
	p.logs.queue = append(p.logs.queue, msg)
	if p.logs.sent == nil {
		p.logs.sent = make(chan struct{})
		go p.sendLogs()
	}
}

// sendLogs sends the queued lines to the call's client, with the call's
// context: on its stream, at the level the client asked for (per session,
// or per request from 2026-07-28). When the call's stream has closed, the
// line goes to the session's, which a sessionless client does not have.
func (p *pending) sendLogs() {
	ss, _ := p.conn.(*mcp.ServerSession)
	for {
		p.mu.Lock()
		if len(p.logs.queue) == 0 {
			close(p.logs.sent)
			p.logs.sent = nil
			p.mu.Unlock()
			return
		}
		msg := p.logs.queue[0]
		p.logs.queue = p.logs.queue[1:]
		p.mu.Unlock()
		if ss == nil {
			continue
		}
		// Not cancelled with the call: a line may come as it ends.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), logSendWait)
		err := ss.Log(ctx, msg)
		cancel()
		if err != nil && p.ctx.Err() != nil {
			// The call's stream closed before the line went.
			ctx, cancel := context.WithTimeout(context.Background(), logSendWait)
			_ = ss.Log(ctx, msg)
			cancel()
		}
	}
}

// flushLogs waits until the lines queued so far are sent, at most
// logSendWait.
func (p *pending) flushLogs(ctx context.Context) {
	p.mu.Lock()
	sent := p.logs.sent
	p.mu.Unlock()
	if sent == nil {
		return
	}
	wait := time.NewTimer(logSendWait)
	defer wait.Stop()
	select {
	case <-sent:
	case <-ctx.Done():
	case <-wait.C:
	}
}

// logLevelOf is the log level a request asks for in its _meta (protocol
// 2026-07-28), when it is one of the specification's.
func logLevelOf(p mcp.Params) mcp.LoggingLevel {
	if p == nil {
		return ""
	}
	level, _ := p.GetMeta()[mcp.MetaKeyLogLevel].(string)
	switch level {
	case "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency":
		return mcp.LoggingLevel(level)
	}
	return ""
}

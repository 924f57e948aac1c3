package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/transports"
)

// A CallOption adjusts one CallTool call.
type CallOption func(*callOptions)

type callOptions struct {
	timeout  time.Duration
	progress func(Progress)
	caller   *abi.Caller
}

// WithCaller tells policy stages who is calling (a person on the command
// line, an agent, a gateway client).
func WithCaller(c abi.Caller) CallOption {
	return func(o *callOptions) { o.caller = &c }
}

// WithTimeout overrides the server's request_timeout for this call.
func WithTimeout(d time.Duration) CallOption {
	return func(o *callOptions) { o.timeout = d }
}

// progressGrace is how long a call's progress token stays routed after the
// call returned.
const progressGrace = time.Second

// WithProgress asks the server for progress notifications and delivers them
// to fn, from the session's goroutine: fn must not block. A notification the
// server sent just before its result may reach fn shortly (up to a second)
// after CallTool returned.
func WithProgress(fn func(Progress)) CallOption {
	return func(o *callOptions) { o.progress = fn }
}

// CallTool calls a tool by its public name (or "server:tool"). The result
// carries every content kind, structuredContent and isError as the server
// sent them; a tool that fails reports IsError in the result, not an error.
//
// Every call has a deadline: the server's request_timeout unless WithTimeout
// says otherwise. Cancelling ctx, or the deadline passing, cancels the call
// on the server (notifications/cancelled).
func (h *Host) CallTool(ctx context.Context, name string, args map[string]any, opts ...CallOption) (*mcp.CallToolResult, error) {
	var o callOptions
	for _, opt := range opts {
		opt(&o)
	}
	if h.isClosed() {
		return nil, ErrClosed
	}
	c := h.resolve(name)
	if c == nil {
		return nil, h.unknownToolError(name)
	}
	tool := c.Tool
	if tool.Hidden != "" {
		h.auditCtx(ctx, AuditEvent{Stage: "pinning", Hook: "tools/call", Server: tool.Server, Tool: tool.Tool, Outcome: "deny", Reason: tool.Hidden})
		return nil, &hiddenToolError{tool.Hidden}
	}
	s, err := h.server(tool.Server)
	if err != nil {
		return nil, err
	}
	if err := s.usable(); err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{}
	}
	// Policy runs before the request's deadline starts: a confirmation may
	// wait for a person.
	args, err = h.applyPolicy(ctx, tool, args, o.caller)
	if err != nil {
		return nil, err
	}
	if c.confirmPin != "" {
		ev := AuditEvent{Stage: "pinning", Hook: "tools/call", Server: tool.Server, Tool: tool.Tool, Outcome: string(abi.Confirm), Reason: c.confirmPin}
		if err := h.askConfirm(ctx, tool, args, pendingConfirm{stage: "pinning", reason: c.confirmPin, ev: ev}); err != nil {
			return nil, err
		}
	}
	timeout := o.timeout
	if timeout <= 0 {
		timeout = s.cfg.RequestTimeout
	}
	callCtx, cancel := s.requestContext(ctx, timeout)
	defer cancel()

	params := &mcp.CallToolParams{Name: tool.Tool, Arguments: args}
	// Parameters the tool marks with x-mcp-header travel as HTTP headers
	// too (SEP-2243; see paramheaders.go).
	if len(c.paramHeaders) > 0 {
		callCtx = transports.WithRequestHeaders(callCtx, paramHeaderValues(c.paramHeaders, args))
	}
	if o.progress != nil {
		token, release := h.registerProgress(o.progress)
		// go-sdk hands notifications to handlers through a queue but
		// responses straight to the caller, so progress sent just before
		// the result can be handled after CallTool returns: keep the token
		// routed for a moment longer.
		defer time.AfterFunc(progressGrace, release)
		params.SetProgressToken(token)
	}
	// A server that is (re)connecting is waited for, within the call's own
	// deadline.
	var res *mcp.CallToolResult
	if s.overHTTP() {
		callCtx = withAuthOutcome(callCtx)
	}
	sess, err := s.send(callCtx, func(ctx context.Context, sess *mcp.ClientSession) (err error) {
		res, err = sess.CallTool(ctx, params)
		return err
	})
	if err != nil && sess == nil {
		return nil, err
	}
	if err != nil {
		return nil, s.callError(ctx, callCtx, sess, "tool "+quote(tool.Tool), timeout, err)
	}
	if res != nil {
		// Before the transforms: the truncation's own link to the full
		// result is mcphost's, the server's are not.
		res.Content = withoutOwnLinks(tool.Server, res.Content)
	}
	return h.applyTransforms(callCtx, tool, args, res)
}

// callError explains why a request failed: the caller cancelled it, it timed
// out, the host is closing, or the server answered with an error.
func (s *server) callError(callerCtx, callCtx context.Context, sess *mcp.ClientSession, what string, timeout time.Duration, err error) error {
	switch {
	case callerCtx.Err() != nil:
		return fmt.Errorf("server %q: %s: %w", s.cfg.ID, what, callerCtx.Err())
	case s.life.Err() != nil:
		return fmt.Errorf("server %q: %s: %w", s.cfg.ID, what, ErrClosed)
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("server %q: %s: no answer within %s (raise request_timeout or pass a timeout): %w", s.cfg.ID, what, timeout, context.DeadlineExceeded)
	}
	if out, ok := callCtx.Value(authOutcomeKey{}).(*transports.AuthOutcome); ok && out.Err() != nil {
		// Refused for want of authorization (a step-up nobody could
		// approve, a login that expired): say what to do.
		return fmt.Errorf("server %q: %s: %w", s.cfg.ID, what, out.Err())
	}
	if invalidResult(err) {
		// The server answered, but with something that is not the result
		// the request asks for: that call's error; the session goes on.
		return fmt.Errorf("server %q: %s: invalid result: %w", s.cfg.ID, what, err)
	}
	if he := (hostError{}); errors.As(err, &he) {
		return fmt.Errorf("server %q: %s: %w", s.cfg.ID, what, he.error)
	}
	if !serverAnswered(err) && !errors.Is(err, transports.ErrResponseRefused) && sess != nil {
		// Not the server's answer: the connection failed under the call.
		return fmt.Errorf("server %q: %s: connection lost during the call: %w", s.cfg.ID, what, sessionEnd(sess, err))
	}
	return fmt.Errorf("server %q: %s: %w", s.cfg.ID, what, err)
}

// invalidResult reports whether err is go-sdk failing to decode an answer's
// result into the type the request expects.
func invalidResult(err error) bool {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	return errors.As(err, &typeErr) || errors.As(err, &syntaxErr)
}

// unknownToolError says why a name does not resolve, mentioning servers
// that are not ready (their tools are missing from the registry).
func (h *Host) unknownToolError(name string) error {
	var down []string
	for _, s := range h.list() {
		s.mu.Lock()
		st, serr := s.state, s.err
		s.mu.Unlock()
		if st == StateBlocked && namesServer(name, s.cfg.ID) {
			// The administrator's rule is the answer, not a missing tool.
			return fmt.Errorf("host: tool %q: %w: server %q is %v", name, ErrUnknownTool, s.cfg.ID, serr)
		}
		if st == StateError || st == StateConnecting || st == StateReconnecting || st == StateNeedsAuth {
			// The server's own error says why its tools are missing; a
			// server whose error already names it is not named twice.
			if serr != nil {
				down = append(down, fmt.Sprintf("%s (%s: %s)", s.cfg.ID, st, strings.TrimPrefix(firstLine(serr.Error()), fmt.Sprintf("server %q: ", s.cfg.ID))))
			} else {
				down = append(down, fmt.Sprintf("%s (%s)", s.cfg.ID, st))
			}
		}
	}
	if len(down) > 0 {
		return fmt.Errorf("host: tool %q: %w; servers not ready: %s", name, ErrUnknownTool, strings.Join(down, ", "))
	}
	return fmt.Errorf("host: tool %q: %w (list tools with \"mcphost tools\")", name, ErrUnknownTool)
}

// namesServer: name is written as one of the server's tools would be
// (server:tool, or a public name of the built-in schemes).
func namesServer(name, id string) bool {
	return strings.HasPrefix(name, id+":") || strings.HasPrefix(name, "mcp__"+id+"__") || strings.HasPrefix(name, id+"_")
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

type authOutcomeKey struct{}

// overHTTP: the server's requests travel over HTTP, where authorization
// can fail (see withAuthOutcome); a stdio or in-process server's never do.
func (s *server) overHTTP() bool {
	return s.cfg.Transport != config.TransportStdio && s.cfg.Transport != config.TransportInProcess
}

// withAuthOutcome makes the request's HTTP authorization failures
// readable by callError.
func withAuthOutcome(ctx context.Context) context.Context {
	out := &transports.AuthOutcome{}
	return context.WithValue(transports.WithAuthOutcome(ctx, out), authOutcomeKey{}, out)
}

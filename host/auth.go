package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/transports"
)

// ErrNoAuthorization: a Login found that the server let mcphost in
// without asking for authorization.
var ErrNoAuthorization = errors.New("the server did not ask for authorization")

// Login authorizes server id with the authorization-code flow, as "mcphost
// login" does: it connects with no stored tokens, and the server's refusal
// starts discovery, client registration and the authorization through the
// UI of WithAuthUI (the browser, for the CLI); the tokens go to the store
// of WithTokenStore. A running server then reconnects with them.
func (h *Host) Login(ctx context.Context, id string) error {
	if h.isClosed() {
		return ErrClosed
	}
	s, err := h.server(id)
	if err != nil {
		return err
	}
	switch s.cfg.Transport {
	case config.TransportHTTP, config.TransportSSE, config.TransportWebSocket:
	default:
		return fmt.Errorf("host: login %q: a %s server has no login (only sse, http and websocket servers do)", id, s.cfg.Transport)
	}
	if s.cfg.Err != nil {
		return fmt.Errorf("host: login %q: %w", id, s.cfg.Err)
	}
	if s.cfg.Untrusted {
		// Its URLs and secrets come from a project nobody reviewed.
		return fmt.Errorf("host: login %q: the server comes from an untrusted project file (%s); review it, then run \"mcphost trust\"", id, s.cfg.Source)
	}
	if h.opts.authOpts.UI == nil {
		return fmt.Errorf("host: login %q: no authorization UI (WithAuthUI)", id)
	}
	oh, err := authn.Login(s.cfg, h.authOptions(s))
	if err != nil {
		return err
	}
	s.setCredentials(authn.Credentials{OAuth: oh}, true)
	defer s.setCredentials(authn.Credentials{}, false)
	sess, err := s.openSession(authn.WithLoginContext(ctx, ctx))
	s.mu.Lock()
	t := s.transport
	s.mu.Unlock()
	if _, refused := transports.Refused(t); err != nil && ctx.Err() == nil && !refused {
		if ts, _ := oh.TokenSource(ctx); ts != nil {
			// The login itself worked and is stored; the session after
			// it did not. The server's own trouble is for its status.
			s.log.Warn("logged in, but the connection after the login failed", "error", err)
			err = nil
		}
	}
	if err != nil {
		if reason := transports.LastAuthError(t); reason != nil {
			return reason // it names the server and the login
		}
		return err
	}
	if sess != nil {
		sess.Close()
	}
	if ts, _ := oh.TokenSource(ctx); ts == nil {
		return fmt.Errorf("host: login %q: %w (nothing to log in to)", id, ErrNoAuthorization)
	}
	if h.isStarted() && s.startable() {
		_ = h.Reconnect(id)
	}
	return nil
}

package host

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Subscribe asks server serverID to notify changes of the resource uri
// (resources/subscribe); the notifications reach WithResourceUpdates. The
// subscription is made again whenever the server reconnects, until
// Unsubscribe.
func (h *Host) Subscribe(ctx context.Context, serverID, uri string) error {
	s, err := h.server(serverID)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.subscriptions == nil {
		s.subscriptions = map[string]bool{}
	}
	if len(s.subscriptions) >= maxSubscriptions && !s.subscriptions[uri] {
		s.mu.Unlock()
		return fmt.Errorf("host: server %q: more than %d resource subscriptions", serverID, maxSubscriptions)
	}
	s.subscriptions[uri] = true
	s.mu.Unlock()
	_, err = request(h, ctx, serverID, "resources/subscribe "+quote(uri), func(ctx context.Context, sess *mcp.ClientSession) (struct{}, error) {
		return struct{}{}, sess.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
	})
	if err != nil {
		s.mu.Lock()
		delete(s.subscriptions, uri)
		s.mu.Unlock()
	}
	return err
}

// Unsubscribe ends a subscription of Subscribe.
func (h *Host) Unsubscribe(ctx context.Context, serverID, uri string) error {
	s, err := h.server(serverID)
	if err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.subscriptions, uri)
	s.mu.Unlock()
	_, err = request(h, ctx, serverID, "resources/unsubscribe "+quote(uri), func(ctx context.Context, sess *mcp.ClientSession) (struct{}, error) {
		return struct{}{}, sess.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
	})
	return err
}

// maxSubscriptions bounds one server's subscriptions.
const maxSubscriptions = 10000

// resubscribe makes a new session's subscriptions again (after a
// reconnect). Failures are logged: the server may have lost the resource.
func (s *server) resubscribe(ctx context.Context, sess *mcp.ClientSession) {
	s.mu.Lock()
	uris := make([]string, 0, len(s.subscriptions))
	for u := range s.subscriptions {
		uris = append(uris, u)
	}
	s.mu.Unlock()
	for _, u := range uris {
		if err := sess.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); err != nil {
			s.log.Warn("resubscribing after a reconnect", "uri", u, "error", err)
		}
	}
}

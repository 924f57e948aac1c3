package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/transports"
)

// methodDiscover is the 2026-07-28 handshake probe.
const methodDiscover = "server/discover"

// newClient builds the go-sdk client for one server. Each server gets its own
// client so that notifications (list_changed, progress) and server-initiated
// requests are attributed to the server that sent them.
func (h *Host) newClient(s *server) *mcp.Client {
	id := s.cfg.ID
	opts := &mcp.ClientOptions{
		// An empty capability set: go-sdk otherwise declares roots by default.
		Capabilities:               &mcp.ClientCapabilities{},
		Logger:                     sdkLogger(s.log),
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { s.onListChanged("tools") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { s.onListChanged("resources") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { s.onListChanged("prompts") },
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if req != nil && req.Params != nil {
				h.dispatchProgress(id, req.Params)
			}
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			if fn := h.opts.resourceUpdates; fn != nil && req != nil && req.Params != nil {
				fn(id, req.Params.URI)
			}
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			if req != nil && req.Params != nil {
				s.log.Debug("server log", "level", req.Params.Level, "logger", req.Params.Logger, "data", req.Params.Data)
				if fn := h.opts.logMessages; fn != nil && !s.logsAtRead.Load() {
					fn(id, req.Params, false)
				}
			}
		},
	}
	if len(h.opts.roots) > 0 {
		opts.Capabilities.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	if fn := h.opts.elicit; fn != nil {
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return fn(ctx, id, req.Params)
		}
	}
	if fn := h.opts.sample; fn != nil {
		opts.CreateMessageHandler = func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return fn(ctx, id, req.Params)
		}
	}
	if h.opts.inputs != nil {
		// inputRounds answers input requests whole, with their keys.
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: h.opts.clientName, Version: h.opts.clientVersion}, opts)
	if len(h.opts.roots) > 0 {
		c.AddRoots(h.opts.roots...)
	}
	c.AddSendingMiddleware(s.survivePanics, h.boundDiscoverProbe, h.inputRounds(id))
	if opts.ElicitationHandler != nil {
		c.AddReceivingMiddleware(elicitReceiver(opts.ElicitationHandler))
	}
	return c
}

// received sees the server's messages as its transport reads them. A log
// message goes to WithOrderedLogMessages now, before the answer to the call it was
// written during is read: go-sdk's handler, on a goroutine of its own,
// might get it after that call returned, when nothing tells whose call it
// was about any more.
func (s *server) received(msg jsonrpc.Message) {
	fn := s.h.opts.logMessages
	req, ok := msg.(*jsonrpc.Request)
	if fn == nil || !ok || req.IsCall() || req.Method != methodLogMessage {
		return
	}
	var p mcp.LoggingMessageParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return // go-sdk refuses it
	}
	s.logsAtRead.Store(true)
	fn(s.cfg.ID, &p, true)
}

const methodLogMessage = "notifications/message"

// hostError marks an error the host's own middleware made while a request
// was sent (input rounds, a panic survived), not the connection's: the call
// fails with it, and the connection is not blamed.
type hostError struct{ error }

func (e hostError) Unwrap() error { return e.error }

// survivePanics turns a panic while a request to the server is sent, or
// its answer decoded, into that request's error: go-sdk v1.8.0 panics on
// some malformed answers (an input request map with a null entry), and one
// server's bad answer must not take the host, or a gateway with all its
// callers, down. Outermost, so that it covers the other middleware too.
func (s *server) survivePanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				// The panic value may quote the server's answer: debug
				// log only, and escaped by the logger.
				s.log.Debug("panic on a server's answer", "method", method, "panic", fmt.Sprint(v))
				res, err = nil, hostError{fmt.Errorf("invalid answer to %s (it could not be decoded)", method)}
			}
		}()
		return next(ctx, method, req)
	}
}

// boundDiscoverProbe limits how long the server/discover probe may wait. go-sdk
// falls back to initialize on any discover error, so a server that ignores
// the probe costs probeTimeout instead of hanging the connect (go-sdk#1177).
func (h *Host) boundDiscoverProbe(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != methodDiscover {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithTimeout(ctx, h.opts.probeTimeout)
		defer cancel()
		return next(ctx, method, req)
	}
}

// newTransport turns the server's config into a go-sdk transport.
func (s *server) newTransport() (mcp.Transport, error) {
	// transports knows nothing of config entries, so refusing an invalid one
	// is the host's job.
	if s.cfg.Err != nil {
		return nil, fmt.Errorf("host: server %q: invalid config: %w", s.cfg.ID, s.cfg.Err)
	}
	creds, err := s.credentials()
	if err != nil {
		return nil, err
	}
	return transports.New(transportSpec(s.cfg), transports.Options{
		Received:     s.received,
		Logger:       s.log,
		HTTPClient:   s.h.opts.httpClient,
		Server:       s.inproc,
		Auth:         s.h.authFor(s.cfg.ID, s.cfg.URL),
		HeaderFunc:   creds.Header,
		OAuthHandler: creds.OAuth,
	})
}

// transportSpec is what transports needs of a config entry. Kind and the
// default message limit are spelled the same on both sides (a test holds them
// together), so they pass through unchanged.
func transportSpec(sc *config.Server) transports.Spec {
	return transports.Spec{
		ID:              sc.ID,
		Kind:            sc.Transport,
		Command:         sc.Command,
		Args:            sc.Args,
		Env:             sc.Env,
		Cwd:             sc.Cwd,
		URL:             sc.URL,
		Headers:         sc.Headers,
		MaxMessageBytes: sc.MaxMessageBytes,
	}
}

// credentials are the server's auth (authn.New), made once per server so
// that its tokens outlive its connections; WithOAuthHandler replaces the
// OAuth part.
func (s *server) credentials() (authn.Credentials, error) {
	s.credsMu.Lock()
	defer s.credsMu.Unlock()
	if s.credsMade {
		return s.creds, s.credsErr
	}
	s.credsMade = true
	s.creds, s.credsErr = authn.Credentials{}, nil
	switch s.cfg.Transport {
	case config.TransportHTTP, config.TransportSSE, config.TransportWebSocket:
	default:
		return s.creds, nil
	}
	if s.h.opts.oauth != nil && (s.cfg.Auth.Type == config.AuthAuto || s.cfg.Auth.Type == config.AuthOAuth) {
		s.creds.OAuth = s.h.opts.oauth(s.cfg.ID)
		return s.creds, nil
	}
	s.creds, s.credsErr = authn.New(s.cfg, s.h.authOptions(s))
	return s.creds, s.credsErr
}

// setCredentials replaces the server's credentials; !made makes the next
// connect build them again from the configuration and the token store.
func (s *server) setCredentials(c authn.Credentials, made bool) {
	s.credsMu.Lock()
	s.creds, s.credsErr, s.credsMade = c, nil, made
	s.credsMu.Unlock()
}

// authOptions are the authn options for one server.
func (h *Host) authOptions(s *server) authn.Options {
	opts := h.opts.authOpts
	opts.HTTPClient = h.opts.httpClient
	opts.Logger = s.log
	return opts
}

// authFor returns the credentials hook for a server: the first enforcing
// auth stage that applies to it, or nil.
func (h *Host) authFor(serverID, url string) transports.AuthFunc {
	for _, is := range h.pipeline.stages {
		if is.auth == nil || is.shadow() || !is.appliesTo(serverID) {
			continue
		}
		return func(ctx context.Context, c transports.Challenge) (http.Header, time.Duration, error) {
			req := &abi.AuthRequest{Server: serverID, URL: url}
			if c.Status != 0 {
				req.Challenge = &abi.Challenge{Status: c.Status, WWWAuthenticate: c.WWWAuthenticate}
			}
			start := time.Now()
			resp, err := is.auth.Auth(ctx, req)
			ev := AuditEvent{Stage: is.name, Hook: abi.HookAuth, Server: serverID, Duration: time.Since(start), Outcome: "headers"}
			if err == nil && resp == nil {
				err = errors.New("no answer")
			}
			if err != nil {
				ev.Err = err.Error()
				if is.onError(abi.HookAuth) == OnErrorAllow {
					ev.Outcome = "error-ignored"
					h.auditCtx(ctx, ev)
					return http.Header{}, 0, nil
				}
				ev.Outcome = "failed"
				h.audit(ev)
				return nil, 0, fmt.Errorf("server %q: auth %s: %w", serverID, is.name, err)
			}
			h.audit(ev)
			hdr := make(http.Header, len(resp.Headers))
			for k, v := range resp.Headers {
				hdr.Set(k, v)
			}
			return hdr, time.Duration(resp.ExpiresIn) * time.Second, nil
		}
	}
	return nil
}

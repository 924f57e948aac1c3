package host

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { s.onListChanged("tools") },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { s.onListChanged("resources") },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { s.onListChanged("prompts") },
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if req != nil && req.Params != nil {
				h.dispatchProgress(id, req.Params)
			}
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			if req != nil && req.Params != nil {
				s.log.Debug("server log", "level", req.Params.Level, "logger", req.Params.Logger, "data", req.Params.Data)
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
	c := mcp.NewClient(&mcp.Implementation{Name: h.opts.clientName, Version: Version}, opts)
	if len(h.opts.roots) > 0 {
		c.AddRoots(h.opts.roots...)
	}
	c.AddSendingMiddleware(h.boundDiscoverProbe)
	return c
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
	return transports.New(s.cfg, transports.Options{
		Logger:     s.log,
		HTTPClient: s.h.opts.httpClient,
		Server:     s.inproc,
	})
}

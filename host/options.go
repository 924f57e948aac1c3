package host

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/internal/buildinfo"
)

// An Option configures a Host in New.
type Option func(*options)

// ElicitationHandler answers a server's elicitation/create request. server is
// the id of the server that asked.
type ElicitationHandler func(ctx context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error)

// SamplingHandler answers a server's sampling/createMessage request.
type SamplingHandler func(ctx context.Context, server string, req *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)

type inProcessServer struct {
	id     string
	server *mcp.Server
}

type options struct {
	logger          hclog.Logger
	clientName      string
	clientVersion   string
	elicit          ElicitationHandler
	sample          SamplingHandler
	inputs          InputHandler
	roots           []*mcp.Root
	inProcess       []inProcessServer
	httpClient      *http.Client
	probeTimeout    time.Duration
	protocol        string // for servers that pin none; "": negotiate
	onChange        func(Event)
	stages          []StageConfig
	config          *ConfigStages
	confirmer       Confirmer
	audit           func(AuditEvent)
	results         *builtin.ResultStore
	maxAttempts     int
	oauth           func(serverID string) auth.OAuthHandler
	authOpts        authn.Options
	logMessages     func(server string, p *mcp.LoggingMessageParams, inOrder bool)
	stageObserver   func(ctx context.Context, e AuditEvent)
	resourceUpdates func(server, uri string)
	pinStore        string
}

func defaultOptions() options {
	return options{
		logger:        hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off}),
		clientName:    "mcphost",
		clientVersion: buildinfo.ModuleVersion(),
		probeTimeout:  3 * time.Second,
	}
}

// WithConnectAttempts caps the connection attempts per server: after n
// failed connects in a row the server is in state error (until Reconnect,
// SetEnabled or SetServers), whatever its reconnect.max_attempts says. A
// one-shot program (the CLI's commands other than servers --watch) uses 1:
// a server that does not start is reported, not restarted over and over.
// 0 keeps each server's own setting.
func WithConnectAttempts(n int) Option {
	return func(o *options) { o.maxAttempts = max(n, 0) }
}

// WithOAuthHandler replaces mcphost's own OAuth (WithTokenStore,
// WithAuthUI and the servers' auth blocks) with go-sdk handlers: handler
// returns the go-sdk OAuth handler for a server id (nil: none for that
// server), typically an auth.AuthorizationCodeHandler, which does the
// protected-resource and authorization-server discovery, client
// registration (pre-registered, client ID metadata document or dynamic),
// PKCE, the resource indicator and refreshing. The handler is asked after a
// 401 or 403; the embedding application supplies how a person authorizes
// (its AuthorizationCodeFetcher). Without it, a 401 puts the server in
// state needs-auth. For every HTTP transport.
func WithOAuthHandler(handler func(serverID string) auth.OAuthHandler) Option {
	return func(o *options) { o.oauth = handler }
}

// WithTokenStore keeps the tokens of OAuth logins in store (the CLI's:
// the OS keychain or mcp-auth.json) and uses the ones kept there. Without
// it, tokens live as long as the Host.
func WithTokenStore(store authn.Store) Option {
	return func(o *options) { o.authOpts.Store = store }
}

// WithAuthUI is how a person authorizes a server: ui shows the
// authorization URL (the CLI opens a browser or prints it; an application
// shows its own prompt, and may receive the redirect itself by
// implementing authn.CallbackReceiver). ask says when a running server
// may ask (authn.AskStepUp: only for more scopes; authn.AskAlways: also for
// a first login); otherwise it is left in state needs-auth until Login.
func WithAuthUI(ui authn.UI, ask authn.AskMode) Option {
	return func(o *options) {
		o.authOpts.UI = ui
		o.authOpts.Ask = ask
	}
}

// WithStageObserver receives every stage decision like WithAudit, with the
// context of the call it belongs to (context.Background for decisions
// about listings): for traces, one span per stage in the call's trace.
func WithStageObserver(fn func(ctx context.Context, e AuditEvent)) Option {
	return func(o *options) { o.stageObserver = fn }
}

// WithResourceUpdates receives the notifications of resources subscribed to
// with Subscribe (notifications/resources/updated). fn must not block.
func WithResourceUpdates(fn func(server, uri string)) Option {
	return func(o *options) { o.resourceUpdates = fn }
}

// WithLogMessages receives the log messages servers send
// (notifications/message), with the id of the server. fn must not block.
func WithLogMessages(fn func(server string, p *mcp.LoggingMessageParams)) Option {
	return func(o *options) {
		o.logMessages = func(server string, p *mcp.LoggingMessageParams, _ bool) { fn(server, p) }
	}
}

// WithOrderedLogMessages is WithLogMessages, saying whether a message came
// in order with the server's answers. For stdio, sse, websocket and
// inprocess servers it does (inOrder): it is passed on as it is read,
// before the answer to a call that follows it, so a line the server wrote
// during a call arrives while the call is in flight. For Streamable HTTP
// servers go-sdk hands it on on a goroutine of its own, which may come
// after that call returned: nothing tells whose call it was about.
func WithOrderedLogMessages(fn func(server string, p *mcp.LoggingMessageParams, inOrder bool)) Option {
	return func(o *options) { o.logMessages = fn }
}

// WithLogger sets the logger. Logs never go to stdout, which belongs to the
// MCP stream in stdio modes; the default discards them.
func WithLogger(l hclog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// WithClientInfo sets the client name and version sent to servers in the
// handshake (default "mcphost" and the version of the mcphost module in the
// binary, or "dev"). An empty argument keeps its default.
func WithClientInfo(name, version string) Option {
	return func(o *options) {
		if name != "" {
			o.clientName = name
		}
		if version != "" {
			o.clientVersion = version
		}
	}
}

// WithElicitationHandler lets servers ask the user for input. Without it the
// elicitation capability is not declared.
func WithElicitationHandler(fn ElicitationHandler) Option {
	return func(o *options) { o.elicit = fn }
}

// WithSamplingHandler lets servers ask for an LLM completion. Without it the
// sampling capability is not declared.
func WithSamplingHandler(fn SamplingHandler) Option {
	return func(o *options) { o.sample = fn }
}

// WithRoots declares the roots capability and offers these roots to every
// server. Without it the roots capability is not declared.
func WithRoots(roots ...*mcp.Root) Option {
	return func(o *options) { o.roots = append(o.roots, roots...) }
}

// WithInProcessServer adds a Go MCP server that runs inside this process,
// connected over in-memory transports (what other hosts call an "sdk"
// server). id must match ^[a-zA-Z0-9_-]{1,64}$.
func WithInProcessServer(id string, srv *mcp.Server) Option {
	return func(o *options) { o.inProcess = append(o.inProcess, inProcessServer{id: id, server: srv}) }
}

// WithHTTPClient sets the base HTTP client for sse, http and websocket
// servers; configured headers are added on top of its transport.
func WithHTTPClient(c *http.Client) Option {
	return func(o *options) { o.httpClient = c }
}

// WithDefaultProtocolVersion speaks version to the servers whose entry pins
// no protocol_version, as if each pinned it, instead of negotiating (the
// server/discover probe, then initialize). A host that passes what a server
// sends in the middle of a call on to clients of its own (the gateway) uses
// the newest dated version: from 2026-07-28 a server may not ask its client
// anything in the middle of a call, and servers written that way fail
// their calls at that version. "" negotiates (the default).
func WithDefaultProtocolVersion(version string) Option {
	return func(o *options) { o.protocol = version }
}

// WithDiscoverProbeTimeout bounds the 2026-07-28 server/discover probe for
// servers without a pinned protocol_version. A server that ignores the probe
// is then spoken to with initialize on the same connection. Default 3 s.
func WithDiscoverProbeTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.probeTimeout = d
		}
	}
}

// WithEvents registers a callback for server state changes and registry
// updates. It is called synchronously: keep it short.
func WithEvents(fn func(Event)) Option {
	return func(o *options) { o.onChange = fn }
}

// WithStages installs pipeline stages (native or plugins) in chain order:
// policies run in this order and the first deny wins, transforms compose in
// this order, filters intersect, and the last enforcing name stage names the
// tools. Calling it again appends.
func WithStages(stages ...StageConfig) Option {
	return func(o *options) { o.stages = append(o.stages, stages...) }
}

// WithConfirmer answers "confirm" decisions of policy stages. Without one, a
// call that needs a confirmation is denied, saying why.
func WithConfirmer(c Confirmer) Option {
	return func(o *options) { o.confirmer = c }
}

// WithAudit receives every stage decision (stage, hook, outcome, reason,
// duration). It is called synchronously on the call path: keep it short.
func WithAudit(fn func(AuditEvent)) Option {
	return func(o *options) { o.audit = fn }
}

// WithResultStore makes the full results kept by a truncating stage readable
// as the resources mcphost://results/<id> (ReadResource, and listed by
// Resources under the server "mcphost").
func WithResultStore(store *builtin.ResultStore) Option {
	return func(o *options) { o.results = store }
}

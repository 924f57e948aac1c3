// Package gateway serves a Host as one MCP server: the tools, resources
// and prompts of every backend, under their public names and through the
// host's pipeline (policy, name mapping, transforms, truncation), to any
// MCP client over stdio, Streamable HTTP or legacy SSE. Server-to-client
// requests of the backends (elicitation, sampling) and the pipeline's
// confirmations are relayed to the client whose call caused them.
package gateway

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/internal/buildinfo"
	"github.com/mcphost/mcphost/pdk/abi"
)

// Gateway is one MCP server in front of a Host.
type Gateway struct {
	h       *host.Host
	srv     *mcp.Server
	relay   *Relay
	logger  hclog.Logger
	metrics *Metrics
	audit   *AuditLog
	trace   trace.Tracer // nil: no traces
	// newSessionID names /sse sessions as go-sdk names /mcp ones.
	newSessionID func() string
	// inflight lets the gateway close a session in bounded time (see
	// closeSession).
	inflight inflight

	mu        sync.Mutex
	tools     map[string]bool // public names registered on srv
	resources map[string]bool // URIs
	templates map[string]bool // URI templates
	prompts   map[string]string
	// subscribers counts the clients' subscriptions per URI: the backend
	// is subscribed once.
	subscribers map[string]map[string]bool // URI → subscribed sessions
}

// Options configure a Gateway.
type Options struct {
	// Relay carries the backends' requests to the calling clients; it
	// must be the one whose handlers the Host was built with (see
	// NewRelay). Nil: backends' requests are declined.
	Relay *Relay
	// Logger receives the gateway's notes. Nil discards.
	Logger hclog.Logger
	// Name is the server name clients see (default "mcphost").
	Name string
	// Version is the server version clients see (default: the version of
	// the mcphost module in the binary, or "dev").
	Version string
	// Metrics, if set, count calls (see NewMetrics).
	Metrics *Metrics
	// Audit, if set, gets one record per call.
	Audit *AuditLog
	// ForwardLogs sends the backends' log messages that come while no
	// call waits on their backend to every client. A line during a call
	// goes to that call's client whatever this says, and never to another
	// (see Relay).
	ForwardLogs bool
	// Tracer, if set, gets a span per call (see NewOTLPTracer; give the
	// host WithStageObserver(g.StageSpans) for spans per stage).
	Tracer trace.Tracer
	// ReplicaID, if set, begins every session ID ("ID.random"), so that a
	// load balancer in front of several replicas can send each session's
	// requests to the replica that holds it (see CheckReplicaID).
	ReplicaID string
}

// CheckReplicaID says whether id can begin session IDs: 1 to 32 letters,
// digits or '-', so that a proxy can match it with a plain pattern.
func CheckReplicaID(id string) error {
	if id == "" || len(id) > 32 {
		return fmt.Errorf("replica id %q: 1 to 32 characters", id)
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("replica id %q: only letters, digits and '-'", id)
		}
	}
	return nil
}

// New returns a gateway for h. Call Sync after h.Start, and again on the
// host's tools/resources/prompts events (Watch does both).
func New(h *host.Host, opts Options) *Gateway {
	g := &Gateway{h: h, relay: opts.Relay, logger: opts.Logger, metrics: opts.Metrics, audit: opts.Audit, trace: opts.Tracer,
		tools: map[string]bool{}, resources: map[string]bool{}, templates: map[string]bool{}, prompts: map[string]string{}, subscribers: map[string]map[string]bool{}}
	if g.logger == nil {
		g.logger = hclog.NewNullLogger()
	}
	if g.relay == nil {
		g.relay = NewRelay()
	}
	if opts.ForwardLogs {
		fn := g.LogMessages
		g.relay.logTo.Store(&fn)
	}
	stages := g.StageSpans
	g.relay.stageTo.Store(&stages)
	updates := g.resourceUpdated
	g.relay.updatesTo.Store(&updates)
	name := opts.Name
	if name == "" {
		name = "mcphost"
	}
	g.srv = mcp.NewServer(&mcp.Implementation{Name: name, Version: cmp.Or(opts.Version, buildinfo.ModuleVersion())}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			Prompts:     &mcp.PromptCapabilities{ListChanged: true},
			Completions: &mcp.CompletionCapabilities{},
			Logging:     &mcp.LoggingCapabilities{},
		},
		CompletionHandler:  g.complete,
		SubscribeHandler:   g.subscribe,
		UnsubscribeHandler: g.unsubscribe,
		Instructions:       "mcphost gateway: the tools, resources and prompts of the organisation's MCP servers, behind its policies.",
		GetSessionID:       sessionIDs(opts.ReplicaID),
	})
	g.srv.AddReceivingMiddleware(g.inflight.cancelOnClose, g.relay.endUnanswered, g.registerSessions, g.deniedCalls)
	g.srv.AddSendingMiddleware(g.boundClientRequests)
	g.newSessionID = sessionIDs(opts.ReplicaID)
	if g.newSessionID == nil {
		g.newSessionID = rand.Text
	}
	return g
}

// sessionIDs makes session IDs that name their replica; nil (go-sdk's
// random IDs) without one.
func sessionIDs(replica string) func() string {
	if replica == "" {
		return nil
	}
	return func() string { return replica + "." + rand.Text() }
}

// Server is the MCP server to serve (stdio, HTTP).
func (g *Gateway) Server() *mcp.Server { return g.srv }

// Watch syncs now and on every change of the host's lists until ctx ends.
// events is the channel the host's WithEvents callback feeds (see
// EventSink).
func (g *Gateway) Watch(ctx context.Context, events <-chan host.Event) {
	g.Sync(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-events:
			// Coalesce a burst (a server coming up lists all three).
			for drained := false; !drained; {
				select {
				case <-events:
				default:
					drained = true
				}
			}
			g.Sync(ctx)
		}
	}
}

// EventSink returns a WithEvents callback and the channel Watch reads: a
// list change or a state change of any backend asks for a sync. It never
// blocks the host.
func EventSink() (func(host.Event), <-chan host.Event) {
	ch := make(chan host.Event, 1)
	return func(ev host.Event) {
		select {
		case ch <- ev:
		default:
		}
	}, ch
}

// Sync makes the server's lists the host's: tools added, changed or gone
// reach clients as list_changed notifications.
func (g *Gateway) Sync(ctx context.Context) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.syncTools()
	g.syncResources()
	g.syncPrompts()
	g.metrics.ObserveBackends(g.h)
}

func (g *Gateway) syncTools() {
	seen := map[string]bool{}
	for _, t := range g.h.Tools() {
		if !objectSchema(t.InputSchema) {
			g.logger.Warn("tool left out: its input schema is not an object", "tool", t.Display)
			continue
		}
		seen[t.Name] = true
		tool := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations}
		handler := g.callTool(t.Name)
		if objectSchema(t.OutputSchema) {
			tool.OutputSchema = t.OutputSchema
			handler = structuredOrError(handler)
		}
		if err := addTool(g.srv, tool, handler); err != nil {
			g.logger.Warn("tool left out", "tool", t.Display, "error", err)
			delete(seen, t.Name)
			continue
		}
	}
	var gone []string
	for name := range g.tools {
		if !seen[name] {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		g.srv.RemoveTools(gone...)
	}
	g.tools = seen
}

// deniedCalls takes a call of a tool the policy always denies, or that
// tool pinning hides, which tools/list leaves out, to the pipeline all the
// same: it is refused with its reason, and the refusal is audited, counted
// and traced as any other. go-sdk would answer "unknown tool", and the operator would never
// see a client probing for denied tools.
func (g *Gateway) deniedCalls(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && r.Params != nil {
			if t, found := g.h.Resolve(r.Params.Name); found && (t.Denied != "" || t.Hidden != "") && t.Name == r.Params.Name {
				return g.callTool(t.Name)(ctx, r)
			}
		}
		return next(ctx, method, req)
	}
}

// addTool adds t, turning go-sdk's panic on a schema it refuses into an
// error: a backend's odd schema must not bring the gateway down.
func addTool(srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) error {
	return recovered(func() { srv.AddTool(t, h) })
}

// recovered runs add, turning go-sdk's panic on what a backend listed (a
// schema, a URI that does not parse, a template that is not one) into an
// error. go-sdk's server unlocks with defer, so it is usable after.
func recovered(add func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	add()
	return nil
}

// objectSchema: a JSON object schema of type "object" (what a tool's
// input schema must be).
func objectSchema(s any) bool {
	if s == nil {
		return false
	}
	var m map[string]any
	switch v := s.(type) {
	case map[string]any:
		m = v
	default:
		data, err := json.Marshal(s)
		if err != nil || json.Unmarshal(data, &m) != nil {
			return false
		}
	}
	return m["type"] == "object"
}

func (g *Gateway) syncResources() {
	seenR, seenT := map[string]bool{}, map[string]bool{}
	// Truncated results stay readable through the gateway, always by
	// the gateway's own template: mcphost:// is never a backend's (the
	// host leaves out what backends list under it; so does this).
	seenT[resultsTemplate] = true
	g.srv.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "mcphost-results", URITemplate: resultsTemplate, MIMEType: "application/json",
		Description: "Full results of calls that mcphost truncated",
	}, g.readResource(host.ResultsServer))
	rs, ts := g.h.ListedResources("")
	for _, r := range rs {
		// Stored full results are served by the template above, not
		// listed one by one.
		if r.Resource == nil || r.Server == host.ResultsServer || host.OwnURI(r.URI) || seenR[r.URI] {
			continue // the first server listing a URI serves it
		}
		res := *r.Resource
		if err := recovered(func() { g.srv.AddResource(&res, g.readResource(r.Server)) }); err != nil {
			g.logger.Warn("resource left out", "server", r.Server, "error", err)
			continue
		}
		seenR[r.URI] = true
	}
	for _, t := range ts {
		if t.ResourceTemplate == nil || host.OwnURITemplate(t.URITemplate) || seenT[t.URITemplate] {
			continue
		}
		tmpl := *t.ResourceTemplate
		if err := recovered(func() { g.srv.AddResourceTemplate(&tmpl, g.readResource(t.Server)) }); err != nil {
			g.logger.Warn("resource template left out", "server", t.Server, "error", err)
			continue
		}
		seenT[t.URITemplate] = true
	}
	var goneR, goneT []string
	for u := range g.resources {
		if !seenR[u] {
			goneR = append(goneR, u)
		}
	}
	for u := range g.templates {
		if !seenT[u] {
			goneT = append(goneT, u)
		}
	}
	if len(goneR) > 0 {
		g.srv.RemoveResources(goneR...)
	}
	if len(goneT) > 0 {
		g.srv.RemoveResourceTemplates(goneT...)
	}
	g.resources, g.templates = seenR, seenT
}

// resultsTemplate is the URI template of the stored full results.
const resultsTemplate = builtin.ResultURIPrefix + "{id}"

// syncPrompts takes the prompts as the host last fetched them: a sync
// runs on every event of every backend, and must not ask them all again.
func (g *Gateway) syncPrompts() {
	all := g.h.ListedPrompts("")
	count := map[string]int{}
	for _, p := range all {
		count[p.Name]++
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Display < all[j].Display })
	seen := map[string]string{}
	for _, p := range all {
		if p.Prompt == nil {
			continue
		}
		// A name two servers share is served as "server:prompt".
		name := p.Name
		if count[p.Name] > 1 {
			name = p.Display
		}
		pr := *p.Prompt
		pr.Name = name
		seen[name] = p.Display
		g.srv.AddPrompt(&pr, g.getPrompt(p.Display))
	}
	var gone []string
	for name := range g.prompts {
		if _, ok := seen[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		g.srv.RemovePrompts(gone...)
	}
	g.prompts = seen
}

// callerOf is who makes a request: the gateway's client, with the identity
// its bearer token carried.
func callerOf(req mcp.Request) abi.Caller {
	c := abi.Caller{Kind: "gateway"}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		c.Session = ss.ID()
	}
	if ti := req.GetExtra(); ti != nil && ti.TokenInfo != nil {
		c.ID = ti.TokenInfo.UserID
		c.Scopes = ti.TokenInfo.Scopes
		if cid, ok := ti.TokenInfo.Extra["client_id"].(string); ok {
			c.ClientID = cid
		}
	}
	return c
}

// logSlots bounds the log messages being forwarded at once.
var logSlots = make(chan struct{}, 16)

// LogMessages is a host.WithLogMessages callback that forwards the
// backends' log messages to every client of the gateway (each at the level
// it set), the logger named after the backend. The gateway gives it the
// lines that belong to no call (Options.ForwardLogs).
func (g *Gateway) LogMessages(server string, p *mcp.LoggingMessageParams) {
	msg := fromBackend(server, p)
	select {
	case logSlots <- struct{}{}:
	default:
		return // a flood: dropped rather than queued without bound
	}
	go func() {
		defer func() { <-logSlots }()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for ss := range g.srv.Sessions() {
			_ = ss.Log(ctx, msg)
		}
	}()
}

// subscribe subscribes the gateway to the resource at its backend, once
// for all clients; go-sdk keeps which client subscribed to what and sends
// each update to those clients.
func (g *Gateway) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	server := g.resourceOwner(uri)
	if server == "" {
		return mcp.ResourceNotFoundError(uri)
	}
	sid := sessionID(req.Session)
	g.mu.Lock()
	subs := g.subscribers[uri]
	first := len(subs) == 0
	if subs == nil {
		subs = map[string]bool{}
		g.subscribers[uri] = subs
	}
	subs[sid] = true
	g.mu.Unlock()
	if !first {
		return nil
	}
	if err := g.h.Subscribe(ctx, server, uri); err != nil {
		g.mu.Lock()
		delete(g.subscribers[uri], sid)
		if len(g.subscribers[uri]) == 0 {
			delete(g.subscribers, uri)
		}
		g.mu.Unlock()
		return err
	}
	return nil
}

// unsubscribe ends a client's subscription; the backend's ends with the
// last one. A client cannot end another's.
func (g *Gateway) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	sid := sessionID(req.Session)
	g.mu.Lock()
	subs := g.subscribers[uri]
	if !subs[sid] {
		g.mu.Unlock()
		return nil
	}
	delete(subs, sid)
	last := len(subs) == 0
	if last {
		delete(g.subscribers, uri)
	}
	g.mu.Unlock()
	if !last {
		return nil
	}
	if server := g.resourceOwner(uri); server != "" {
		return g.h.Unsubscribe(ctx, server, uri)
	}
	return nil
}

func sessionID(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	return ss.ID()
}

// resourceUpdated passes a backend's notification to the subscribed
// clients.
func (g *Gateway) resourceUpdated(_ string, uri string) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = g.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}()
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/gateway"
	"github.com/mcphost/mcphost/internal/gctune"
	"github.com/mcphost/mcphost/internal/redact"
	"github.com/mcphost/mcphost/internal/termtext"
)

type serveFlags struct {
	pinStore       string
	http           string
	stateless      bool
	replicaID      string
	tokenEnvs      []string
	tokenKeychain  []string
	insecureNoAuth bool
	resourceURL    string
	authServers    []string
	scopes         []string
	origins        []string
	watch          bool
	grace          time.Duration
	maxBody        int64
	jwtIssuer      string
	jwksURL        string
	jwtAudience    string
	metrics        string
	auditLog       string
	auditArgs      bool
	rateLimit      float64
	rateBurst      int
	otlp           string
	forwardLogs    bool
	sessionIdle    time.Duration
	maxPerCaller   int
	maxSessions    int
}

func (a *app) serveCommand() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve [--http ADDR]",
		Short: "Serve every configured server, behind the policies, as one MCP server",
		Long: `Serve the tools, resources and prompts of every configured server as one MCP
server, through mcphost's pipeline (policies, name mapping, transforms,
truncation). Any MCP client (Claude Desktop, VS Code, Cursor, an agent) then
gets them all from one entry.

Without --http it speaks MCP over stdio: standard output carries only the MCP
stream, logs go to standard error. With --http ADDR it serves Streamable HTTP
at /mcp (stateful sessions with resumable streams; --stateless for none) and
the legacy HTTP+SSE transport at /sse. The default ADDR is loopback. Behind a
load balancer, --replica-id NAME begins session IDs with "NAME." so that the
balancer can route each session to its replica (docs/gateway.md: "Several replicas").

Incoming authentication (HTTP): --auth-token-env NAME accepts the bearer token
held in the environment variable NAME, --auth-token-keychain NAME the one kept
by "mcphost secret set NAME" (the OS keychain or mcphost's secret file, see
--secret-store); both repeatable, the caller is
named token:NAME in policy input. --jwt-issuer URL accepts JWT access tokens of
that issuer (signature against its JWKS, issuer, audience = --resource-url,
expiry), advertised in the protected resource metadata so that clients can log
in; the subject, scopes and client id reach policies. Listening on a
non-loopback address without either is refused unless --insecure-no-auth.

HTTP sessions (/mcp and /sse together) are bounded: --max-sessions-per-caller
per caller (its token's identity, else its address; default 100) and
--max-sessions in all (default 10000). Over a bound the least recently used
idle session is closed (its client gets 404 and starts a new one); with none
idle the new one is refused (429, or 503 for the total). A session no request
used for --session-idle-timeout (default 30m) is closed.

A policy's "confirm" becomes an elicitation to the calling client (a denial
for clients that cannot elicit); backends' elicitation, sampling and roots requests
go to the client whose call is waiting on that backend.`,
		Example: `  mcphost serve                                   # stdio, for a client's config
  mcphost serve --http 127.0.0.1:8080
  MCP_TOKEN=... mcphost serve --http 0.0.0.0:8080 --auth-token-env MCP_TOKEN --watch`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.serve(cmd.Context(), f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.http, "http", "", "serve Streamable HTTP (/mcp) and SSE (/sse) on ADDR instead of stdio (e.g. 127.0.0.1:8080)")
	fl.BoolVar(&f.stateless, "stateless", false, "Streamable HTTP without sessions (any replica answers any request)")
	fl.StringVar(&f.replicaID, "replica-id", "", "begin session IDs with NAME. so that a load balancer can route each session to its replica")
	fl.StringArrayVar(&f.tokenEnvs, "auth-token-env", nil, "accept the bearer token in environment variable NAME (repeatable)")
	fl.StringArrayVar(&f.tokenKeychain, "auth-token-keychain", nil, `accept the bearer token kept as the secret NAME ("mcphost secret set NAME"; repeatable)`)
	fl.BoolVar(&f.insecureNoAuth, "insecure-no-auth", false, "allow a non-loopback --http address without incoming authentication")
	fl.StringVar(&f.resourceURL, "resource-url", "", "public URL of /mcp, for the protected resource metadata")
	fl.StringArrayVar(&f.authServers, "authorization-server", nil, "issuer whose tokens are accepted, advertised to clients (repeatable)")
	fl.StringArrayVar(&f.scopes, "scope", nil, "scope every token must have (repeatable)")
	fl.StringArrayVar(&f.origins, "trusted-origin", nil, "browser origin allowed to call the gateway (repeatable)")
	fl.BoolVar(&f.watch, "watch", false, "apply edits of the configuration files while serving")
	fl.DurationVar(&f.grace, "grace", 30*time.Second, "on SIGTERM, how long calls in flight may finish")
	fl.Int64Var(&f.maxBody, "max-body-bytes", gateway.DefaultMaxBodyBytes, "largest HTTP request body")
	fl.StringVar(&f.jwtIssuer, "jwt-issuer", "", "accept JWT access tokens of this issuer, verified against its keys (JWKS)")
	fl.StringVar(&f.jwksURL, "jwks-url", "", "the issuer's JWKS (default: from its metadata)")
	fl.StringVar(&f.jwtAudience, "jwt-audience", "", "the audience JWTs must name (default: --resource-url)")
	fl.StringVar(&f.metrics, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics (a separate address, e.g. 127.0.0.1:9464)")
	fl.StringVar(&f.auditLog, "audit-log", "", "append one JSON line per call to FILE (rotated at 100 MiB, 5 kept)")
	fl.BoolVar(&f.auditArgs, "audit-arguments", false, "put argument values in the audit log too")
	fl.Float64Var(&f.rateLimit, "rate-limit", 0, "HTTP requests per second each caller may make (0: no limit); over it, 429")
	fl.IntVar(&f.rateBurst, "rate-burst", 0, "requests a caller may make at once (default: one second's worth)")
	fl.DurationVar(&f.sessionIdle, "session-idle-timeout", gateway.DefaultSessionIdleTimeout, "close an HTTP session (/mcp or /sse) no request has used for this long")
	fl.IntVar(&f.maxPerCaller, "max-sessions-per-caller", gateway.DefaultMaxSessionsPerCaller, "open HTTP sessions per caller (token identity, else address); over it the caller's least recently used idle one is closed")
	fl.IntVar(&f.maxSessions, "max-sessions", gateway.DefaultMaxSessions, "open HTTP sessions in all; over it the least recently used idle one is closed")
	fl.BoolVar(&f.forwardLogs, "forward-logs", false, "send the backends' log messages that come while no call waits on their backend to every client (a line during a call goes to that call's client either way)")
	fl.StringVar(&f.pinStore, "pin-store", "", "keep the gateway's tool pins in FILE (default: gateway-pins.json in the user's state directory); \"mcphost tools approve --pin-store FILE\" approves in it")
	fl.StringVar(&f.otlp, "otlp-endpoint", "", "export OpenTelemetry traces over OTLP/HTTP to this endpoint (host:port or URL): a span per call and per pipeline stage")
	return cmd
}

func (a *app) serve(ctx context.Context, f serveFlags) error {
	if f.sessionIdle <= 0 || f.maxPerCaller <= 0 || f.maxSessions <= 0 {
		return usageError("--session-idle-timeout, --max-sessions-per-caller and --max-sessions must be positive")
	}
	if f.replicaID != "" {
		if err := gateway.CheckReplicaID(f.replicaID); err != nil {
			return usageError("--replica-id: %v", err)
		}
	}
	var verifier auth.TokenVerifier
	if len(f.tokenEnvs)+len(f.tokenKeychain) > 0 {
		tokens := map[string]string{}
		for _, name := range f.tokenEnvs {
			v := a.getenv(name)
			if v == "" {
				return usageError("--auth-token-env %s: the variable is not set (or empty): export %s=TOKEN, a token of at least 16 characters (for example from \"openssl rand -hex 32\"), or name the variable that holds it", name, name)
			}
			if len(v) < 16 {
				return usageError("--auth-token-env %s: the variable must hold a token of at least 16 characters", name)
			}
			tokens[strings.ToLower(name)] = v
		}
		for _, name := range f.tokenKeychain {
			store, err := a.secretStoreOf()
			if err != nil {
				return err
			}
			v, err := store.Secret(name)
			if err != nil {
				return usageError("--auth-token-keychain %s: %v", name, err)
			}
			if len(v) < 16 {
				return usageError("--auth-token-keychain %s: the secret must be a token of at least 16 characters", name)
			}
			id := strings.ToLower(name)
			if _, dup := tokens[id]; dup {
				return usageError("--auth-token-keychain %s: a token of that name comes from --auth-token-env too", name)
			}
			tokens[id] = v
		}
		verifier = gateway.StaticTokens(tokens)
	}
	if f.jwtIssuer != "" {
		audience := f.jwtAudience
		if audience == "" {
			audience = f.resourceURL
		}
		if audience == "" {
			return usageError("--jwt-issuer needs the audience tokens are issued for: --resource-url (the public URL of /mcp) or --jwt-audience")
		}
		jv, err := gateway.NewJWTVerifier(gateway.JWTOptions{Issuer: f.jwtIssuer, Audience: audience, JWKSURL: f.jwksURL})
		if err != nil {
			return usageError("%v", err)
		}
		if verifier != nil {
			verifier = gateway.AnyOf(verifier, jv)
		} else {
			verifier = jv
		}
		if len(f.authServers) == 0 {
			f.authServers = []string{f.jwtIssuer}
		}
	}
	if f.http != "" && verifier == nil && !gateway.IsLoopback(f.http) && !f.insecureNoAuth {
		return usageError("--http %s is not a loopback address: give --auth-token-env, --auth-token-keychain or --jwt-issuer (or --insecure-no-auth to serve it to anyone who can reach it)", f.http)
	}
	if f.http != "" {
		// A server shared by many clients, small live heap and much
		// garbage: fewer collections (see internal/gctune; GOGC or
		// GOMEMLIMIT in the environment leave the collector to them).
		defer gctune.HeapFloor(gctune.DefaultHeapFloor)()
	}
	var watcher *config.Watcher
	if f.watch {
		// Before the load: an edit made while the host starts is then a
		// change to apply, never missed.
		w, err := config.NewWatcher(a.loadOptions())
		if err != nil {
			return err
		}
		watcher = w
	}
	cfg, err := a.loadConfig()
	if err != nil {
		return err
	}
	var relayOpts []gateway.RelayOption
	if f.stateless && f.http != "" {
		relayOpts = append(relayOpts, gateway.StatelessClients())
	}
	relay := gateway.NewRelay(relayOpts...)
	sink, events := gateway.EventSink()
	pins, err := a.gatewayPinStore(f.pinStore)
	if err != nil {
		return err
	}
	opts := append(relay.HostOptions(), host.WithEvents(sink), host.WithConnectAttempts(0), host.WithPinStore(pins))
	var metrics *gateway.Metrics
	var audit *gateway.AuditLog
	if f.auditLog != "" {
		audit = &gateway.AuditLog{Path: f.auditLog, Arguments: f.auditArgs}
		defer audit.Close()
	}
	// Stage decisions are counted; a tool pin that changed is also a line
	// of the audit log.
	opts = append(opts, host.WithAudit(func(ev host.AuditEvent) {
		metrics.ObserveStage(ev)
		audit.ObservePin(ev)
	}))
	if f.metrics != "" {
		metrics = gateway.NewMetrics()
		mln, err := net.Listen("tcp", f.metrics)
		if err != nil {
			return &exitError{code: exitUsage, err: fmt.Errorf("serve: --metrics: %w", err)}
		}
		msrv := &http.Server{Handler: metricsMux(metrics), ReadHeaderTimeout: 10 * time.Second}
		go msrv.Serve(mln)
		defer msrv.Close()
		fmt.Fprintf(a.stderr, "mcphost gateway: metrics at http://%s/metrics\n", mln.Addr())
	}
	var tracer trace.Tracer
	if f.otlp != "" {
		t, shutdown, err := gateway.NewOTLPTracer(ctx, f.otlp, releaseVersion())
		if err != nil {
			return usageError("--otlp-endpoint: %v", err)
		}
		tracer = t
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			shutdown(sctx)
		}()
	}
	h, err := a.startHostWith(ctx, cfg, opts...)
	if err != nil {
		return err
	}
	defer a.closeHost(h)
	g := gateway.New(h, gateway.Options{Version: releaseVersion(), Relay: relay, Logger: a.log.Named("gateway"), Metrics: metrics, Audit: audit, Tracer: tracer, ForwardLogs: f.forwardLogs, ReplicaID: f.replicaID})
	g.Sync(ctx) // the first client sees every tool
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go g.Watch(watchCtx, events)
	if watcher != nil {
		go a.serveWatch(watchCtx, watcher, h, g)
	}
	a.reportBackends(h)
	if f.http == "" {
		// stdout is the MCP stream: no escaping, no redaction rewriting
		// JSON.
		err := g.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopWriteCloser{rawWriter(a.stdout)}})
		if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	handler, err := g.HTTPHandler(gateway.HTTPOptions{
		Verifier: verifier, ResourceURL: f.resourceURL, AuthorizationServers: f.authServers,
		Scopes: f.scopes, MaxBodyBytes: f.maxBody, Stateless: f.stateless, TrustedOrigins: f.origins,
		RateLimit: f.rateLimit, Burst: f.rateBurst,
		SessionIdleTimeout: f.sessionIdle, MaxSessionsPerCaller: f.maxPerCaller, MaxSessions: f.maxSessions,
	})
	if err != nil {
		return usageError("%v", err)
	}
	ln, err := net.Listen("tcp", f.http)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("serve: %w", err)}
	}
	fmt.Fprintf(a.stderr, "mcphost gateway: serving http://%s/mcp (Streamable HTTP) and http://%s/sse (SSE)\n", ln.Addr(), ln.Addr())
	if err := g.Serve(ctx, ln, handler, f.grace); err != nil {
		fmt.Fprintf(a.stderr, "warning: %v\n", err)
	}
	return nil
}

// reportBackends says on stderr which backends did not start.
func (a *app) reportBackends(h *host.Host) {
	var down, blocked []string
	for _, st := range h.Status() {
		switch st.State {
		case host.StateError, host.StateNeedsAuth, host.StateReconnecting:
			down = append(down, fmt.Sprintf("%s (%s)", st.ID, st.State))
		case host.StateBlocked:
			blocked = append(blocked, fmt.Sprintf("server %s is %s", st.ID, st.Error))
		}
	}
	sort.Strings(down)
	fmt.Fprintf(a.stderr, "mcphost gateway: %s from %s", plural(len(h.Tools()), "tool"), plural(len(h.ServerIDs()), "server"))
	if len(down) > 0 {
		fmt.Fprintf(a.stderr, "; not ready: %s", termtext.Line(strings.Join(down, ", ")))
	}
	fmt.Fprintln(a.stderr)
	// Not served, by the administrator's rule: said once, with the rule.
	for _, b := range blocked {
		fmt.Fprintf(a.stderr, "mcphost gateway: not served: %s\n", termtext.Line(b))
	}
}

// serveWatch applies edits of the configuration files to the running
// host; the gateway follows through the host's events.
func (a *app) serveWatch(ctx context.Context, w *config.Watcher, h *host.Host, g *gateway.Gateway) {
	interval := a.watchInterval
	if interval == 0 {
		interval = config.DefaultWatchInterval
	}
	err := w.Run(ctx, interval, func(cfg *config.Config, err error) {
		if err != nil {
			fmt.Fprintf(a.stderr, "config: ERROR %v (nothing changed)\n", err)
			return
		}
		ch, err := h.SetServers(ctx, cfg)
		if err != nil {
			fmt.Fprintf(a.stderr, "config: ERROR %v\n", err)
			return
		}
		fmt.Fprintf(a.stderr, "config: added %v; removed %v; changed %v\n", ch.Added, ch.Removed, ch.Changed)
		// A server whose entry is broken or untrusted, or that waits for a
		// restart because the policy, plugins or results changed.
		for _, id := range sortedKeys(ch.Errors) {
			fmt.Fprintf(a.stderr, "config: server %s: %s\n", id, termtext.Line(ch.Errors[id].Error()))
		}
		g.Sync(ctx)
	})
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(a.stderr, "warning: --watch: %v\n", err)
	}
}

// rawWriter is the writer under the terminal escaping and the secret
// redaction: the MCP stream must reach the client byte for byte.
func rawWriter(w io.Writer) io.Writer {
	w = termtext.RawOf(w)
	if r, ok := w.(*redact.Writer); ok {
		return r.Unwrap()
	}
	return w
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func metricsMux(m *gateway.Metrics) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	return mux
}

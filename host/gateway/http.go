package gateway

import (
	"sync"

	"context"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// HTTPOptions configure the gateway's HTTP endpoint.
type HTTPOptions struct {
	// Verifier checks the bearer token of every request (StaticTokens,
	// or a JWT verifier). Nil: no incoming authentication.
	Verifier auth.TokenVerifier
	// ResourceURL is the public URL of the /mcp endpoint, advertised in the
	// protected resource metadata (RFC 9728). Default: from the request.
	ResourceURL string
	// AuthorizationServers are the issuers whose tokens Verifier accepts,
	// advertised so that MCP clients can log in. Empty: no metadata.
	AuthorizationServers []string
	// Scopes are required of every token, and advertised.
	Scopes []string
	// MaxBodyBytes caps a request body (default 16 MiB).
	MaxBodyBytes int64
	// Stateless serves Streamable HTTP without sessions (protocol
	// 2026-07-28): any replica can answer any request.
	Stateless bool
	// TrustedOrigins may send browser requests from another origin.
	TrustedOrigins []string
	// RateLimit is how many requests per second each caller may make
	// (its token's identity, else its address); 0: no limit. Burst is
	// how many at once (default: one second's worth).
	RateLimit float64
	Burst     int
	// SessionIdleTimeout closes a session no request has used for that
	// long (default DefaultSessionIdleTimeout).
	SessionIdleTimeout time.Duration
	// MaxSessionsPerCaller and MaxSessions bound the open sessions of
	// Streamable HTTP and SSE together, per caller (its token's identity,
	// else its address) and in all (defaults DefaultMaxSessionsPerCaller
	// and DefaultMaxSessions). Over a bound, the least recently used idle
	// session is closed (its client gets 404 and initialises again); with
	// none idle the new session is refused (429 for the caller's bound,
	// 503 for the total).
	MaxSessionsPerCaller int
	MaxSessions          int
}

// DefaultMaxBodyBytes is the default cap of a request body.
const DefaultMaxBodyBytes = 16 << 20

// HTTPHandler serves Streamable HTTP at /mcp, the legacy HTTP+SSE
// transport at /sse (and its /message endpoint), and the protected resource
// metadata at /.well-known/oauth-protected-resource when tokens are
// verified. Cross-origin browser requests are refused (DNS rebinding, CSRF)
// unless trusted; a Host header that is not localhost on a loopback
// address is refused too, on every path (see checkHost).
func (g *Gateway) HTTPHandler(o HTTPOptions) (http.Handler, error) {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	getServer := func(*http.Request) *mcp.Server { return g.srv }
	bounds := newSessions(o.MaxSessionsPerCaller, o.MaxSessions, o.SessionIdleTimeout)
	var streamable http.Handler = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:           o.Stateless,
		EventStore:          eventStore(o.Stateless),
		MaxRequestBodyBytes: o.MaxBodyBytes,
		// No SessionTimeout: bounds closes idle sessions, and must
		// know which are open.
	})
	if !o.Stateless {
		streamable = bounds.streamable(streamable)
	}
	sse := &sseHandler{srv: g.srv, sessions: bounds, newID: g.newSessionID, maxBody: o.MaxBodyBytes, closeSession: g.inflight.closeSession, open: map[string]*sseSession{}}
	mux := http.NewServeMux()
	var protect func(http.Handler) http.Handler = func(h http.Handler) http.Handler { return h }
	if o.Verifier != nil {
		prmPath := "/.well-known/oauth-protected-resource/mcp"
		mux.Handle(prmPath, prmHandler(o))
		mux.Handle("/.well-known/oauth-protected-resource", prmHandler(o))
		protect = requireToken(o, prmPath)
	}
	limit := newRateLimiter(o.RateLimit, o.Burst)
	mux.Handle("/mcp", protect(limit.wrap(streamable)))
	mux.Handle("/sse", protect(limit.wrap(sse)))
	mux.Handle("/sse/", protect(limit.wrap(sse)))
	cop := http.NewCrossOriginProtection()
	for _, origin := range o.TrustedOrigins {
		if err := cop.AddTrustedOrigin(origin); err != nil {
			return nil, fmt.Errorf("gateway: trusted origin %q: %w", origin, err)
		}
	}
	return checkHost(cop.Handler(mux)), nil
}

// checkHost refuses, on every path, a request that reached a loopback
// address under a Host that is not loopback: a web page whose name was
// rebound to 127.0.0.1 (DNS rebinding) must get nothing, not even the
// metadata, and the foreign name is not repeated back.
func checkHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && IsLoopback(local.String()) && !loopbackHost(r.Host) {
			http.Error(w, "gateway: the Host header does not name this machine (loopback); use http://localhost or http://127.0.0.1", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// loopbackHost reports whether a Host header (with or without a port)
// names the loopback interface.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func eventStore(stateless bool) mcp.EventStore {
	if stateless {
		return nil
	}
	// Resumable streams: a client that lost its SSE stream gets what it
	// missed (bounded in memory; see boundedEvents).
	return newBoundedEvents(defaultEventBudget)
}

// requireToken refuses a request without a valid bearer token, with a 401
// that points at the protected resource metadata.
func requireToken(o HTTPOptions, prmPath string) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			auth.RequireBearerToken(o.Verifier, &auth.RequireBearerTokenOptions{
				ResourceMetadataURL: baseURL(r, o) + prmPath,
				Scopes:              o.Scopes,
				// go-sdk compares the expiry with no skew by default:
				// a JWT the verifier accepts within its leeway would be
				// refused here.
				ClockSkew: jwtLeeway,
			})(h).ServeHTTP(w, r)
		})
	}
}

// baseURL is the public base URL of the gateway: from ResourceURL, else
// the loopback Host the request named (checkHost let only such through on
// a loopback address), else the address the request arrived on. A Host
// header beyond loopback is the client's word, and is never repeated in
// the metadata or the 401 (give ResourceURL for the public name).
func baseURL(r *http.Request, o HTTPOptions) string {
	if o.ResourceURL != "" {
		return strings.TrimSuffix(strings.TrimSuffix(o.ResourceURL, "/"), "/mcp")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if loopbackHost(r.Host) {
		return scheme + "://" + r.Host
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		return scheme + "://" + local.String()
	}
	return scheme + "://localhost"
}

func prmHandler(o HTTPOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resource := o.ResourceURL
		if resource == "" {
			resource = baseURL(r, o) + "/mcp"
		}
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               resource,
			AuthorizationServers:   o.AuthorizationServers,
			ScopesSupported:        o.Scopes,
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "mcphost gateway",
		}).ServeHTTP(w, r)
	})
}

// staticPrefix starts the caller identity of a static token.
const staticPrefix = "token:"

// StaticTokens verifies bearer tokens against a fixed set: each token
// names its caller (the identity policies see). Comparisons take the same
// time whatever the token.
func StaticTokens(tokens map[string]string) auth.TokenVerifier {
	type entry struct{ token, id string }
	var list []entry
	for id, tok := range tokens {
		list = append(list, entry{tok, id})
	}
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		found := ""
		for _, e := range list {
			if subtle.ConstantTimeCompare([]byte(token), []byte(e.token)) == 1 {
				found = e.id
			}
		}
		if found == "" {
			return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
		}
		// A static token does not expire; go-sdk wants an expiry.
		return &auth.TokenInfo{UserID: staticPrefix + found, Expiration: time.Now().Add(time.Hour)}, nil
	}
}

// IsLoopback reports whether a listen address is loopback only
// ("127.0.0.1:8080", "[::1]:0", "localhost:9000").
func IsLoopback(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Serve serves handler on ln until ctx ends; then it stops accepting,
// lets the calls in flight finish within grace, and closes what is left
// (clients' open event streams).
func (g *Gateway) Serve(ctx context.Context, ln net.Listener, handler http.Handler, grace time.Duration) error {
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	go srv.Shutdown(sctx)
	idle := g.relay.waitIdle(sctx)
	srv.Close()
	// The clients' MCP sessions end with the server (go-sdk keeps them
	// until a DELETE or an idle timeout otherwise).
	g.CloseSessions()
	if !idle {
		return fmt.Errorf("gateway: calls still running after %s were cut off", grace)
	}
	return nil
}

// rateLimiter gives each caller a token bucket.
type rateLimiter struct {
	rate  rate.Limit
	burst int

	mu      sync.Mutex
	callers map[string]*callerBucket
}

type callerBucket struct {
	l    *rate.Limiter
	seen time.Time
}

// maxTrackedCallers bounds the buckets kept (addresses of anonymous
// callers are many); idle ones go first.
const maxTrackedCallers = 10000

func newRateLimiter(perSecond float64, burst int) *rateLimiter {
	if perSecond <= 0 {
		return nil
	}
	if burst <= 0 {
		burst = max(1, int(perSecond))
	}
	return &rateLimiter{rate: rate.Limit(perSecond), burst: burst, callers: map[string]*callerBucket{}}
}

func (rl *rateLimiter) wrap(h http.Handler) http.Handler {
	if rl == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := "addr:" + remoteHost(r)
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil && ti.UserID != "" {
			key = "id:" + ti.UserID
		}
		if !rl.allow(key) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many requests for this caller", http.StatusTooManyRequests)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (rl *rateLimiter) allow(key string) bool {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	now := time.Now()
	b := rl.callers[key]
	if b == nil {
		if len(rl.callers) >= maxTrackedCallers {
			for k, v := range rl.callers {
				if now.Sub(v.seen) > time.Minute {
					delete(rl.callers, k)
				}
			}
		}
		b = &callerBucket{l: rate.NewLimiter(rl.rate, rl.burst)}
		rl.callers[key] = b
	}
	b.seen = now
	return b.l.AllowN(now, 1)
}

func remoteHost(r *http.Request) string {
	h, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return h
}

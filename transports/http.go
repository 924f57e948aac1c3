package transports

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerRoundTripper adds headers to the requests it sends. mcphost uses it
// for a server's configured static headers; HeaderFunc is the hook for
// credentials that change (OAuth tokens, signed requests). Header values are
// never logged or put in errors.
type headerRoundTripper struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper

	// Header is set on every request, replacing values of the same names.
	// A "Host" entry sets the request's Host.
	Header http.Header

	// HeaderFunc, if set, is called for every request (after Header is
	// applied) and the headers it returns are set too. An error fails the
	// request; it must not contain the header values.
	HeaderFunc func(*http.Request) (http.Header, error)

	// Origin, if set, limits the headers to requests to exactly that
	// origin (originOf(the server's URL): scheme, host and port), so a
	// redirect to another host, another port, or from https to http never
	// receives the server's credentials.
	Origin string
}

// originOf is u's scheme, host and port ("https://api.example:443"), lower
// case, with the scheme's default port filled in: the unit that
// credentials are set for.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https", "wss":
			port = "443"
		case "http", "ws":
			port = "80"
		}
	}
	return scheme + "://" + strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")) + ":" + port
}

// sameOrigin: a request for a ws(s) server's upgrade goes over http(s).
func sameOrigin(u *url.URL, origin string) bool {
	o := originOf(u)
	return o == origin ||
		strings.Replace(o, "http", "ws", 1) == origin
}

// RoundTrip implements http.RoundTripper. It does not modify req.
func (h *headerRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	base := h.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if (len(h.Header) == 0 && h.HeaderFunc == nil) ||
		(h.Origin != "" && !sameOrigin(req.URL, h.Origin)) {
		return base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	setHeaders(r, h.Header)
	if h.HeaderFunc != nil {
		extra, err := h.HeaderFunc(r)
		if err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
		setHeaders(r, extra)
	}
	return base.RoundTrip(r)
}

func setHeaders(r *http.Request, h http.Header) {
	for k, vs := range h {
		if strings.EqualFold(k, "Host") {
			if len(vs) > 0 {
				r.Host = vs[0]
			}
			continue
		}
		r.Header[http.CanonicalHeaderKey(k)] = slices.Clone(vs)
	}
}

// checkURL validates a server URL without echoing it: it may carry secrets.
func (b *base) checkURL(raw string, schemes ...string) (*url.URL, error) {
	if raw == "" {
		return nil, b.errorf("no url configured")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, b.errorf("invalid url: %v", err)
	}
	if !slices.Contains(schemes, strings.ToLower(u.Scheme)) {
		return nil, b.errorf("invalid url: scheme %q is not one of %s", u.Scheme, strings.Join(schemes, ", "))
	}
	if u.Host == "" {
		return nil, b.errorf("invalid url: no host")
	}
	return u, nil
}

// httpClient builds the client for one server: the configured headers on
// top of the base transport and, for sse/http, the message size limit on
// response bodies.
func (b *base) httpClient(s *Spec, u *url.URL, opts Options, limitBodies bool) *http.Client {
	var c http.Client
	if opts.HTTPClient != nil {
		c = *opts.HTTPClient
	}
	c.Timeout = 0 // event streams last as long as the session
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if limitBodies {
		rt = &limitRoundTripper{base: rt, b: b}
	}
	rt = contextHeaderRoundTripper{base: rt}
	// Inside the static headers: an auth provider's headers win over
	// configured ones of the same name.
	// An auth plugin, when one applies, supplies the credentials; else the
	// server's OAuth handler.
	switch {
	case opts.Auth != nil:
		rt = newAuthRoundTripper(rt, opts.Auth, originOf(u))
	case opts.OAuthHandler != nil:
		b.oauth = newOAuthRoundTripper(rt, opts.OAuthHandler, originOf(u))
		rt = b.oauth
	}
	if len(s.Headers) > 0 || opts.HeaderFunc != nil {
		h := make(http.Header, len(s.Headers))
		for k, v := range s.Headers {
			h.Set(k, v)
		}
		rt = &headerRoundTripper{Base: rt, Header: h, HeaderFunc: opts.HeaderFunc, Origin: originOf(u)}
	}
	c.Transport = &refusalRecorder{base: rt, r: b.refused}
	return &c
}

// refusal is the last 401 an HTTP server answered, cleared by a success.
type refusal struct {
	mu sync.Mutex
	c  *Challenge
}

// refusalRecorder notes 401 answers after the auth provider (if any) had
// its say: the server refuses the credentials mcphost can give.
type refusalRecorder struct {
	base http.RoundTripper
	r    *refusal
}

func (rr *refusalRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := rr.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	rr.r.mu.Lock()
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		rr.r.c = &Challenge{Status: resp.StatusCode, WWWAuthenticate: resp.Header.Get("WWW-Authenticate")}
	case resp.StatusCode < 300:
		rr.r.c = nil
	}
	rr.r.mu.Unlock()
	return resp, err
}

// Refused reports the server's last answer 401 Unauthorized, if no success
// came after it: the server wants credentials that mcphost does not have
// (or that it refused). For sse, http and websocket transports.
func Refused(t any) (Challenge, bool) {
	b := baseOf(t)
	if b == nil {
		return Challenge{}, false
	}
	b.refused.mu.Lock()
	defer b.refused.mu.Unlock()
	if b.refused.c == nil {
		return Challenge{}, false
	}
	return *b.refused.c, true
}

// eventCap is the MaxEventSize given to go-sdk: our own limit on events (see
// eventLimitBody) comes first; this is only a backstop.
func (b *base) eventCap() int {
	return int(b.limit + eventSlack + 4096)
}

// hTTPTransport connects to a server over Streamable HTTP (go-sdk's
// StreamableClientTransport); each Connect starts a new HTTP session.
type hTTPTransport struct {
	base
	url    string
	client *http.Client
}

func newStreamable(s *Spec, opts Options) (*hTTPTransport, error) {
	t := &hTTPTransport{base: newBase(s, opts), url: s.URL}
	u, err := t.checkURL(s.URL, "http", "https")
	if err != nil {
		return nil, err
	}
	t.client = t.httpClient(s, u, opts, true)
	return t, nil
}

// Connect implements mcp.Transport. The connection is go-sdk's own, not a
// wrapper: go-sdk tells it about the session through unexported methods
// (protocol version header, background stream) that a wrapper would hide.
func (t *hTTPTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	inner := &mcp.StreamableClientTransport{
		Endpoint:     t.url,
		HTTPClient:   t.client,
		MaxEventSize: t.eventCap(),
	}
	conn, err := inner.Connect(ctx)
	if err != nil {
		return nil, t.errorf("connect: %w", err)
	}
	return conn, nil
}

// sSETransport connects to a server over the legacy HTTP+SSE transport
// (protocol 2024-11-05, go-sdk's SSEClientTransport).
type sSETransport struct {
	base
	url    string
	client *http.Client
}

func newSSE(s *Spec, opts Options) (*sSETransport, error) {
	t := &sSETransport{base: newBase(s, opts), url: s.URL}
	u, err := t.checkURL(s.URL, "http", "https")
	if err != nil {
		return nil, err
	}
	t.client = t.httpClient(s, u, opts, true)
	return t, nil
}

// Connect implements mcp.Transport. go-sdk ties the event stream to the
// context given to Connect, so the stream gets a context detached from ctx:
// ctx still aborts a hanging connect, but a short startup deadline does not
// end the session later.
func (t *sSETransport) Connect(ctx context.Context) (mcp.Connection, error) {
	streamCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	inner := &mcp.SSEClientTransport{
		Endpoint:     t.url,
		HTTPClient:   t.client,
		MaxEventSize: t.eventCap(),
	}
	conn, err := inner.Connect(streamCtx)
	if !stop() {
		// ctx ended during the connect: the stream is (being) cancelled.
		if err == nil {
			conn.Close()
			err = ctx.Err()
		}
		cancel()
		return nil, t.errorf("connect: %w", err)
	}
	if err != nil {
		cancel()
		return nil, t.errorf("connect: %w", err)
	}
	return &sseConn{Connection: conn, b: &t.base, cancel: cancel}, nil
}

// sseConn adds context to go-sdk's SSE client connection. Wrapping is safe
// here: unlike the streamable one, go-sdk's SSE connection has no session
// hooks.
type sseConn struct {
	mcp.Connection
	b       *base
	cancel  context.CancelFunc
	closing atomic.Bool
}

func (c *sseConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil && errors.Is(err, io.EOF) && !c.closing.Load() && ctx.Err() == nil {
		return nil, c.b.errorf("event stream closed by server: %w", err)
	}
	if err == nil {
		c.b.saw(msg)
	}
	return msg, err
}

func (c *sseConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := c.Connection.Write(ctx, msg); err != nil {
		return c.b.errorf("write: %w", err)
	}
	return nil
}

func (c *sseConn) Close() error {
	c.closing.Store(true)
	err := c.Connection.Close()
	c.cancel()
	return err
}

type requestHeadersKey struct{}

// WithRequestHeaders returns a context whose HTTP requests (sse, http)
// carry h as well: per-call headers such as a tool's Mcp-Param-*
// (SEP-2243). A header the request already has is never replaced, and
// configured and auth headers are set after these.
func WithRequestHeaders(ctx context.Context, h http.Header) context.Context {
	if len(h) == 0 {
		return ctx
	}
	return context.WithValue(ctx, requestHeadersKey{}, h)
}

// contextHeaderRoundTripper adds the headers of WithRequestHeaders.
type contextHeaderRoundTripper struct{ base http.RoundTripper }

func (c contextHeaderRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	h, _ := req.Context().Value(requestHeadersKey{}).(http.Header)
	if len(h) == 0 {
		return c.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	for k, vs := range h {
		if r.Header.Get(k) == "" {
			r.Header[http.CanonicalHeaderKey(k)] = slices.Clone(vs)
		}
	}
	return c.base.RoundTrip(r)
}

package gateway

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sseHandler serves the legacy HTTP+SSE transport (protocol 2024-11-05):
// GET /sse opens a session and its event stream, POST /sse?sessionid=ID
// sends it a message. go-sdk's SSEHandler gives the server neither the
// caller's token nor a session ID, and lets any caller post into any
// session; here each session belongs to the caller that opened it, its
// messages carry the caller's token as on /mcp, it has an ID, and it
// counts in the session bounds.
type sseHandler struct {
	srv      *mcp.Server
	sessions *sessions
	newID    func() string
	maxBody  int64
	// closeSession ends an MCP session in bounded time (the gateway's).
	closeSession func(*mcp.ServerSession)

	mu   sync.Mutex
	open map[string]*sseSession
}

// sseSession is one open /sse session.
type sseSession struct {
	id       string
	caller   string
	tracked  *session
	incoming chan jsonrpc.Message
	done     chan struct{}
	once     sync.Once
}

func (s *sseSession) close() { s.once.Do(func() { close(s.done) }) }

// sseQueue is how many posted messages wait for the session to read them
// (go-sdk's is the same); a POST beyond it waits.
const sseQueue = 100

func (h *sseHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		h.serveStream(w, r)
	case http.MethodPost:
		h.servePost(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "gateway: /sse takes GET (open a session) and POST (send it a message)", http.StatusMethodNotAllowed)
	}
}

func (h *sseHandler) serveStream(w http.ResponseWriter, r *http.Request) {
	caller := callerKey(r)
	tracked, err := h.sessions.reserve(caller)
	if err != nil {
		refuse(w, err)
		return
	}
	defer h.sessions.drop(tracked)
	s := &sseSession{id: h.newID(), caller: caller, tracked: tracked, incoming: make(chan jsonrpc.Message, sseQueue), done: make(chan struct{})}
	endpoint, err := r.URL.Parse("?sessionid=" + s.id)
	if err != nil {
		http.Error(w, "gateway: /sse: cannot make the session's endpoint", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	h.mu.Lock()
	h.open[s.id] = s
	h.mu.Unlock()
	// Idle from the start, before the client learns the endpoint; closing
	// it ends this request, and the MCP session with it.
	h.sessions.register(tracked, s.id, s.close)
	h.sessions.end(tracked)
	defer func() {
		h.mu.Lock()
		delete(h.open, s.id)
		h.mu.Unlock()
	}()
	t := &sseTransport{inner: &mcp.SSEServerTransport{Endpoint: endpoint.RequestURI(), Response: w}, s: s, sessions: h.sessions}
	ss, err := h.srv.Connect(r.Context(), t, nil)
	if err != nil {
		http.Error(w, "gateway: /sse: the session could not start", http.StatusInternalServerError)
		return
	}
	defer h.closeSession(ss)
	select {
	case <-r.Context().Done():
	case <-s.done:
	}
}

func (h *sseHandler) servePost(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	s := h.open[r.URL.Query().Get("sessionid")]
	h.mu.Unlock()
	if s == nil {
		http.Error(w, "gateway: no such /sse session (it ended, or was closed as idle): open a new one with GET /sse", http.StatusNotFound)
		return
	}
	if callerKey(r) != s.caller {
		http.Error(w, "gateway: this /sse session belongs to another caller: open your own with GET /sse", http.StatusForbidden)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		http.Error(w, "gateway: Content-Type must be application/json", http.StatusUnsupportedMediaType)
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "gateway: the message is larger than the body limit (--max-body-bytes)", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "gateway: reading the message failed", http.StatusBadRequest)
		return
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		http.Error(w, "gateway: the body is not a JSON-RPC message", http.StatusBadRequest)
		return
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		// As go-sdk's Streamable HTTP does: the handlers see who sent it.
		req.Extra = &mcp.RequestExtra{TokenInfo: auth.TokenInfoFromContext(r.Context()), Header: r.Header}
	}
	select {
	case s.incoming <- msg:
		w.WriteHeader(http.StatusAccepted)
	case <-s.done:
		http.Error(w, "gateway: the /sse session ended: open a new one with GET /sse", http.StatusNotFound)
	case <-r.Context().Done():
	}
}

// sseTransport is go-sdk's SSE transport for writing the stream, with the
// reading done here (the messages posted to sseHandler).
type sseTransport struct {
	inner    *mcp.SSEServerTransport
	s        *sseSession
	sessions *sessions
}

func (t *sseTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.inner.Connect(ctx) // sends the endpoint event
	if err != nil {
		return nil, err
	}
	return &sseConn{inner: conn, s: t.s, sessions: t.sessions}, nil
}

// SupportsProtocolVersion: the versions go-sdk's SSE transport serves.
func (t *sseTransport) SupportsProtocolVersion(v string) bool {
	return t.inner.SupportsProtocolVersion(v)
}

type sseConn struct {
	inner    mcp.Connection
	s        *sseSession
	sessions *sessions
}

// Read gives the session the next posted message; a request makes the
// session busy (not idle) until its response is written.
func (c *sseConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case msg := <-c.s.incoming:
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.sessions.begin(c.s.tracked)
		}
		return msg, nil
	case <-c.s.done:
		return nil, io.EOF
	}
}

func (c *sseConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.inner.Write(ctx, msg)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.sessions.end(c.s.tracked)
	}
	return err
}

func (c *sseConn) Close() error {
	c.s.close()
	return c.inner.Close()
}

func (c *sseConn) SessionID() string { return c.s.id }

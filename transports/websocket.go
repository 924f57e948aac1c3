package transports

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/coder/websocket"
	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Subprotocol is the WebSocket subprotocol of MCP over WebSocket. Both sides
// require it; each WebSocket text message carries one JSON-RPC message.
const Subprotocol = "mcp"

// webSocketTransport connects to a server over WebSocket (subprotocol "mcp",
// one JSON-RPC message per text message). go-sdk has no WebSocket transport.
type webSocketTransport struct {
	base
	url    string
	client *http.Client
}

func newWebSocketClient(s *Spec, opts Options) (*webSocketTransport, error) {
	t := &webSocketTransport{base: newBase(s, opts), url: s.URL}
	u, err := t.checkURL(s.URL, "ws", "wss", "http", "https")
	if err != nil {
		return nil, err
	}
	// No body limit round tripper: the handshake response body is the
	// connection itself. Message sizes are enforced per message instead.
	t.client = t.httpClient(s, u, opts, false)
	return t, nil
}

// Connect dials the server; ctx bounds the handshake only.
func (t *webSocketTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, resp, err := websocket.Dial(ctx, t.url, &websocket.DialOptions{
		HTTPClient:   t.client,
		Subprotocols: []string{Subprotocol},
	})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			// The body is the server's own explanation (Dial keeps 1 KiB).
			var msg []byte
			if resp.Body != nil {
				msg, _ = io.ReadAll(io.LimitReader(resp.Body, 200))
			}
			if m := strings.TrimSpace(strings.ToValidUTF8(string(msg), "")); m != "" {
				return nil, t.errorf("connect: server answered %s: %s", resp.Status, m)
			}
			return nil, t.errorf("connect: server answered %s", resp.Status)
		}
		return nil, t.errorf("connect: %w", err)
	}
	if c.Subprotocol() != Subprotocol {
		c.Close(websocket.StatusPolicyViolation, "subprotocol mcp required")
		return nil, t.errorf("connect: server did not accept the %q subprotocol", Subprotocol)
	}
	return newWSConn(&t.base, c), nil
}

// newWSConn runs MCP over an established WebSocket; both sides use it.
func newWSConn(b *base, c *websocket.Conn) *msgConn {
	// The limit is ours (wsSource): an oversized message is skipped without
	// being buffered, so an oversized response can fail just its call. The
	// library's limit would close the connection instead.
	c.SetReadLimit(-1)
	conn := newMsgConn(b, &wsSource{c: c, limit: b.limit})
	conn.writeFrame = func(ctx context.Context, data []byte) error {
		// The library closes the connection when a write's context ends
		// mid-message; a cancelled call must not cost the session, and
		// Close unblocks a stuck write anyway.
		return c.Write(context.WithoutCancel(ctx), websocket.MessageText, data)
	}
	conn.shutdown = func() error {
		err := c.Close(websocket.StatusNormalClosure, "")
		if err != nil && (errors.Is(err, net.ErrClosed) || websocket.CloseStatus(err) != -1) {
			err = nil // already closed, or the peer answered with its own status
		}
		if err != nil {
			return b.errorf("close: %w", err)
		}
		return nil
	}
	conn.endErr = func(err error) error {
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			if ce.Code == websocket.StatusNormalClosure || ce.Code == websocket.StatusGoingAway {
				return b.errorf("connection closed by %s (status %d): %w", b.peer, int(ce.Code), io.EOF)
			}
			if ce.Reason != "" {
				return b.errorf("connection closed by %s with status %d (%s): %q", b.peer, int(ce.Code), ce.Code, ce.Reason)
			}
			return b.errorf("connection closed by %s with status %d (%s)", b.peer, int(ce.Code), ce.Code)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
			return b.errorf("connection lost: %w", io.EOF)
		}
		return b.errorf("read: %w", err)
	}
	conn.start()
	return conn
}

// wsSource reads one message at a time, holding at most limit bytes.
type wsSource struct {
	c     *websocket.Conn
	limit int64
}

func (w *wsSource) next() ([]byte, error) {
	for {
		_, r, err := w.c.Reader(context.Background())
		if err != nil {
			return nil, err
		}
		buf, err := io.ReadAll(io.LimitReader(r, w.limit+1))
		if err != nil {
			return nil, err
		}
		if int64(len(buf)) > w.limit {
			env := new(envelopeScanner)
			env.feed(buf)
			if _, err := io.Copy(scanWriter{env}, r); err != nil {
				return nil, err
			}
			return nil, &oversizeError{env}
		}
		if len(strings.TrimSpace(string(buf))) == 0 {
			continue // an empty message carries nothing
		}
		return buf, nil
	}
}

// WebSocketHandlerOptions configures a WebSocketHandler.
type WebSocketHandlerOptions struct {
	// MaxMessageBytes limits each message from a client; zero means
	// DefaultMaxMessageBytes.
	MaxMessageBytes int64

	// OriginPatterns lists the origins (path.Match patterns of host names)
	// from which browsers may connect besides the request's own host.
	OriginPatterns []string

	// DisableLocalhostProtection accepts requests that arrive on a loopback
	// address with a non-loopback Host header. By default they are refused
	// with 403, as go-sdk's HTTP handlers do, against DNS rebinding.
	DisableLocalhostProtection bool

	// Logger receives connection errors; nil discards.
	Logger hclog.Logger
}

// WebSocketHandler serves MCP over WebSocket: it accepts clients that offer
// the "mcp" subprotocol (others get 400) and runs an MCP session of the
// server returned by getServer over each connection.
type WebSocketHandler struct {
	getServer func(*http.Request) *mcp.Server
	opts      WebSocketHandlerOptions
	logger    hclog.Logger

	mu     sync.Mutex
	conns  map[*msgConn]struct{}
	closed bool
}

// NewWebSocketHandler returns a handler serving the server that getServer
// returns for each request (nil refuses the request with 400). opts may be nil.
func NewWebSocketHandler(getServer func(*http.Request) *mcp.Server, opts *WebSocketHandlerOptions) *WebSocketHandler {
	h := &WebSocketHandler{getServer: getServer, conns: make(map[*msgConn]struct{})}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.MaxMessageBytes <= 0 {
		h.opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	h.logger = h.opts.Logger
	if h.logger == nil {
		h.logger = hclog.NewNullLogger()
	}
	return h
}

// ServeHTTP upgrades the request and serves one MCP session until either
// side closes it.
func (h *WebSocketHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.opts.DisableLocalhostProtection && rebound(r) {
		http.Error(w, "forbidden: non-localhost Host header on a localhost connection", http.StatusForbidden)
		return
	}
	if !offersSubprotocol(r, Subprotocol) {
		http.Error(w, `MCP over WebSocket requires the "mcp" subprotocol (Sec-WebSocket-Protocol: mcp)`, http.StatusBadRequest)
		return
	}
	srv := h.getServer(r)
	if srv == nil {
		http.Error(w, "no MCP server for this request", http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		http.Error(w, "server shutting down", http.StatusServiceUnavailable)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:   []string{Subprotocol},
		OriginPatterns: h.opts.OriginPatterns,
	})
	if err != nil {
		h.logger.Debug("websocket handshake failed", "remote", r.RemoteAddr, "error", err)
		return // Accept wrote the response
	}
	b := &base{
		id:     r.RemoteAddr,
		kind:   "websocket",
		limit:  h.opts.MaxMessageBytes,
		peer:   "client",
		logger: h.logger.With("remote", r.RemoteAddr),
	}
	conn := newWSConn(b, c)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		conn.Close()
		return
	}
	h.conns[conn] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.conns, conn)
		h.mu.Unlock()
		conn.Close()
	}()
	// The request context ends with the hijacked request; keep its values only.
	ss, err := srv.Connect(context.WithoutCancel(r.Context()), connTransport{conn}, nil)
	if err != nil {
		h.logger.Debug("mcp session failed to start", "remote", r.RemoteAddr, "error", err)
		return
	}
	if err := ss.Wait(); err != nil {
		h.logger.Debug("mcp session ended", "remote", r.RemoteAddr, "error", err)
	}
}

// Close ends every session and refuses new ones. Hijacked WebSocket
// connections are invisible to http.Server.Shutdown, hence this method.
func (h *WebSocketHandler) Close() error {
	h.mu.Lock()
	h.closed = true
	conns := make([]*msgConn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Close()
		}()
	}
	wg.Wait()
	return nil
}

func offersSubprotocol(r *http.Request, want string) bool {
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(p), want) {
				return true
			}
		}
	}
	return false
}

// rebound reports a request that reached a loopback address under a foreign
// host name: the signature of a DNS rebinding attack from a browser.
func rebound(r *http.Request) bool {
	la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	tcp, ok := la.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// connTransport hands an existing connection to Server.Connect.
type connTransport struct{ c mcp.Connection }

func (t connTransport) Connect(context.Context) (mcp.Connection, error) { return t.c, nil }

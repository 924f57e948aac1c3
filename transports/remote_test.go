package transports_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/transports"
)

const secret = "header-secret-value-4711"

// headerRecorder is a middleware that remembers the X-Test-Token values the
// server received and can refuse every request with 401.
type headerRecorder struct {
	mu     sync.Mutex
	seen   []string
	refuse bool
}

func (h *headerRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.seen = append(h.seen, r.Header.Get("X-Test-Token"))
		refuse := h.refuse
		h.mu.Unlock()
		if refuse {
			http.Error(w, "go away", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (h *headerRecorder) values() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

type remoteKind struct {
	transport string
	serve     func(testing.TB, *mcp.Server, ...hosttest.Middleware) string
}

var remoteKinds = []remoteKind{
	{transports.KindHTTP, hosttest.ServeHTTP},
	{transports.KindSSE, hosttest.ServeSSE},
	{transports.KindWebSocket, hosttest.ServeWebSocket},
}

func remoteSpec(kind, url string) transports.Spec {
	return transports.Spec{
		ID:      "remote",
		Kind:    kind,
		URL:     url,
		Headers: map[string]string{"X-Test-Token": secret},
	}
}

func newTransport(t *testing.T, s transports.Spec, opts transports.Options) mcp.Transport {
	t.Helper()
	tr, err := transports.New(s, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tr
}

func TestRemoteConnectListCallHeaders(t *testing.T) {
	for _, k := range remoteKinds {
		t.Run(k.transport, func(t *testing.T) {
			rec := &headerRecorder{}
			url := k.serve(t, hosttest.NewEchoServer(), rec.wrap)
			cs := connect(t, newTransport(t, remoteSpec(k.transport, url), transports.Options{}), nil)
			if names := toolNames(t, cs); !contains(names, "echo") || !contains(names, "add") {
				t.Errorf("tools = %v", names)
			}
			if got := mustCall(t, cs, "echo", map[string]any{"text": "over " + k.transport}); got != "over "+k.transport {
				t.Errorf("echo = %q", got)
			}
			if err := cs.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
			seen := rec.values()
			if len(seen) == 0 {
				t.Fatal("no request reached the server")
			}
			for _, v := range seen {
				if v != secret {
					t.Errorf("a request arrived with X-Test-Token %q", v)
				}
			}
		})
	}
}

func TestRemoteErrorsDoNotLeakHeaders(t *testing.T) {
	for _, k := range remoteKinds {
		t.Run(k.transport, func(t *testing.T) {
			rec := &headerRecorder{refuse: true}
			url := k.serve(t, hosttest.NewEchoServer(), rec.wrap)
			_, err := connectErr(t, newTransport(t, remoteSpec(k.transport, url), transports.Options{}), nil)
			if err == nil {
				t.Fatal("connect succeeded against a server refusing everything")
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error leaks the header value: %v", err)
			}
			if len(rec.values()) == 0 || rec.values()[0] != secret {
				t.Errorf("header not sent: %q", rec.values())
			}
		})
	}
}

func TestRemoteMessageTooLarge(t *testing.T) {
	for _, k := range remoteKinds {
		t.Run(k.transport, func(t *testing.T) {
			url := k.serve(t, hosttest.NewEchoServer())
			s := remoteSpec(k.transport, url)
			s.MaxMessageBytes = 4096
			cs := connect(t, newTransport(t, s, transports.Options{}), nil)
			if got := mustCall(t, cs, "big", map[string]any{"n": 1000}); len(got) != 1000 {
				t.Errorf("big 1000 returned %d bytes", len(got))
			}
			_, err := callText(t, cs, "big", map[string]any{"n": 200000})
			want := `server "remote": message larger than max_message_bytes (4096 bytes); raise max_message_bytes for this server`
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("error = %v\nwant it to contain %q", err, want)
			}
			if got := mustCall(t, cs, "echo", map[string]any{"text": "still here"}); got != "still here" {
				t.Errorf("echo after oversized response = %q", got)
			}
		})
	}
}

// Streamable HTTP servers may answer with application/json instead of an
// event stream; the limit holds there too.
func TestHTTPJSONResponseTooLarge(t *testing.T) {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return hosttest.NewEchoServer() },
		&mcp.StreamableHTTPOptions{JSONResponse: true})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	s := remoteSpec(transports.KindHTTP, ts.URL)
	s.MaxMessageBytes = 4096
	cs := connect(t, newTransport(t, s, transports.Options{}), nil)
	_, err := callText(t, cs, "big", map[string]any{"n": 200000})
	if err == nil || !strings.Contains(err.Error(), "max_message_bytes (4096 bytes)") {
		t.Fatalf("error = %v", err)
	}
	if got := mustCall(t, cs, "echo", map[string]any{"text": "json"}); got != "json" {
		t.Errorf("echo = %q", got)
	}
}

// go-sdk ties the SSE event stream to the context given to Connect; ours
// must survive the end of a connect deadline.
func TestSSESurvivesConnectContext(t *testing.T) {
	url := hosttest.ServeSSE(t, hosttest.NewEchoServer())
	tr := newTransport(t, remoteSpec(transports.KindSSE, url), transports.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	cancel()
	for i := range 3 {
		if got := mustCall(t, cs, "echo", map[string]any{"text": "after cancel"}); got != "after cancel" {
			t.Fatalf("call %d: echo = %q", i, got)
		}
	}
}

func TestSSEConnectContextStillBoundsConnect(t *testing.T) {
	// A server that accepts the event stream but never sends the endpoint.
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	tr := newTransport(t, remoteSpec(transports.KindSSE, ts.URL), transports.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := tr.Connect(ctx)
		errc <- err
	}()
	cancel()
	if err := <-errc; err == nil || !strings.HasPrefix(err.Error(), `transports: sse "remote": connect`) {
		t.Errorf("err = %v", err)
	}
}

func TestWebSocketRequiresSubprotocol(t *testing.T) {
	url := hosttest.ServeWebSocket(t, hosttest.NewEchoServer())

	// A WebSocket client without the subprotocol is refused with 400.
	_, resp, err := websocket.Dial(testCtx(t), url, nil)
	if err == nil {
		t.Fatal("dial without subprotocol succeeded")
	}
	if resp == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("response = %v", resp)
	}

	// So is a plain HTTP request, with an explanation.
	res, err := http.Get("http" + strings.TrimPrefix(url, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"mcp" subprotocol`) {
		t.Errorf("plain GET: %d %q", res.StatusCode, body)
	}

	// A client with the subprotocol gets it.
	c, _, err := websocket.Dial(testCtx(t), url, &websocket.DialOptions{Subprotocols: []string{"other", "mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Subprotocol() != "mcp" {
		t.Errorf("subprotocol = %q", c.Subprotocol())
	}
	c.CloseNow()
}

func TestWebSocketClientRefusesServerWithoutSubprotocol(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil) // negotiates no subprotocol
		if err != nil {
			return
		}
		c.Read(r.Context())
		c.CloseNow()
	}))
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	tr := newTransport(t, remoteSpec(transports.KindWebSocket, "ws"+strings.TrimPrefix(ts.URL, "http")), transports.Options{})
	_, err := tr.Connect(testCtx(t))
	if err == nil || !strings.Contains(err.Error(), `did not accept the "mcp" subprotocol`) {
		t.Errorf("err = %v", err)
	}
}

func TestWebSocketWireFormat(t *testing.T) {
	url := hosttest.ServeWebSocket(t, hosttest.NewEchoServer())
	c, _, err := websocket.Dial(testCtx(t), url, &websocket.DialOptions{Subprotocols: []string{"mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	ctx := testCtx(t)
	send := func(msg string) {
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	typ, data, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if typ != websocket.MessageText || !strings.Contains(string(data), `"id":1`) || !strings.Contains(string(data), `"protocolVersion"`) {
		t.Errorf("initialize answer: %v %s", typ, data)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"raw"}}}`)
	_, data, err = c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"id":2`) || !strings.Contains(string(data), `"text":"raw"`) {
		t.Errorf("tools/call answer: %s", data)
	}
}

func TestWebSocketPeerClose(t *testing.T) {
	srv := hosttest.NewEchoServer()
	h := transports.NewWebSocketHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	tr := newTransport(t, remoteSpec(transports.KindWebSocket, "ws"+strings.TrimPrefix(ts.URL, "http")), transports.Options{})
	conn, err := tr.Connect(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	h.Close() // closes the server side of every session
	_, err = conn.Read(testCtx(t))
	if err == nil || !errors.Is(err, io.EOF) || !strings.Contains(err.Error(), `transports: websocket "remote": connection closed by server`) {
		t.Errorf("read after peer close: %v", err)
	}
	if _, err := conn.Read(testCtx(t)); err == nil {
		t.Error("second read succeeded")
	}
}

func TestWebSocketHandlerRefusesRebinding(t *testing.T) {
	url := hosttest.ServeWebSocket(t, hosttest.NewEchoServer())
	req, _ := http.NewRequest("GET", "http"+strings.TrimPrefix(url, "ws"), nil)
	req.Host = "evil.example"
	req.Header.Set("Sec-WebSocket-Protocol", "mcp")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("status = %d", res.StatusCode)
	}
}

func TestInProcess(t *testing.T) {
	tr := newTransport(t, transports.Spec{ID: "mem", Kind: transports.KindInProcess},
		transports.Options{Server: hosttest.NewEchoServer()})
	for i := range 2 {
		cs := connect(t, tr, nil)
		if got := mustCall(t, cs, "echo", map[string]any{"text": "in memory"}); got != "in memory" {
			t.Errorf("connect %d: echo = %q", i, got)
		}
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
	if _, err := transports.New(transports.Spec{ID: "mem", Kind: transports.KindInProcess}, transports.Options{}); err == nil {
		t.Error("New accepted an inprocess server without Options.Server")
	}
}

func TestInProcessMessageTooLarge(t *testing.T) {
	tr := newTransport(t, transports.Spec{ID: "mem", Kind: transports.KindInProcess, MaxMessageBytes: 4096},
		transports.Options{Server: hosttest.NewEchoServer()})
	cs := connect(t, tr, nil)
	_, err := callText(t, cs, "big", map[string]any{"n": 100000})
	if !errors.Is(err, transports.ErrMessageTooLarge) {
		t.Fatalf("err = %v", err)
	}
	if got := mustCall(t, cs, "echo", map[string]any{"text": "ok"}); got != "ok" {
		t.Errorf("echo = %q", got)
	}
}

func TestNewValidates(t *testing.T) {
	for _, s := range []transports.Spec{
		{ID: "a", Kind: "carrier-pigeon"},
		{ID: "b"},
		{ID: "c", Kind: transports.KindHTTP},
		{ID: "d", Kind: transports.KindHTTP, URL: "ftp://x/"},
		{ID: "e", Kind: transports.KindWebSocket, URL: "ws://"},
		{ID: "f", Kind: transports.KindSSE, URL: "http://h/%zz?token=" + secret},
	} {
		tr, err := transports.New(s, transports.Options{})
		if err == nil || tr != nil {
			t.Errorf("%s: New = %v, %v; want an error", s.ID, tr, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), "transports: ") || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: error %q", s.ID, err)
		}
	}
}

func TestHeaderRoundTripper(t *testing.T) {
	var got []http.Header
	var mu sync.Mutex
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
	}))
	defer ts.Close()
	rt := &transports.HeaderRoundTripper{
		Header: http.Header{"X-Static": {"s"}},
		HeaderFunc: func(r *http.Request) (http.Header, error) {
			if r.Header.Get("X-Static") != "s" {
				t.Error("HeaderFunc ran before the static headers were set")
			}
			return http.Header{"Authorization": {"Bearer dynamic"}}, nil
		},
		Origin: "http://" + strings.TrimPrefix(ts.URL, "http://"),
	}
	req, _ := http.NewRequest("GET", ts.URL, nil)
	res, err := (&http.Client{Transport: rt}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if len(req.Header) != 0 {
		t.Errorf("request modified: %v", req.Header)
	}
	// Another host name for the same server: no credentials.
	res, err = (&http.Client{Transport: rt}).Get("http://localhost:" + ts.URL[strings.LastIndex(ts.URL, ":")+1:])
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].Get("X-Static") != "s" || got[0].Get("Authorization") != "Bearer dynamic" {
		t.Errorf("first request headers: %v", got)
	}
	if got[1].Get("X-Static") != "" || got[1].Get("Authorization") != "" {
		t.Errorf("headers sent to another host: %v", got[1])
	}

	rt.HeaderFunc = func(*http.Request) (http.Header, error) { return nil, errors.New("no token") }
	if _, err := (&http.Client{Transport: rt}).Get(ts.URL); err == nil || !strings.Contains(err.Error(), "no token") {
		t.Errorf("HeaderFunc error: %v", err)
	}
}

func TestOptionsHeaderFunc(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	url := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	})
	tr := newTransport(t, transports.Spec{ID: "auth", Kind: transports.KindHTTP, URL: url}, transports.Options{
		HeaderFunc: func(*http.Request) (http.Header, error) {
			return http.Header{"Authorization": {"Bearer t0k"}}, nil
		},
	})
	cs := connect(t, tr, nil)
	mustCall(t, cs, "echo", map[string]any{"text": "x"})
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[0] != "Bearer t0k" {
		t.Errorf("Authorization headers seen: %q", seen)
	}
}

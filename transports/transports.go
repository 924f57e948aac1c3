// Package transports turns the description of one server (a Spec) into an
// mcp.Transport of the go-sdk: stdio (a child process in its own process
// group), legacy HTTP+SSE, Streamable HTTP, WebSocket (which go-sdk lacks) and
// in-process servers.
//
// A Spec holds only what a transport needs, so this package knows nothing of
// config files, trust or invalid entries: the host builds the Spec from its
// configuration and refuses invalid entries before asking for a transport.
//
// Every transport can be Connect-ed again after its connection closed: each
// Connect starts a new process or a new HTTP session, which is how the host
// reconnects. Every transport enforces the server's max_message_bytes with an
// error that says which setting to raise, and errors start with their origin
// (`transports: stdio "github": ...`) but never contain environment or header
// values.
package transports

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Kinds of transport, the values of Spec.Kind. They are spelled as the
// transport names of config files, so the host can pass a name through.
const (
	KindStdio     = "stdio"
	KindSSE       = "sse"
	KindHTTP      = "http"
	KindWebSocket = "websocket"
	// KindInProcess is a Go *mcp.Server in this process (Options.Server).
	KindInProcess = "inprocess"
)

// DefaultMaxMessageBytes is the message size limit of a Spec that sets
// none. It is the same as the config default, so that a Spec built by hand
// (a library user, a test) behaves as a configured server.
const DefaultMaxMessageBytes = 16 << 20

// Spec describes one server as far as its transport is concerned. It is
// this package's own type, not the host's config entry, so that transports
// can be built and tested without config and cannot come to depend on it.
// New copies what it keeps: the caller may change the Spec afterwards.
type Spec struct {
	// ID names the server in errors and logs.
	ID string
	// Kind is one of the Kind* constants.
	Kind string

	// Command, Args, Env and Cwd start a stdio server. Env is merged over
	// the host's environment, its values winning; a PATH in Env is also
	// where Command is looked up.
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string

	// URL is the endpoint of an sse, http or websocket server. Headers are
	// sent with every request to the URL's origin (and never elsewhere).
	URL     string
	Headers map[string]string

	// MaxMessageBytes bounds every message received from the server; zero
	// or less means DefaultMaxMessageBytes.
	MaxMessageBytes int64
}

// Options carries what a Spec cannot: process-wide objects and knobs.
type Options struct {
	// Logger receives the stderr lines of stdio servers (at debug level) and
	// transport warnings, always tagged with the server id. Nil discards.
	Logger hclog.Logger

	// HTTPClient is the base client for sse, http and websocket servers. Its
	// Transport (nil: http.DefaultTransport), Jar and CheckRedirect are kept;
	// its Timeout is ignored because event streams live as long as the session.
	// Nil uses a client around http.DefaultTransport.
	HTTPClient *http.Client

	// HeaderFunc, if set, is called for every HTTP request to an sse, http or
	// websocket server and the headers it returns are added after the
	// configured ones: the hook for credentials that change (see
	// headerRoundTripper.HeaderFunc).
	HeaderFunc func(*http.Request) (http.Header, error)

	// Auth, if set, supplies credentials for sse, http and websocket
	// servers: asked on the first request, when its headers expire, and
	// after a 401 or 403 (the refused request is retried once).
	Auth AuthFunc

	// OAuthHandler, if set (and Auth is not), authorizes the requests of an
	// sse, http or websocket server with go-sdk's OAuth machinery
	// (auth.AuthorizationCodeHandler: protected-resource and
	// authorization-server discovery, client registration, PKCE, token
	// refresh): it supplies the token and is asked to authorize after a 401
	// or 403. A handler that implements RequestAuthorizer presents its own
	// tokens (DPoP).
	OAuthHandler auth.OAuthHandler

	// Server is the in-process server of a KindInProcess Spec.
	Server *mcp.Server

	// Received, if set, sees every message read from a stdio, sse,
	// websocket or inprocess server in the order read, before go-sdk does
	// (Streamable HTTP connections are go-sdk's own: not there). go-sdk
	// hands notifications on on a goroutine of its own, so that a call
	// may return before a notification the server sent during it is
	// handled; here it is not. It runs on the read loop: it must not
	// block, nor keep msg.
	Received func(msg jsonrpc.Message)

	// StdinGrace is how long Close waits for a stdio server to exit after its
	// stdin was closed, before sending SIGTERM to its process group. Zero means
	// DefaultStdinGrace. Many Node servers ignore stdin EOF and always cost
	// this much, so keep it short.
	StdinGrace time.Duration

	// TermGrace is how long Close waits after SIGTERM before SIGKILL, for the
	// server and for anything left in its process group. Zero means
	// DefaultTermGrace.
	TermGrace time.Duration
}

// Defaults for Options.
const (
	DefaultStdinGrace = 2 * time.Second
	DefaultTermGrace  = 2 * time.Second
)

// ErrMessageTooLarge is wrapped by errors about a message bigger than the
// server's max_message_bytes. Over HTTP the error crosses go-sdk as text only,
// so errors.Is works for stdio, websocket and inprocess servers.
var ErrMessageTooLarge = errors.New("message larger than max_message_bytes")

// ErrServerExited is wrapped by the read error of a stdio connection whose
// server process exited without being asked to (crash, exit at start...).
var ErrServerExited = errors.New("server process exited")

// ErrResponseRefused matches the error of a call whose answer the
// connection refused (over max_message_bytes, or not decodable) while the
// connection itself goes on: only that call failed.
var ErrResponseRefused = errors.New("response refused")

// ErrServerFailed matches, besides ErrServerExited, the error of a stdio
// server that exited with a status other than 0 or was killed: it crashed,
// rather than ended the session.
var ErrServerFailed = errors.New("server process failed")

// serverFailed marks err as ErrServerFailed without changing its text.
type serverFailed struct{ error }

func (e serverFailed) Unwrap() []error { return []error{e.error, ErrServerFailed} }

// Delivery records whether a request was written whole to the server, so
// that a caller whose request failed can tell one that never left (safe to
// send again) from one that may have run. A connection can fail a request
// with its read error before or after writing it; only the writer knows.
// The stdio, in-process and WebSocket transports record it (TracksDelivery).
type Delivery struct{ sent atomic.Bool }

type deliveryKey struct{}

// WithDelivery returns ctx that makes a request sent with it record into d.
func WithDelivery(ctx context.Context, d *Delivery) context.Context {
	return context.WithValue(ctx, deliveryKey{}, d)
}

// Sent reports whether the request was written whole.
func (d *Delivery) Sent() bool { return d.sent.Load() }

// TracksDelivery reports whether t's connections record Delivery.
func TracksDelivery(t mcp.Transport) bool {
	switch t.(type) {
	case *stdioTransport, *inProcessTransport, *webSocketTransport:
		return true
	}
	return false
}

// New returns the transport for s. It checks the fields the transport needs
// but does not connect: that happens in Connect, once per session. The
// concrete types are not part of the API; a stdio transport also has
// StderrTail() []string (the server's last stderr lines), PID() int and
// Abort() (kill the process group now), reached through an interface:
//
//	if st, ok := t.(interface{ StderrTail() []string }); ok { ... }
func New(s Spec, opts Options) (mcp.Transport, error) {
	switch s.Kind {
	case KindStdio:
		return check(newStdio(&s, opts))
	case KindHTTP:
		return check(newStreamable(&s, opts))
	case KindSSE:
		return check(newSSE(&s, opts))
	case KindWebSocket:
		return check(newWebSocketClient(&s, opts))
	case KindInProcess:
		return check(newInProcess(&s, opts))
	case "":
		return nil, fmt.Errorf("transports: server %q: no transport set", s.ID)
	default:
		return nil, fmt.Errorf("transports: server %q: unknown transport %q", s.ID, s.Kind)
	}
}

// check avoids returning a typed nil pointer as a non-nil mcp.Transport.
func check[T mcp.Transport](t T, err error) (mcp.Transport, error) {
	if err != nil {
		return nil, err
	}
	return t, nil
}

// base holds what every transport knows about its server.
type base struct {
	id     string // server id, for errors and logs
	kind   string // transport name, for errors
	limit  int64  // max message bytes
	peer   string // who sends what we read: "server", or "client" in WebSocketHandler
	logger hclog.Logger
	// refused records the last 401 answer of an HTTP server (see
	// Refused); shared by the transport's connections.
	refused *refusal
	// oauth authorizes an HTTP server's requests (nil: no OAuth handler).
	oauth *oauthRoundTripper
	// received is Options.Received (nil: none).
	received func(jsonrpc.Message)
}

// saw passes a message read to Options.Received.
func (b *base) saw(msg jsonrpc.Message) {
	if b.received != nil && msg != nil {
		b.received(msg)
	}
}

func newBase(s *Spec, opts Options) base {
	limit := s.MaxMessageBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	logger := opts.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return base{
		refused:  &refusal{},
		id:       s.ID,
		kind:     s.Kind,
		limit:    limit,
		peer:     "server",
		logger:   logger.With("server", s.ID, "transport", s.Kind),
		received: opts.Received,
	}
}

// errorf returns an error prefixed with the transport and server id.
func (b *base) errorf(format string, args ...any) error {
	return fmt.Errorf("transports: %s %q: "+format, append([]any{b.kind, b.id}, args...)...)
}

// tooLarge is the error for a message over the limit.
func (b *base) tooLarge() error {
	return &tooLargeError{peer: b.peer, id: b.id, limit: b.limit}
}

type tooLargeError struct {
	peer  string
	id    string
	limit int64
}

func (e *tooLargeError) Error() string {
	if e.peer != "server" {
		return fmt.Sprintf("%s %q: message larger than the limit (%d bytes)", e.peer, e.id, e.limit)
	}
	return fmt.Sprintf("server %q: message larger than max_message_bytes (%d bytes); raise max_message_bytes for this server", e.id, e.limit)
}

func (e *tooLargeError) Unwrap() []error {
	return []error{ErrMessageTooLarge, ErrResponseRefused}
}

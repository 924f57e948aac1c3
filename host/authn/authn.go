// Package authn gives each sse, http and websocket server its credentials,
// from the server's auth block (config.Auth): a static bearer token or API
// key, a token file, and OAuth 2.1 — the authorization-code login with
// tokens kept in the OS keychain or a file and refreshed before they
// expire, client credentials (client secret or private-key JWT), the
// JWT-bearer grant of workload identity, and enterprise-managed
// authorization. DPoP-bound tokens (RFC 9449) are presented with a fresh
// proof per request.
//
// Discovery, registration, PKCE and the code exchange are go-sdk's
// (auth.AuthorizationCodeHandler, auth/extauth); this package adds what
// go-sdk leaves to the host: the login experience, persistence, DPoP,
// private-key JWTs and the JWT-bearer grant.
package authn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/mcphost/mcphost/host/config"
)

// Options are what a server's credentials need besides its config entry.
type Options struct {
	// Store keeps the tokens of authorization-code logins. Nil keeps them
	// in memory only (an embedding that logs in on every start).
	Store Store

	// UI shows the user where to authorize. Nil: nobody can, and a server
	// that needs a login is left in state needs-auth.
	UI UI

	// Ask says when a running server may ask the user through UI. The
	// zero value, AskNever, leaves that to Login ("mcphost login").
	Ask AskMode

	// HTTPClient sends the requests to authorization servers. Nil: a client
	// with a 30 s timeout around http.DefaultTransport.
	HTTPClient *http.Client

	// Logger receives notes about refreshes and logins (never a token).
	Logger hclog.Logger

	// clock is the package's own tests' clock; nil: time.Now.
	clock func() time.Time
}

func (o *Options) httpClient() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return &http.Client{Timeout: 30 * time.Second}
}

func (o *Options) now() time.Time {
	if o.clock != nil {
		return o.clock()
	}
	return time.Now()
}

func (o *Options) logger() hclog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return hclog.NewNullLogger()
}

// AskMode says when a server's authorization may ask the user.
type AskMode int

const (
	// AskNever: a server that needs the user is left in state needs-auth.
	AskNever AskMode = iota
	// AskStepUp: a server that wants more scopes (403 insufficient_scope)
	// asks; one that needs a first login does not (the CLI in a terminal).
	AskStepUp
	// AskAlways: any authorization the server needs asks (an application
	// with its own prompt; Login).
	AskAlways
)

// Credentials is what a server's requests carry: static headers, or an
// OAuth handler. Both nil: nothing.
type Credentials struct {
	// Header returns the headers of each request (bearer, api_key,
	// token_file).
	Header func(*http.Request) (http.Header, error)
	// OAuth authorizes the requests (oauth and its relatives).
	OAuth auth.OAuthHandler
}

// ErrLoginRequired is matched by the error of a server that needs an
// interactive login that nobody can do now.
var ErrLoginRequired = errors.New("login required")

// LoginRequiredError names the server and what the user must do.
type LoginRequiredError struct {
	ID     string
	Reason string // why ("no stored login", "the refresh token was refused"...)
	Scope  string // for a step-up: the scope the server asked for
	// AdHoc is what to do instead of "mcphost login" for a server typed on
	// the command line (AdHocAdvice); "" for a configured server.
	AdHoc string
}

func (e *LoginRequiredError) Error() string {
	do := "run \"mcphost login " + e.ID + "\""
	if e.AdHoc != "" {
		if e.Scope == "" {
			return fmt.Sprintf("server %q needs credentials: %s", e.ID, e.AdHoc)
		}
		do = e.AdHoc
	}
	if e.Scope != "" {
		return fmt.Sprintf("server %q needs more permissions (scope %q): %s; %s", e.ID, e.Scope, e.Reason, do)
	}
	return fmt.Sprintf("server %q needs a login: %s; %s", e.ID, e.Reason, do)
}

// AdHocAdvice says how to give credentials to s, a server typed on the
// command line (config.Server.AdHoc), which "mcphost login" cannot reach:
// it logs in to configured servers only. "" for a configured server.
func AdHocAdvice(s *config.Server) string {
	if !s.AdHoc {
		return ""
	}
	const login = `"mcphost login" is for configured servers: add it with "mcphost mcp add NAME URL", then run "mcphost login NAME"`
	for name := range s.Headers {
		if strings.EqualFold(name, "Authorization") {
			return "it refused the Authorization header given with -H: check the token (mistyped, expired, or for another server); " + login
		}
	}
	return "give it a token with -H 'Authorization: Bearer …' (or -H 'Name: ${VAR}' for another header); " + login
}

func (e *LoginRequiredError) Unwrap() error { return ErrLoginRequired }

// New returns the credentials of server s. A server with no auth block gets
// an OAuth handler that uses stored logins and discovers everything else
// when the server asks for authorization.
func New(s *config.Server, opts Options) (Credentials, error) {
	a := s.Auth
	switch a.Type {
	case config.AuthNone:
		return Credentials{}, nil
	case config.AuthBearer:
		return Credentials{Header: staticHeader("Authorization", "Bearer "+a.Token)}, nil
	case config.AuthAPIKey:
		return Credentials{Header: staticHeader(a.Header, a.Key)}, nil
	case config.AuthTokenFile:
		return Credentials{Header: newTokenFile(s.ID, a.TokenFile).header}, nil
	case config.AuthAuto, config.AuthOAuth:
		h, err := newCodeHandler(s, opts, false)
		if err != nil {
			return Credentials{}, err
		}
		return Credentials{OAuth: h}, nil
	case config.AuthClientCredentials:
		h, err := newClientCredentials(s, opts)
		if err != nil {
			return Credentials{}, err
		}
		return Credentials{OAuth: h}, nil
	case config.AuthJWTBearer:
		return Credentials{OAuth: newJWTBearer(s, opts)}, nil
	case config.AuthEnterprise:
		return Credentials{OAuth: newEnterprise(s, opts)}, nil
	}
	return Credentials{}, fmt.Errorf("authn: server %q: unknown auth type %q", s.ID, a.Type)
}

// Login makes a handler for "mcphost login": it ignores stored tokens, so
// that the server's first refusal starts an authorization through
// opts.UI, and stores the new tokens. Only for the authorization-code
// flow (no auth block, or an oauth block).
func Login(s *config.Server, opts Options) (auth.OAuthHandler, error) {
	if s.Auth.Type != config.AuthAuto && s.Auth.Type != config.AuthOAuth {
		return nil, fmt.Errorf("authn: server %q uses auth type %s, which needs no login", s.ID, s.Auth.Type)
	}
	if opts.UI == nil {
		return nil, fmt.Errorf("authn: server %q: a login needs a UI", s.ID)
	}
	opts.Ask = AskAlways
	return newCodeHandler(s, opts, true)
}

type loginCtxKey struct{}

// WithLoginContext returns ctx carrying owner as the context of any
// interactive authorization that a request made with ctx starts: the
// authorization ends when owner does (the user's Ctrl-C on "mcphost
// login"), not when the request's own deadline passes.
func WithLoginContext(ctx, owner context.Context) context.Context {
	return context.WithValue(ctx, loginCtxKey{}, owner)
}

// loginContext is the context for an interactive authorization started by
// a request with ctx: its owner's, else ctx without its deadline, bounded
// by loginWait (plus time for the exchange).
func loginContext(ctx context.Context) (context.Context, context.CancelFunc) {
	parent, ok := ctx.Value(loginCtxKey{}).(context.Context)
	if !ok {
		parent = context.WithoutCancel(ctx)
	}
	return context.WithTimeout(parent, loginWait+time.Minute)
}

package host_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/oauth2"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// fakeOAuth grants a token when asked to authorize.
type fakeOAuth struct {
	token      atomic.Pointer[string]
	authorized atomic.Int64
}

func (f *fakeOAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	if tok := f.token.Load(); tok != nil {
		return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: *tok, TokenType: "Bearer"}), nil
	}
	return nil, nil
}

func (f *fakeOAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	f.authorized.Add(1)
	tok := "granted-token"
	f.token.Store(&tok)
	return nil
}

// WithOAuthHandler: a 401 asks the server's OAuth handler to authorize,
// the request is retried with its bearer token, and the server becomes
// ready (not needs-auth).
func TestOAuthHandlerAuthorizes(t *testing.T) {
	protect := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer granted-token" {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/x"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	u := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), protect)
	oauth := &fakeOAuth{}
	h := startFaultHost(t, []*config.Server{{ID: "web", Transport: config.TransportHTTP, URL: u, Enabled: true, StartupTimeout: bound}}, nil,
		host.WithOAuthHandler(func(id string) auth.OAuthHandler {
			if id == "web" {
				return oauth
			}
			return nil
		}))
	if st := statusOf(t, h, "web"); st.State != host.StateReady {
		t.Fatalf("web: %s (%s)", st.State, st.Error)
	}
	if oauth.authorized.Load() == 0 {
		t.Fatal("the OAuth handler was never asked to authorize")
	}
	echoWorks(t, h, "web")
	if !strings.Contains(*oauth.token.Load(), "granted") {
		t.Fatal("token")
	}
}

package transports_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/oauth2"

	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/transports"
)

// fakeOAuth hands out "tok-N": none until the first Authorize, a new one
// at every Authorize.
type fakeOAuth struct {
	mu        sync.Mutex
	n         int
	authorize atomic.Int64
	fail      error
}

func (f *fakeOAuth) TokenSource(context.Context) (oauth2.TokenSource, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return nil, nil
	}
	return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "tok-" + string(rune('0'+f.n))}), nil
}

func (f *fakeOAuth) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	resp.Body.Close()
	f.authorize.Add(1)
	if f.fail != nil {
		return f.fail
	}
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
	return nil
}

// bearerGate lets through requests with the wanted bearer token and
// answers others 401 with a challenge.
func bearerGate(want *atomic.Value) hosttest.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+want.Load().(string) {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Every HTTP transport — Streamable HTTP, SSE, the WebSocket handshake —
// asks the OAuth handler to authorize after a 401 and sends the refused
// request again with the new token.
func TestOAuthOnEveryHTTPTransport(t *testing.T) {
	for _, k := range remoteKinds {
		t.Run(k.transport, func(t *testing.T) {
			var want atomic.Value
			want.Store("tok-1")
			url := k.serve(t, hosttest.NewEchoServer(), bearerGate(&want))
			h := &fakeOAuth{}
			s := remoteSpec(k.transport, url)
			cs := connect(t, newTransport(t, s, transports.Options{OAuthHandler: h}), nil)
			defer cs.Close()
			if got := mustCall(t, cs, "echo", map[string]any{"text": "authorized"}); got != "authorized" {
				t.Fatalf("echo = %q", got)
			}
			if n := h.authorize.Load(); n != 1 {
				t.Fatalf("Authorize called %d times, want 1", n)
			}
		})
	}
}

// A failed authorization leaves the server's 401 for the caller and keeps
// the reason (LastAuthError) and the challenge (Refused) for the host.
func TestOAuthFailureIsReported(t *testing.T) {
	for _, k := range remoteKinds {
		t.Run(k.transport, func(t *testing.T) {
			var want atomic.Value
			want.Store("never")
			url := k.serve(t, hosttest.NewEchoServer(), bearerGate(&want))
			reason := errors.New("no stored login for this test")
			tr := newTransport(t, remoteSpec(k.transport, url), transports.Options{OAuthHandler: &fakeOAuth{fail: reason}})
			if _, err := connectErr(t, tr, nil); err == nil {
				t.Fatal("connect succeeded without authorization")
			}
			if err := transports.LastAuthError(tr); !errors.Is(err, reason) {
				t.Fatalf("LastAuthError = %v", err)
			}
			c, refused := transports.Refused(tr)
			if !refused || c.Status != http.StatusUnauthorized || !strings.Contains(c.WWWAuthenticate, "resource_metadata") {
				t.Fatalf("Refused = %+v %v", c, refused)
			}
		})
	}
}

// A 403 that is not about scope is the server's answer to the request:
// passed on once, without asking the handler, and not sent again.
func TestOAuthPlainForbiddenIsNotResent(t *testing.T) {
	var posts atomic.Int64
	gate := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				if bytes.Contains(body, []byte(`"tools/call"`)) {
					posts.Add(1)
					w.WriteHeader(http.StatusForbidden)
					return
				}
			}
			next.ServeHTTP(w, r)
		})
	}
	url := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), gate)
	h := &fakeOAuth{n: 1}
	cs := connect(t, newTransport(t, remoteSpec(transports.KindHTTP, url), transports.Options{OAuthHandler: h}), nil)
	defer cs.Close()
	if _, err := callText(t, cs, "echo", map[string]any{"text": "x"}); err == nil {
		t.Fatal("a forbidden call succeeded")
	}
	if n, a := posts.Load(), h.authorize.Load(); n != 1 || a != 0 {
		t.Fatalf("the call went out %d times and Authorize ran %d times; want 1 and 0", n, a)
	}
}

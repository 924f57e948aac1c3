package host_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// A server that refuses one tool for lack of scope (403
// insufficient_scope) fails that call, naming the scope and the fix, when
// nobody can approve a step-up; its other tools keep working.
func TestStepUpWithoutUserNamesTheScope(t *testing.T) {
	gate := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if r.Method == http.MethodPost && bytes.Contains(body, []byte(`"tools/call"`)) && bytes.Contains(body, []byte(`"name":"add"`)) {
				w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="math:write"`)
				w.WriteHeader(http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	url := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), gate)
	sc := &config.Server{ID: "scoped", Transport: config.TransportHTTP, URL: url, Enabled: true,
		StartupTimeout: bound, RequestTimeout: bound}
	h := startFaultHost(t, []*config.Server{sc}, nil)
	if _, err := h.CallTool(testContext(t), "scoped:echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatalf("echo: %v", err)
	}
	_, err := h.CallTool(testContext(t), "scoped:add", map[string]any{"a": 1, "b": 2})
	if err == nil || !errors.Is(err, authn.ErrLoginRequired) || !strings.Contains(err.Error(), `scope "math:write"`) || !strings.Contains(err.Error(), `mcphost login scoped`) {
		t.Fatalf("add: %v; want the missing scope and the fix", err)
	}
	if st := statusOf(t, h, "scoped"); st.State != host.StateReady {
		t.Fatalf("state %s after a refused call, want ready", st.State)
	}
}

// A server in needs-auth comes up by itself once a login is stored for it
// (by "mcphost login" in another process), without a restart.
func TestNeedsAuthPicksUpAStoredLogin(t *testing.T) {
	gate := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer stored-elsewhere-123" {
				w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	url := hosttest.ServeHTTP(t, hosttest.NewEchoServer(), gate)
	store := &authn.FileStore{Path: filepath.Join(t.TempDir(), "mcp-auth.json")}
	sc := &config.Server{ID: "later", Transport: config.TransportHTTP, URL: url, Enabled: true,
		StartupTimeout: bound, RequestTimeout: bound, Reconnect: faultReconnect}
	h := startFaultHost(t, []*config.Server{sc}, nil, host.WithTokenStore(store))
	if st := statusOf(t, h, "later"); st.State != host.StateNeedsAuth {
		t.Fatalf("state %s, want needs-auth", st.State)
	}
	if err := store.Save("later", &authn.Record{Resource: url, AccessToken: "stored-elsewhere-123", TokenType: "Bearer"}); err != nil {
		t.Fatal(err)
	}
	waitState(t, h, "later", host.StateReady)
	if _, err := h.CallTool(testContext(t), "later:echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
}

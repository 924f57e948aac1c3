package gateway_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/gateway"
)

// requestOn is a request as it arrives on a connection to local (what
// net/http puts in the context), with the Host header host.
func requestOn(local, host, method, target string) *http.Request {
	r := httptest.NewRequest(method, target, nil)
	addr, _ := net.ResolveTCPAddr("tcp", local)
	r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
	r.Host = host
	return r
}

// On a loopback address a foreign Host header is refused on every path,
// the metadata and the 401 included (DNS rebinding), and is never echoed.
func TestForeignHostRefusedOnEveryPath(t *testing.T) {
	f := start(t, nil, nil)
	handler, err := f.g.HTTPHandler(gateway.HTTPOptions{Verifier: gateway.StaticTokens(map[string]string{"a": "a-token-0123456789"}),
		AuthorizationServers: []string{"https://issuer.example"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, local := range []string{"127.0.0.1:8080", "[::1]:8080"} {
		for _, path := range []string{"/mcp", "/sse", "/sse?sessionid=x", "/.well-known/oauth-protected-resource/mcp",
			"/.well-known/oauth-protected-resource", "/elsewhere"} {
			for _, method := range []string{http.MethodGet, http.MethodPost} {
				w := httptest.NewRecorder()
				handler.ServeHTTP(w, requestOn(local, "evil.example", method, path))
				if w.Code != http.StatusForbidden || strings.Contains(w.Body.String()+strings.Join(w.Header().Values("WWW-Authenticate"), ""), "evil") {
					t.Errorf("%s %s on %s with Host evil.example: %d %q %q", method, path, local, w.Code, w.Body.String(), w.Header().Values("WWW-Authenticate"))
				}
			}
		}
	}
	// A loopback Host is served, and named in the metadata.
	w := httptest.NewRecorder()
	handler.ServeHTTP(w, requestOn("127.0.0.1:8080", "localhost:8080", http.MethodGet, "/.well-known/oauth-protected-resource/mcp"))
	if w.Code != http.StatusOK || metadataResource(t, w) != "http://localhost:8080/mcp" {
		t.Fatalf("metadata on localhost: %d %s", w.Code, w.Body.String())
	}
}

// Beyond loopback, the metadata and the 401 name --resource-url when it is
// given, else the address the request arrived on: never the Host header.
func TestMetadataNeverEchoesHost(t *testing.T) {
	f := start(t, nil, nil)
	verifier := gateway.StaticTokens(map[string]string{"a": "a-token-0123456789"})
	for _, c := range []struct{ resourceURL, want string }{
		{"", "http://10.0.0.1:8080"},
		{"https://gw.example.com/mcp", "https://gw.example.com"},
	} {
		handler, err := f.g.HTTPHandler(gateway.HTTPOptions{Verifier: verifier, ResourceURL: c.resourceURL})
		if err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, requestOn("10.0.0.1:8080", "evil.example", http.MethodGet, "/.well-known/oauth-protected-resource/mcp"))
		if got := metadataResource(t, w); got != c.want+"/mcp" {
			t.Errorf("resource URL %q: metadata names %q, want %q", c.resourceURL, got, c.want+"/mcp")
		}
		w = httptest.NewRecorder()
		handler.ServeHTTP(w, requestOn("10.0.0.1:8080", "evil.example", http.MethodPost, "/mcp"))
		challenge := strings.Join(w.Header().Values("WWW-Authenticate"), " ")
		if w.Code != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="`+c.want+"/.well-known/oauth-protected-resource/mcp") || strings.Contains(challenge, "evil") {
			t.Errorf("resource URL %q: 401 challenge %d %q", c.resourceURL, w.Code, challenge)
		}
	}
}

func metadataResource(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var meta struct {
		Resource string `json:"resource"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &meta); err != nil {
		t.Fatalf("metadata %d %q: %v", w.Code, w.Body.String(), err)
	}
	return meta.Resource
}

package transports

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestOrigin(t *testing.T) {
	same := [][2]string{
		{"https://API.example/mcp", "https://api.example:443/other"},
		{"http://127.0.0.1/x", "http://127.0.0.1:80/y"},
		{"wss://h.example/ws", "https://h.example/ws"},
	}
	for _, p := range same {
		if !sameOrigin(mustParse(t, p[1]), originOf(mustParse(t, p[0]))) {
			t.Errorf("%s and %s: want the same origin", p[0], p[1])
		}
	}
	other := [][2]string{
		{"https://api.example/mcp", "http://api.example/mcp"},       // downgrade
		{"https://api.example/mcp", "https://api.example:8443/mcp"}, // port
		{"https://api.example/mcp", "https://evil.example/mcp"},     // host
		{"https://api.example/mcp", "https://x.api.example/mcp"},    // subdomain
		{"http://127.0.0.1:8080/", "http://localhost:8080/"},
	}
	for _, p := range other {
		if sameOrigin(mustParse(t, p[1]), originOf(mustParse(t, p[0]))) {
			t.Errorf("%s and %s: want different origins", p[0], p[1])
		}
	}
}

// A redirect to another origin (here: another port of the same host, the
// case a host-name check missed) receives neither the configured headers
// nor the auth provider's.
func TestCredentialsStayWithTheirOrigin(t *testing.T) {
	var mu sync.Mutex
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		for _, h := range []string{"Authorization", "X-Api-Key"} {
			if v := r.Header.Get(h); v != "" {
				leaked = append(leaked, h+": "+v)
			}
		}
	}))
	defer other.Close()
	var gotHome http.Header
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotHome = r.Header.Clone()
		mu.Unlock()
		http.Redirect(w, r, other.URL+"/stolen", http.StatusFound)
	}))
	defer home.Close()

	u := mustParse(t, home.URL+"/mcp")
	auth := func(context.Context, Challenge) (http.Header, time.Duration, error) {
		return http.Header{"Authorization": {"Bearer from-auth-plugin"}}, 0, nil
	}
	rt := newAuthRoundTripper(http.DefaultTransport, auth, originOf(u))
	client := &http.Client{Transport: &headerRoundTripper{Base: rt, Header: http.Header{"X-Api-Key": {"configured-secret"}}, Origin: originOf(u)}}
	resp, err := client.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if gotHome.Get("X-Api-Key") != "configured-secret" || gotHome.Get("Authorization") != "Bearer from-auth-plugin" {
		t.Errorf("the server's own origin did not get its headers: %v", gotHome)
	}
	if len(leaked) > 0 {
		t.Errorf("credentials followed the redirect to another origin: %v", leaked)
	}
}

package authn

import (
	"context"
	"crypto/elliptic"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcphost/mcphost/host/config"
)

// machineAS is one httptest server playing an MCP server at /mcp (401 with
// a resource_metadata challenge), its protected resource metadata, and its
// authorization server (RFC 8414 metadata and /token).
type machineAS struct {
	srv       *httptest.Server
	challenge string // extra challenge parameters
	token     func(n int, form url.Values) (int, any)

	mu    sync.Mutex
	paths []string
	forms []url.Values
}

func newMachineAS(t *testing.T) *machineAS {
	m := &machineAS{}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	m.token = func(n int, _ url.Values) (int, any) {
		return 200, map[string]any{"access_token": fmt.Sprintf("machine-%d", n), "token_type": "Bearer", "expires_in": 600}
	}
	return m
}

func (m *machineAS) serverURL() string { return m.srv.URL + "/mcp" }

func (m *machineAS) serve(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	m.paths = append(m.paths, r.URL.Path)
	m.mu.Unlock()
	writeJSON := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	switch r.URL.Path {
	case "/mcp":
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+m.srv.URL+`/.well-known/oauth-protected-resource/mcp"`+m.challenge)
		w.WriteHeader(http.StatusUnauthorized)
	case "/.well-known/oauth-protected-resource/mcp":
		writeJSON(200, map[string]any{"resource": m.serverURL(), "authorization_servers": []string{m.srv.URL}, "scopes_supported": []string{"mcp:default"}})
	case "/.well-known/oauth-authorization-server":
		writeJSON(200, map[string]any{
			"issuer": m.srv.URL, "token_endpoint": m.srv.URL + "/token",
			"authorization_endpoint": m.srv.URL + "/authorize", "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported": []string{"client_credentials", grantJWTBearer},
		})
	case "/token":
		r.ParseForm()
		m.mu.Lock()
		m.forms = append(m.forms, r.PostForm)
		n := len(m.forms)
		m.mu.Unlock()
		writeJSON(m.token(n, r.PostForm))
	default:
		http.NotFound(w, r)
	}
}

func (m *machineAS) tokenForms() []url.Values {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]url.Values{}, m.forms...)
}

func (m *machineAS) count(path string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, p := range m.paths {
		if p == path {
			n++
		}
	}
	return n
}

// refuse sends a request to /mcp and returns the 401, as the MCP
// transport would hand it to the handler.
func (m *machineAS) refuse(t *testing.T) (*http.Request, *http.Response) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, m.serverURL(), strings.NewReader("{}"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 401 {
		t.Fatalf("/mcp answered %d", resp.StatusCode)
	}
	return req, resp
}

func mustToken(t *testing.T, h authHandler) *oauth2.Token {
	t.Helper()
	ts, err := h.TokenSource(context.Background())
	if err != nil || ts == nil {
		t.Fatalf("TokenSource = %v, %v", ts, err)
	}
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestJWTBearerGrant(t *testing.T) {
	m := newMachineAS(t)
	m.challenge = `, scope="tools:read tools:call"`
	clock := newTestClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	assertion := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(assertion, []byte("workload-jwt-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &config.Server{ID: "wl", URL: m.serverURL(), Transport: config.TransportHTTP,
		Auth: config.Auth{Type: config.AuthJWTBearer, ClientID: "wl-client", AssertionFile: assertion}}
	creds, err := New(s, Options{clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	h := creds.OAuth
	if ts, err := h.TokenSource(context.Background()); ts != nil || err != nil {
		t.Fatalf("a token before any refusal: %v, %v", ts, err)
	}
	req, resp := m.refuse(t)
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	if tok := mustToken(t, h); tok.AccessToken != "machine-1" || !tok.Expiry.Equal(clock.Now().Add(600*time.Second)) {
		t.Errorf("token = %+v, want machine-1 expiring 600 s after the clock", tok)
	}
	forms := m.tokenForms()
	if len(forms) != 1 {
		t.Fatalf("%d token requests", len(forms))
	}
	f := forms[0]
	for k, want := range map[string]string{
		"grant_type": grantJWTBearer, "assertion": "workload-jwt-1", "resource": m.serverURL(),
		"client_id": "wl-client", "scope": "tools:read tools:call",
	} {
		if f.Get(k) != want {
			t.Errorf("form %s = %q, want %q", k, f.Get(k), want)
		}
	}

	// Still fresh: no request. The platform rotates the file; once the
	// token expires, the new assertion is sent.
	mustToken(t, h)
	if n := len(m.tokenForms()); n != 1 {
		t.Errorf("a fresh token made a request (%d in all)", n)
	}
	if err := os.WriteFile(assertion, []byte("workload-jwt-2-rotated\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	clock.Add(10 * time.Minute)
	if tok := mustToken(t, h); tok.AccessToken != "machine-2" {
		t.Errorf("after expiry: %+v", tok)
	}
	if f := m.tokenForms()[1]; f.Get("assertion") != "workload-jwt-2-rotated" {
		t.Errorf("the assertion file was not read again: %q", f.Get("assertion"))
	}
}

func TestClientCredentialsPrivateKeyJWT(t *testing.T) {
	m := newMachineAS(t)
	clock := newTestClock(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC))
	key := ecKey(t, elliptic.P256())
	keyFile := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(keyFile, []byte(pkcs8PEM(t, key)), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &config.Server{ID: "cc", URL: m.serverURL(), Transport: config.TransportHTTP,
		Auth: config.Auth{Type: config.AuthClientCredentials, ClientID: "cc-client", PrivateKeyFile: keyFile, Scopes: []string{"configured"}}}
	h, err := newClientCredentials(s, Options{clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	req, resp := m.refuse(t)
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	if tok := mustToken(t, h); tok.AccessToken != "machine-1" {
		t.Errorf("token = %+v", tok)
	}
	f := m.tokenForms()[0]
	for k, want := range map[string]string{
		"grant_type": "client_credentials", "client_id": "cc-client", "resource": m.serverURL(),
		"client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", "scope": "configured",
	} {
		if f.Get(k) != want {
			t.Errorf("form %s = %q, want %q", k, f.Get(k), want)
		}
	}
	if f.Get("client_secret") != "" {
		t.Error("a client_secret was sent")
	}
	p := decodeJWT(t, f.Get("client_assertion"))
	verifyJWT(t, p, &key.PublicKey)
	if p.header["alg"] != "ES256" || p.header["typ"] != "JWT" {
		t.Errorf("header = %v", p.header)
	}
	if p.claims["iss"] != "cc-client" || p.claims["sub"] != "cc-client" || p.claims["aud"] != m.srv.URL {
		t.Errorf("iss, sub, aud = %v, %v, %v; want cc-client, cc-client, %s", p.claims["iss"], p.claims["sub"], p.claims["aud"], m.srv.URL)
	}
	if iat, exp := p.claimInt(t, "iat"), p.claimInt(t, "exp"); iat != clock.Now().Unix() || exp != iat+300 {
		t.Errorf("iat, exp = %d, %d; want %d and 5 minutes later", iat, exp, clock.Now().Unix())
	}

	// A mismatched signing_algorithm is refused when the handler is made.
	s.Auth.SigningAlgorithm = "RS256"
	if _, err := newClientCredentials(s, Options{}); err == nil || !strings.Contains(err.Error(), "use ES256") || !strings.Contains(err.Error(), `"cc"`) {
		t.Errorf("mismatched algorithm: %v", err)
	}
}

// The authorization server refused these credentials: asking again with
// the same ones cannot succeed, so the handler does not.
func TestGrantRefusalIsSticky(t *testing.T) {
	m := newMachineAS(t)
	m.token = func(int, url.Values) (int, any) {
		return 400, map[string]any{"error": "invalid_grant", "error_description": "the assertion has expired", "debug": "echo workload-jwt-x"}
	}
	s := &config.Server{ID: "wl", URL: m.serverURL(), Transport: config.TransportHTTP,
		Auth: config.Auth{Type: config.AuthJWTBearer, Assertion: "workload-jwt-x"}}
	h := newJWTBearer(s, Options{})
	req, resp := m.refuse(t)
	err := h.Authorize(context.Background(), req, resp)
	if err == nil {
		t.Fatal("a refused grant authorized")
	}
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Errorf("error %v does not wrap the RetrieveError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "the assertion has expired") || !strings.Contains(msg, `"wl"`) || strings.Contains(msg, "workload-jwt-x") {
		t.Errorf("error = %q; want the description and the server, not the body", msg)
	}
	discoveries := m.count("/.well-known/oauth-protected-resource/mcp")
	for range 3 {
		req, resp := m.refuse(t)
		if err2 := h.Authorize(context.Background(), req, resp); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("second Authorize = %v, want the first refusal", err2)
		}
	}
	if n := len(m.tokenForms()); n != 1 {
		t.Errorf("the authorization server was asked %d times, want once", n)
	}
	if n := m.count("/.well-known/oauth-protected-resource/mcp"); n != discoveries {
		t.Errorf("discovery ran again after the refusal (%d → %d)", discoveries, n)
	}
	if ts, _ := h.TokenSource(context.Background()); ts != nil {
		t.Error("a token source after a refusal")
	}
}

// A 403 that is not insufficient_scope is not an authorization matter.
func TestGrantForbiddenIsPassedOn(t *testing.T) {
	m := newMachineAS(t)
	s := &config.Server{ID: "wl", URL: m.serverURL(), Transport: config.TransportHTTP,
		Auth: config.Auth{Type: config.AuthJWTBearer, Assertion: "a"}}
	h := newJWTBearer(s, Options{})
	req, _ := http.NewRequest(http.MethodPost, m.serverURL(), nil)
	resp := &http.Response{StatusCode: 403, Header: http.Header{"Www-Authenticate": {`Bearer error="access_denied"`}}, Body: io.NopCloser(strings.NewReader(""))}
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatal(err)
	}
	if len(m.tokenForms()) != 0 || m.count("/.well-known/oauth-protected-resource/mcp") != 0 {
		t.Error("a plain 403 started a grant")
	}
}

// The guard refuses the addresses a server on the internet has no
// business sending mcphost to, in the dialer's Control hook, before a
// packet leaves.
func TestGuardedTransport(t *testing.T) {
	// A refusal is immediate; the deadline only bounds a broken guard or
	// a dial the guard lets through.
	dial := func(serverURL, target string, deadline time.Duration) error {
		t.Helper()
		rt := guardedTransport(&http.Transport{}, serverURL)
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
		resp, err := rt.RoundTrip(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	const public = "https://93.184.216.34/mcp"
	for _, tc := range []struct{ server, target, want string }{
		{public, "http://169.254.169.254/latest/meta-data/", "link-local"},
		{public, "http://0.0.0.0:80/", "reserved"},
		{public, "http://224.0.0.1:80/", "reserved"},
		{public, "http://10.0.0.1/token", "private address"},
		{public, "http://192.168.1.1/token", "private address"},
		{public, "http://100.64.0.1/token", "private address"},
		{"http://10.0.0.5/mcp", "http://169.254.169.254/", "link-local"},
	} {
		err := dial(tc.server, tc.target, 10*time.Second)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("server %s, dial %s: %v; want a refusal naming %q", tc.server, tc.target, err, tc.want)
		}
	}
	// A server on a private network may have its authorization server
	// there (the decision alone: tests send nothing off loopback).
	for _, tc := range []struct {
		addr  string
		where serverNet
		ok    bool
	}{
		{"10.0.0.1:443", netPrivate, true},
		{"10.0.0.1:443", netLoopback, true},
		{"10.0.0.1:443", netPublic, false},
		{"127.0.0.1:443", netLoopback, true},
		{"127.0.0.1:443", netPrivate, false},
		{"[::1]:443", netPublic, false},
		{"93.184.216.34:443", netPublic, true},
	} {
		err := checkDialAddr(tc.addr, func() serverNet { return tc.where })
		if (err == nil) != tc.ok {
			t.Errorf("%s for a server on %d: %v, want allowed %v", tc.addr, tc.where, err, tc.ok)
		}
	}
	if classify("127.0.0.1") != netLoopback || classify("10.1.2.3") != netPrivate || classify("93.184.216.34") != netPublic {
		t.Error("classify")
	}
	// Loopback is for servers on this machine only.
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer ok.Close()
	if err := dial(ok.URL+"/mcp", ok.URL, 10*time.Second); err != nil {
		t.Errorf("a loopback server's loopback AS was refused: %v", err)
	}
	if err := dial(public, ok.URL, 10*time.Second); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a public server reached loopback: %v", err)
	}
	// An embedder that dials itself keeps its transport.
	own := &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) { return nil, errors.New("no") }}
	if rt := guardedTransport(own, public); rt != http.RoundTripper(own) {
		t.Error("the embedder's dialer was replaced")
	}
	custom := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("x") })
	if _, same := guardedTransport(custom, public).(roundTripFunc); !same {
		t.Error("a custom RoundTripper was wrapped")
	}
}

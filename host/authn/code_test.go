package authn

import (
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host/config"
)

func unauthorized(token, challenge string) (*http.Request, *http.Response) {
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, &http.Response{StatusCode: 401, Header: http.Header{"Www-Authenticate": {challenge}}, Body: io.NopCloser(strings.NewReader("")), Request: req}
}

// A stored login: its token is used as is, refreshed when the server
// refuses it, not refreshed again for a request that carried an older
// token, and a refused refresh leaves the server in needs-auth.
func TestCodeHandlerStoredLogin(t *testing.T) {
	var refuse atomic.Bool
	te := newTokenEndpoint(t, func(n int, f url.Values) (int, any) {
		if refuse.Load() {
			return 400, map[string]any{"error": "invalid_grant"}
		}
		return 200, map[string]any{"access_token": "at-2", "token_type": "Bearer", "refresh_token": "rt-2"}
	})
	clock := newTestClock(time.Now())
	s := &config.Server{ID: "srv", URL: "http://127.0.0.1:1/mcp", Transport: config.TransportHTTP}
	store := &FileStore{Path: filepath.Join(t.TempDir(), "mcp-auth.json")}
	rec := &Record{Resource: s.URL, AccessToken: "at-1", RefreshToken: "rt-1", TokenURL: te.url(), ClientID: "c",
		AuthStyle: 1, ExpiresAt: clock.Now().Add(time.Hour), TokenType: "Bearer"}
	if err := store.Save("srv", rec); err != nil {
		t.Fatal(err)
	}
	h, err := newCodeHandler(s, Options{Store: store, clock: clock.Now}, false)
	if err != nil {
		t.Fatal(err)
	}
	token := func() string {
		t.Helper()
		ts, err := h.TokenSource(context.Background())
		if err != nil || ts == nil {
			t.Fatalf("TokenSource = %v, %v", ts, err)
		}
		tok, err := ts.Token()
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
		if err := h.AuthorizeRequest(req, tok); err != nil {
			t.Fatal(err)
		}
		return req.Header.Get("Authorization")
	}
	if got := token(); got != "Bearer at-1" || te.calls.Load() != 0 {
		t.Fatalf("stored token: %q after %d requests", got, te.calls.Load())
	}
	if err := authorize(h)(unauthorized("at-1", `Bearer error="invalid_token"`)); err != nil {
		t.Fatal(err)
	}
	if got := token(); got != "Bearer at-2" || te.calls.Load() != 1 {
		t.Fatalf("after the refusal: %q, %d token requests", got, te.calls.Load())
	}
	if saved, _ := store.Load("srv"); saved.AccessToken != "at-2" || saved.RefreshToken != "rt-2" {
		t.Errorf("stored: %+v", saved)
	}
	// A request that left with at-1 comes back refused: at-2 is already
	// here, no second refresh.
	if err := authorize(h)(unauthorized("at-1", `Bearer error="invalid_token"`)); err != nil {
		t.Fatal(err)
	}
	if n := te.calls.Load(); n != 1 {
		t.Errorf("a stale refusal refreshed again (%d requests)", n)
	}
	refuse.Store(true)
	err = authorize(h)(unauthorized("at-2", `Bearer error="invalid_token"`))
	var lr *LoginRequiredError
	if !errors.As(err, &lr) || !strings.Contains(lr.Reason, "expired or was refused") {
		t.Errorf("refused refresh: %v", err)
	}

	// A record for another URL is not this server's login.
	moved := *s
	moved.URL = "http://127.0.0.1:2/mcp"
	h2, _ := newCodeHandler(&moved, Options{Store: store}, false)
	if ts, _ := h2.TokenSource(context.Background()); ts != nil {
		t.Error("a login stored for another URL was used")
	}
}

// authorize curries Authorize, to take unauthorized's two results.
func authorize(h authHandler) func(*http.Request, *http.Response) error {
	return func(req *http.Request, resp *http.Response) error {
		return h.Authorize(context.Background(), req, resp)
	}
}

// A DPoP-bound stored login presents its token with proofs of the stored
// key.
func TestCodeHandlerStoredDPoPLogin(t *testing.T) {
	clock := newTestClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	key := newTestDPoPKey(t, clock)
	s := &config.Server{ID: "srv", URL: "https://rs.example.com/mcp", Transport: config.TransportHTTP}
	store := &FileStore{Path: filepath.Join(t.TempDir(), "mcp-auth.json")}
	if err := store.Save("srv", &Record{Resource: s.URL, AccessToken: "bound", TokenType: "DPoP", DPoPKey: key.pem()}); err != nil {
		t.Fatal(err)
	}
	h, err := newCodeHandler(s, Options{Store: store, clock: clock.Now}, false)
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := h.TokenSource(context.Background())
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL, nil)
	if err := h.AuthorizeRequest(req, tok); err != nil {
		t.Fatal(err)
	}
	if req.Header.Get("Authorization") != "DPoP bound" {
		t.Errorf("Authorization = %q", req.Header.Get("Authorization"))
	}
	checkProof(t, key, req.Header.Get("DPoP"), "POST", s.URL, clock.Now())
	resp := &http.Response{StatusCode: 401, Request: req, Header: http.Header{
		"Www-Authenticate": {`DPoP error="use_dpop_nonce"`}, "Dpop-Nonce": {"n"}}}
	if !h.NonceChallenge(resp) {
		t.Error("NonceChallenge refused a use_dpop_nonce challenge")
	}
	// A broken stored key is an error that says what to do.
	if err := store.Save("srv", &Record{Resource: s.URL, AccessToken: "bound", DPoPKey: "garbage"}); err != nil {
		t.Fatal(err)
	}
	if _, err := newCodeHandler(s, Options{Store: store}, false); err == nil || !strings.Contains(err.Error(), "mcphost login srv") {
		t.Errorf("broken stored key: %v", err)
	}
}

// pkceAS is an authorization server with configured endpoints (no
// discovery): /authorize is followed by the test UI, /token checks PKCE.
type pkceAS struct {
	srv       *httptest.Server
	mu        sync.Mutex
	challenge string
	redirect  string
	form      url.Values
}

func (a *pkceAS) serveToken(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	a.mu.Lock()
	a.form = r.PostForm
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	ok := r.PostForm.Get("code") == "the-code" && b64.EncodeToString(sum[:]) == a.challenge && r.PostForm.Get("redirect_uri") == a.redirect
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(400)
		io.WriteString(w, `{"error":"invalid_grant","error_description":"PKCE or code mismatch"}`)
		return
	}
	io.WriteString(w, `{"access_token":"login-at","refresh_token":"login-rt","token_type":"Bearer","expires_in":3600,"scope":"s1 s2"}`)
}

// followingUI checks the authorization URL and plays the redirect back.
type followingUI struct {
	t          *testing.T
	as         *pkceAS
	forgeState bool
}

func (u *followingUI) Open(_ context.Context, id, authURL string) error {
	au, err := url.Parse(authURL)
	if err != nil {
		return err
	}
	q := au.Query()
	for k, want := range map[string]string{"response_type": "code", "client_id": "pub", "code_challenge_method": "S256", "resource": "http://127.0.0.1:1/mcp", "scope": "s1"} {
		if q.Get(k) != want {
			u.t.Errorf("authorization URL %s = %q, want %q", k, q.Get(k), want)
		}
	}
	u.as.mu.Lock()
	u.as.challenge, u.as.redirect = q.Get("code_challenge"), q.Get("redirect_uri")
	u.as.mu.Unlock()
	state := q.Get("state")
	if u.forgeState {
		// Another page or process answers first, with a code of its
		// own: ignored (400), and the login goes on waiting — until the
		// person refuses it.
		resp, err := http.Get(q.Get("redirect_uri") + "?code=attacker-code&state=forged")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			u.t.Errorf("a forged callback got %d, want 400", resp.StatusCode)
		}
		resp, err = http.Get(q.Get("redirect_uri") + "?error=access_denied&state=" + url.QueryEscape(state))
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
	resp, err := http.Get(q.Get("redirect_uri") + "?code=the-code&state=" + url.QueryEscape(state))
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

func TestCodeHandlerManualLogin(t *testing.T) {
	as := &pkceAS{}
	mux := http.NewServeMux()
	mux.HandleFunc("/token", as.serveToken)
	as.srv = httptest.NewServer(mux)
	defer as.srv.Close()
	s := &config.Server{ID: "srv", URL: "http://127.0.0.1:1/mcp", Transport: config.TransportHTTP, Auth: config.Auth{
		Type: config.AuthOAuth, ClientID: "pub", Scopes: []string{"s1"},
		AuthorizationURL: as.srv.URL + "/authorize", TokenURL: as.srv.URL + "/token",
	}}
	store := &FileStore{Path: filepath.Join(t.TempDir(), "mcp-auth.json")}

	h, err := Login(s, Options{Store: store, UI: &followingUI{t: t, as: as, forgeState: true}})
	if err != nil {
		t.Fatal(err)
	}
	err = authorize(h)(unauthorized("", `Bearer realm="x"`))
	if err == nil || !strings.Contains(err.Error(), "access_denied") {
		t.Errorf("a forged callback, then a refusal: %v", err)
	}
	if rec, _ := store.Load("srv"); rec != nil {
		t.Errorf("a forged login was stored: %+v", rec)
	}

	h, err = Login(s, Options{Store: store, UI: &followingUI{t: t, as: as}})
	if err != nil {
		t.Fatal(err)
	}
	if err := authorize(h)(unauthorized("", `Bearer realm="x"`)); err != nil {
		t.Fatal(err)
	}
	rec, err := store.Load("srv")
	if err != nil || rec == nil {
		t.Fatalf("stored: %v, %v", rec, err)
	}
	if rec.AccessToken != "login-at" || rec.RefreshToken != "login-rt" || rec.Resource != s.URL || rec.TokenURL != s.Auth.TokenURL ||
		rec.ClientID != "pub" || rec.Scope != "s1 s2" || !strings.HasPrefix(rec.RedirectURL, "http://127.0.0.1:") {
		t.Errorf("stored record: %+v", rec)
	}
	as.mu.Lock()
	if as.form.Get("grant_type") != "authorization_code" || as.form.Get("resource") != s.URL {
		t.Errorf("token form: %v", as.form)
	}
	as.mu.Unlock()
	if _, err := Login(&config.Server{ID: "b", Auth: config.Auth{Type: config.AuthBearer}}, Options{UI: &followingUI{}}); err == nil {
		t.Error("Login for a bearer server")
	}
	if _, err := Login(s, Options{}); err == nil || !strings.Contains(err.Error(), "needs a UI") {
		t.Errorf("Login without a UI: %v", err)
	}
}

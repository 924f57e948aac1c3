package authn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zalando/go-keyring"
	"golang.org/x/oauth2"

	"github.com/mcphost/mcphost/host/config"
)

type recordingUI struct{ opened []string }

func (u *recordingUI) Open(_ context.Context, id, authURL string) error {
	u.opened = append(u.opened, id+" "+authURL)
	return errors.New("test UI: no browser")
}

func refusal(status int, challenge string) (*http.Request, *http.Response) {
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:1/mcp", nil)
	return req, &http.Response{StatusCode: status, Header: http.Header{"Www-Authenticate": {challenge}}, Body: io.NopCloser(strings.NewReader("")), Request: req}
}

// When a running server may ask the user decides between a login prompt
// and needs-auth: AskNever never asks, AskStepUp asks only for more scopes
// (403 insufficient_scope), and both name the fix.
func TestAskModes(t *testing.T) {
	s := &config.Server{ID: "srv", Transport: config.TransportHTTP, URL: "http://127.0.0.1:1/mcp"}
	for _, tc := range []struct {
		name      string
		ask       AskMode
		status    int
		challenge string
		wantLogin bool   // LoginRequiredError (nobody asked)
		wantScope string // the scope it names
	}{
		{"never-401", AskNever, 401, `Bearer error="invalid_token"`, true, ""},
		{"never-403-scope", AskNever, 403, `Bearer error="insufficient_scope", scope="admin"`, true, "admin"},
		{"stepup-401", AskStepUp, 401, `Bearer error="invalid_token"`, true, ""},
		{"stepup-403-scope", AskStepUp, 403, `Bearer error="insufficient_scope", scope="admin"`, false, ""},
		{"always-401", AskAlways, 401, `Bearer error="invalid_token"`, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ui := &recordingUI{}
			h, err := newCodeHandler(s, Options{UI: ui, Ask: tc.ask}, false)
			if err != nil {
				t.Fatal(err)
			}
			req, resp := refusal(tc.status, tc.challenge)
			err = h.Authorize(context.Background(), req, resp)
			var lr *LoginRequiredError
			if got := errors.As(err, &lr); got != tc.wantLogin {
				t.Fatalf("Authorize = %v; want LoginRequiredError %v", err, tc.wantLogin)
			}
			if tc.wantLogin {
				if lr.Scope != tc.wantScope || !strings.Contains(err.Error(), `run "mcphost login srv"`) || !errors.Is(err, ErrLoginRequired) {
					t.Fatalf("error = %v (scope %q)", err, lr.Scope)
				}
			}
		})
	}
}

// A 403 that is not about scope is not an authorization matter: the
// request is sent again and its answer reaches the caller.
func TestForbiddenWithoutScopeIsPassedOn(t *testing.T) {
	s := &config.Server{ID: "srv", Transport: config.TransportHTTP, URL: "http://127.0.0.1:1/mcp"}
	h, err := newCodeHandler(s, Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	req, resp := refusal(403, `Bearer error="forbidden"`)
	if err := h.Authorize(context.Background(), req, resp); err != nil {
		t.Fatalf("Authorize = %v, want nil", err)
	}
}

// The keychain store keeps one item per server and reports a foreign item
// without quoting it.
func TestKeyringStore(t *testing.T) {
	keyring.MockInit()
	st, err := OpenStore("keyring", t.TempDir()+"/mcp-auth.json")
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := st.Load("a"); rec != nil || err != nil {
		t.Fatalf("empty store: %v %v", rec, err)
	}
	want := &Record{Resource: "https://a.example/mcp", AccessToken: "at-secret-123456", RefreshToken: "rt-secret-654321"}
	if err := st.Save("a", want); err != nil {
		t.Fatal(err)
	}
	got, err := st.Load("a")
	if err != nil || got.AccessToken != want.AccessToken || got.RefreshToken != want.RefreshToken || got.Resource != want.Resource {
		t.Fatalf("Load = %+v %v", got, err)
	}
	if err := keyring.Set(keyringService, "b", "not json at-secret-123456"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load("b"); err == nil || strings.Contains(err.Error(), "at-secret") || !strings.Contains(err.Error(), "mcphost logout b") {
		t.Fatalf("foreign item: %v", err)
	}
	if err := st.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if rec, _ := st.Load("a"); rec != nil {
		t.Fatal("still there after Delete")
	}
	unlock, err := st.Lock()
	if err != nil {
		t.Fatal(err)
	}
	unlock()
}

// The browser is only ever given an http(s) URL.
func TestBrowserUIRefusesOtherSchemes(t *testing.T) {
	var out strings.Builder
	ui := &BrowserUI{Out: &out, NoBrowser: true}
	for _, u := range []string{"file:///etc/passwd", "javascript:alert(1)", "ms-settings:x", "https:///nohost"} {
		if err := ui.Open(context.Background(), "srv", u); err == nil {
			t.Errorf("%s: opened", u)
		}
	}
	if out.Len() != 0 {
		t.Errorf("printed %q", out.String())
	}
	if err := ui.Open(context.Background(), "srv", "https://as.example/authorize?x=1"); err != nil || !strings.Contains(out.String(), "\nhttps://as.example/authorize?x=1\n") {
		t.Errorf("%v: %q", err, out.String())
	}
}

// Logout revokes only at the authorization server that issued the tokens:
// one the server's metadata names now, with another token endpoint, gets
// nothing.
func TestLogoutRevokesOnlyAtTheIssuer(t *testing.T) {
	var revoked atomic.Int64
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"resource": %q, "authorization_servers": [%q]}`, srv.URL+"/mcp", srv.URL)
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"issuer": %q, "authorization_endpoint": %q, "token_endpoint": %q, "revocation_endpoint": %q, "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"]}`,
			srv.URL, srv.URL+"/authorize", srv.URL+"/token", srv.URL+"/revoke")
	})
	mux.HandleFunc("/revoke", func(w http.ResponseWriter, r *http.Request) { revoked.Add(1) })
	s := &config.Server{ID: "srv", Transport: config.TransportHTTP, URL: srv.URL + "/mcp"}
	store := &FileStore{Path: filepath.Join(t.TempDir(), "mcp-auth.json")}
	save := func(tokenURL, revocationURL string) {
		if err := store.Save("srv", &Record{Resource: s.URL, AccessToken: "at-123456789", RefreshToken: "rt-123456789", ClientID: "c", TokenURL: tokenURL, RevocationURL: revocationURL}); err != nil {
			t.Fatal(err)
		}
	}
	save("https://real-as.example/token", "")
	res, err := Logout(context.Background(), store, s, nil)
	if err != nil || !res.Removed || res.Revoked || revoked.Load() != 0 {
		t.Fatalf("Logout = %+v %v; %d revocation requests, want none", res, err, revoked.Load())
	}
	save(srv.URL+"/token", "")
	if res, err := Logout(context.Background(), store, s, nil); err != nil || !res.Revoked || revoked.Load() != 2 {
		t.Fatalf("Logout = %+v %v; %d revocation requests, want 2 (refresh and access token)", res, err, revoked.Load())
	}
}

// An authorization server that does not answer (503) is not a refusal:
// the refresh token stays, and the error says to try again, not to log in.
func TestRefreshOutageIsTransient(t *testing.T) {
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "<html>maintenance</html>")
	}))
	defer as.Close()
	rec := &Record{Resource: "http://127.0.0.1:1/mcp", AccessToken: "old-access", RefreshToken: "still-good", TokenURL: as.URL, ClientID: "c"}
	src := &storedSource{id: "srv", client: as.Client(), now: time.Now, rec: rec}
	err := src.Refresh(context.Background())
	var re *oauth2.RetrieveError
	if !errors.Is(err, ErrTransient) || errors.As(err, &re) || strings.Contains(err.Error(), "maintenance") {
		t.Fatalf("Refresh = %v; want a transient error without the body", err)
	}
	if src.record().RefreshToken != "still-good" {
		t.Fatal("the refresh token was dropped")
	}
}

// What the keychain refuses (too large for its items) goes to the file,
// and is found there.
func TestAutoStoreFallsBackToTheFile(t *testing.T) {
	keyring.MockInit()
	path := filepath.Join(t.TempDir(), "mcp-auth.json")
	st, err := OpenStore("auto", path)
	if err != nil {
		t.Fatal(err)
	}
	small := &Record{Resource: "https://a.example/mcp", AccessToken: "small-token-123"}
	if err := st.Save("a", small); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("a record the keychain holds went to the file too")
	}
	keyring.MockInitWithError(errors.New("data passed to Set was too big"))
	big := &Record{Resource: "https://b.example/mcp", AccessToken: strings.Repeat("x", 4000)}
	if err := st.Save("b", big); err != nil {
		t.Fatal(err)
	}
	if got, err := (&FileStore{Path: path}).Load("b"); err != nil || got == nil || got.AccessToken != big.AccessToken {
		t.Fatalf("file has %+v %v", got, err)
	}
	if got, err := st.Load("b"); err != nil || got == nil || got.AccessToken != big.AccessToken {
		t.Fatalf("Load = %+v %v", got, err)
	}
	keyring.MockInit()
}

package authn

import (
	"context"
	"encoding/json"
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

	"golang.org/x/oauth2"
)

// tokenEndpoint is an authorization server's token endpoint that records
// the forms it gets and answers with answer.
type tokenEndpoint struct {
	srv    *httptest.Server
	calls  atomic.Int32
	mu     sync.Mutex
	forms  []url.Values
	basic  []string // the Authorization headers
	answer func(n int, form url.Values) (status int, body any)
}

func newTokenEndpoint(t *testing.T, answer func(n int, form url.Values) (int, any)) *tokenEndpoint {
	te := &tokenEndpoint{answer: answer}
	te.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(te.calls.Add(1))
		if r.Method != http.MethodPost || r.URL.Path != "/token" {
			http.Error(w, "not here", http.StatusNotFound)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		te.mu.Lock()
		te.forms = append(te.forms, r.PostForm)
		te.basic = append(te.basic, r.Header.Get("Authorization"))
		te.mu.Unlock()
		status, body := te.answer(n, r.PostForm)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(te.srv.Close)
	return te
}

func (te *tokenEndpoint) url() string { return te.srv.URL + "/token" }

func (te *tokenEndpoint) form(t *testing.T, i int) url.Values {
	t.Helper()
	te.mu.Lock()
	defer te.mu.Unlock()
	if i >= len(te.forms) {
		t.Fatalf("token endpoint got %d requests, want at least %d", len(te.forms), i+1)
	}
	return te.forms[i]
}

// storedRecord is a login whose access token expires at exp.
func storedRecord(tokenURL string, exp time.Time) *Record {
	return &Record{
		Resource:     "https://mcp.example.com/mcp",
		AccessToken:  "old-access",
		RefreshToken: "old-refresh",
		ExpiresAt:    exp,
		TokenType:    "Bearer",
		Scope:        "read",
		ClientID:     "client-7",
		TokenURL:     tokenURL,
		AuthStyle:    int(oauth2.AuthStyleInParams),
	}
}

func newStoredSource(store Store, clock *testClock, rec *Record) *storedSource {
	return &storedSource{id: "srv", store: store, client: &http.Client{}, now: clock.Now, rec: rec}
}

func TestStoredSourceFreshTokenNeedsNoRequest(t *testing.T) {
	te := newTokenEndpoint(t, func(int, url.Values) (int, any) { return 500, nil })
	clock := newTestClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	s := newStoredSource(nil, clock, storedRecord(te.url(), clock.Now().Add(time.Hour)))
	for range 3 {
		tok, err := s.Token()
		if err != nil {
			t.Fatal(err)
		}
		if tok.AccessToken != "old-access" || tok.RefreshToken != "old-refresh" || tok.Type() != "Bearer" {
			t.Fatalf("token = %+v", tok)
		}
		if sc, _ := tok.Extra("scope").(string); sc != "read" {
			t.Errorf("scope extra = %q, want read", sc)
		}
	}
	// A token without an expiry never needs a refresh.
	s2 := newStoredSource(nil, clock, storedRecord(te.url(), time.Time{}))
	if _, err := s2.Token(); err != nil {
		t.Fatal(err)
	}
	if n := te.calls.Load(); n != 0 {
		t.Errorf("fresh tokens made %d token requests", n)
	}
}

func TestStoredSourceRefreshesExpiredToken(t *testing.T) {
	te := newTokenEndpoint(t, func(n int, _ url.Values) (int, any) {
		if n == 1 {
			return 200, map[string]any{"access_token": "new-access", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "new-refresh", "scope": "read write"}
		}
		// No refresh_token: the old one stays.
		return 200, map[string]any{"access_token": "newer-access", "token_type": "Bearer", "expires_in": 3600}
	})
	clock := newTestClock(time.Now())
	store := &FileStore{Path: filepath.Join(t.TempDir(), "mcp-auth.json")}
	rec := storedRecord(te.url(), clock.Now().Add(time.Hour))
	if err := store.Save("srv", rec); err != nil {
		t.Fatal(err)
	}
	s := newStoredSource(store, clock, rec)

	// Within refreshEarly of the expiry the token counts as expired.
	clock.Add(time.Hour - refreshEarly + time.Second)
	tok, err := s.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "new-access" || tok.RefreshToken != "new-refresh" {
		t.Fatalf("refreshed token = %+v", tok)
	}
	f := te.form(t, 0)
	if f.Get("grant_type") != "refresh_token" || f.Get("refresh_token") != "old-refresh" || f.Get("client_id") != "client-7" || f.Get("resource") != rec.Resource {
		t.Errorf("refresh form = %v", f)
	}
	saved, err := store.Load("srv")
	if err != nil || saved == nil {
		t.Fatalf("stored record: %v, %v", saved, err)
	}
	if saved.AccessToken != "new-access" || saved.RefreshToken != "new-refresh" || saved.Scope != "read write" ||
		saved.ClientID != "client-7" || saved.Resource != rec.Resource || saved.TokenURL != te.url() {
		t.Errorf("stored after refresh: %+v", saved)
	}
	if !saved.Updated.Equal(clock.Now().UTC()) {
		t.Errorf("Updated = %v, want the clock's %v", saved.Updated, clock.Now().UTC())
	}
	if d := saved.ExpiresAt.Sub(clock.Now()); d < 59*time.Minute || d > 61*time.Minute {
		t.Errorf("ExpiresAt is %v from now, want about an hour", d)
	}

	// A forced refresh; the answer has no refresh_token.
	if err := s.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f := te.form(t, 1); f.Get("refresh_token") != "new-refresh" {
		t.Errorf("second refresh sent refresh_token %q", f.Get("refresh_token"))
	}
	saved, _ = store.Load("srv")
	if saved.AccessToken != "newer-access" || saved.RefreshToken != "new-refresh" {
		t.Errorf("a response without refresh_token lost the old one: %+v", saved)
	}
	if got := s.record(); got.RefreshToken != "new-refresh" || got.Scope != "read write" {
		t.Errorf("in memory: %+v", got)
	}
}

func TestStoredSourceClientSecretInHeader(t *testing.T) {
	te := newTokenEndpoint(t, func(int, url.Values) (int, any) {
		return 200, map[string]any{"access_token": "a2", "token_type": "Bearer"}
	})
	clock := newTestClock(time.Now())
	rec := storedRecord(te.url(), clock.Now().Add(-time.Minute))
	rec.ClientSecret, rec.AuthStyle = "s3cret", int(oauth2.AuthStyleInHeader)
	s := newStoredSource(nil, clock, rec)
	if _, err := s.Token(); err != nil {
		t.Fatal(err)
	}
	te.mu.Lock()
	defer te.mu.Unlock()
	req := &http.Request{Header: http.Header{"Authorization": {te.basic[0]}}}
	if id, secret, ok := req.BasicAuth(); !ok || id != "client-7" || secret != "s3cret" {
		t.Errorf("Basic auth = %q, %q, %v", id, secret, ok)
	}
	if te.forms[0].Get("client_secret") != "" {
		t.Error("the client secret is also in the form")
	}
}

func TestStoredSourceRefusedRefresh(t *testing.T) {
	te := newTokenEndpoint(t, func(int, url.Values) (int, any) {
		return 400, map[string]any{"error": "invalid_grant", "error_description": "the refresh token was revoked", "echo": "BODY-ECHO-old-refresh"}
	})
	clock := newTestClock(time.Now())
	store := &FileStore{Path: filepath.Join(t.TempDir(), "mcp-auth.json")}
	rec := storedRecord(te.url(), clock.Now().Add(-time.Minute))
	if err := store.Save("srv", rec); err != nil {
		t.Fatal(err)
	}
	s := newStoredSource(store, clock, rec)
	_, err := s.Token()
	if err == nil {
		t.Fatal("a refused refresh succeeded")
	}
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("error %v does not wrap the RetrieveError (%#v)", err, re)
	}
	msg := err.Error()
	if !strings.Contains(msg, "the refresh token was revoked") || !strings.Contains(msg, `"srv"`) {
		t.Errorf("error %q lacks the error_description or the server id", msg)
	}
	if strings.Contains(msg, "BODY-ECHO") || strings.Contains(msg, "old-refresh") {
		t.Errorf("error %q shows the response body", msg)
	}
	// Nothing was stored.
	if saved, _ := store.Load("srv"); saved.AccessToken != "old-access" {
		t.Errorf("a refused refresh changed the record: %+v", saved)
	}
}

func TestStoredSourceNothingToRefreshWith(t *testing.T) {
	clock := newTestClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	rec := storedRecord("", clock.Now().Add(-time.Minute))
	rec.RefreshToken = ""
	s := newStoredSource(nil, clock, rec)
	if s.canRefresh() {
		t.Error("canRefresh without a refresh token")
	}
	_, err := s.Token()
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Errorf("expired without a refresh token: %v", err)
	}
}

// Two mcphost processes share the token file; A refreshes first, and B,
// which still holds the old, expired token, takes A's without a request
// of its own (which would spend a rotated refresh token a second time).
func TestStoredSourceTakesAnotherProcessRefresh(t *testing.T) {
	te := newTokenEndpoint(t, func(n int, f url.Values) (int, any) {
		if f.Get("refresh_token") != "old-refresh" {
			return 400, map[string]any{"error": "invalid_grant"}
		}
		return 200, map[string]any{"access_token": "a-access", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "a-refresh"}
	})
	clock := newTestClock(time.Now())
	path := filepath.Join(t.TempDir(), "mcp-auth.json")
	rec := storedRecord(te.url(), clock.Now().Add(-time.Minute))
	if err := (&FileStore{Path: path}).Save("srv", rec); err != nil {
		t.Fatal(err)
	}
	recA, recB := *rec, *rec
	a := newStoredSource(&FileStore{Path: path}, clock, &recA)
	b := newStoredSource(&FileStore{Path: path}, clock, &recB)

	tokA, err := a.Token()
	if err != nil || tokA.AccessToken != "a-access" {
		t.Fatalf("A: %+v, %v", tokA, err)
	}
	if n := te.calls.Load(); n != 1 {
		t.Fatalf("A made %d token requests", n)
	}
	tokB, err := b.Token()
	if err != nil {
		t.Fatalf("B: %v", err)
	}
	if tokB.AccessToken != "a-access" || tokB.RefreshToken != "a-refresh" {
		t.Errorf("B got %+v, want A's tokens", tokB)
	}
	if n := te.calls.Load(); n != 1 {
		t.Errorf("B made a token request of its own (%d in all)", n)
	}
}

// When the stored token is expired too but its refresh token was rotated
// by another process, the refresh uses the stored refresh token.
func TestStoredSourceUsesRotatedRefreshToken(t *testing.T) {
	te := newTokenEndpoint(t, func(n int, f url.Values) (int, any) {
		if f.Get("refresh_token") != "rotated-refresh" {
			return 400, map[string]any{"error": "invalid_grant", "error_description": "refresh token reused"}
		}
		return 200, map[string]any{"access_token": "b-access", "token_type": "Bearer"}
	})
	clock := newTestClock(time.Now())
	store := &FileStore{Path: filepath.Join(t.TempDir(), "mcp-auth.json")}
	rec := storedRecord(te.url(), clock.Now().Add(-time.Minute))
	other := *rec
	other.AccessToken, other.RefreshToken = "other-access", "rotated-refresh"
	if err := store.Save("srv", &other); err != nil {
		t.Fatal(err)
	}
	s := newStoredSource(store, clock, rec)
	tok, err := s.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok.AccessToken != "b-access" || tok.RefreshToken != "rotated-refresh" {
		t.Errorf("token = %+v", tok)
	}
	// A stored record for another URL is not taken.
	elsewhere := *rec
	elsewhere.Resource, elsewhere.AccessToken, elsewhere.ExpiresAt = "https://other.example.com/", "foreign", time.Time{}
	if err := store.Save("srv", &elsewhere); err != nil {
		t.Fatal(err)
	}
	rec2 := storedRecord(te.url(), clock.Now().Add(-time.Minute))
	rec2.RefreshToken = "rotated-refresh"
	s2 := newStoredSource(store, clock, rec2)
	if tok, err := s2.Token(); err != nil || tok.AccessToken == "foreign" {
		t.Errorf("took the record of another resource: %+v, %v", tok, err)
	}
}

func TestDescribeRetrieveErrorKeepsNoBody(t *testing.T) {
	re := &oauth2.RetrieveError{
		Response:         &http.Response{StatusCode: 401, Status: "401 Unauthorized", Body: io.NopCloser(strings.NewReader(""))},
		Body:             []byte(`{"access_token":"leaked"}`),
		ErrorDescription: "line one\nline two",
	}
	err := describeRetrieveError(re)
	if msg := err.Error(); msg != "the authorization server answered HTTP 401: line one" {
		t.Errorf("message = %q", msg)
	}
	var got *oauth2.RetrieveError
	if !errors.As(err, &got) || got != re {
		t.Error("the RetrieveError is not wrapped")
	}
	plain := errors.New("dial failed")
	if describeRetrieveError(plain) != plain {
		t.Error("a non-RetrieveError was changed")
	}
}

func TestApplyToken(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.Local)
	rec := &Record{AccessToken: "a1", RefreshToken: "r1", Scope: "s1", TokenType: "DPoP"}
	exp := now.Add(time.Hour)
	applyToken(rec, (&oauth2.Token{AccessToken: "a2", Expiry: exp}).WithExtra(map[string]any{"scope": ""}), now)
	if rec.AccessToken != "a2" || rec.RefreshToken != "r1" || rec.Scope != "s1" || rec.TokenType != "Bearer" || !rec.ExpiresAt.Equal(exp) {
		t.Errorf("without refresh token and scope: %+v", rec)
	}
	if rec.Updated != now.UTC() || rec.Updated.Location() != time.UTC {
		t.Errorf("Updated = %v, want the clock in UTC", rec.Updated)
	}
	applyToken(rec, (&oauth2.Token{AccessToken: "a3", RefreshToken: "r3", TokenType: "DPoP"}).WithExtra(map[string]any{"scope": "s1 s2"}), now)
	if rec.RefreshToken != "r3" || rec.Scope != "s1 s2" || rec.TokenType != "DPoP" || !rec.ExpiresAt.IsZero() {
		t.Errorf("with refresh token and scope: %+v", rec)
	}
}

package authn

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/oauth2"
)

// refreshEarly: a token is refreshed this long before it expires, so that
// a request never leaves with a token that expires on the way.
const refreshEarly = 30 * time.Second

// storedSource is the token source of one server's login: it hands out the
// stored access token, refreshes it before it expires (and when the server
// refuses it), and writes every new token back to the store under the
// store's lock — after checking whether another process refreshed first.
type storedSource struct {
	id     string
	store  Store // nil: memory only
	client *http.Client
	now    func() time.Time

	mu  sync.Mutex
	rec *Record
}

func (s *storedSource) token(rec *Record) *oauth2.Token {
	t := &oauth2.Token{AccessToken: rec.AccessToken, TokenType: rec.TokenType, RefreshToken: rec.RefreshToken, Expiry: rec.ExpiresAt}
	return t.WithExtra(map[string]any{"scope": rec.Scope})
}

func (s *storedSource) fresh(rec *Record) bool {
	return rec.AccessToken != "" && (rec.ExpiresAt.IsZero() || s.now().Add(refreshEarly).Before(rec.ExpiresAt))
}

// Token implements oauth2.TokenSource.
func (s *storedSource) Token() (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fresh(s.rec) {
		return s.token(s.rec), nil
	}
	if err := s.refreshLocked(context.Background(), false); err != nil {
		return nil, err
	}
	return s.token(s.rec), nil
}

// Refresh gets a new access token even if the current one looks valid
// (the server refused it).
func (s *storedSource) Refresh(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshLocked(ctx, true)
}

func (s *storedSource) canRefresh() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec.RefreshToken != "" && s.rec.TokenURL != ""
}

func (s *storedSource) record() Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.rec
}

// errNoRefresh: the token expired and there is nothing to refresh it with.
var errNoRefresh = &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "the access token expired and no refresh token was issued"}

func (s *storedSource) refreshLocked(ctx context.Context, force bool) error {
	if s.rec.RefreshToken == "" || s.rec.TokenURL == "" {
		return errNoRefresh
	}
	if s.store != nil {
		unlock, err := s.store.Lock()
		if err != nil {
			return err
		}
		defer unlock()
		// Another mcphost may have refreshed (and so spent our refresh
		// token, where the server rotates them): take its token.
		if cur, err := s.store.Load(s.id); err == nil && cur != nil && cur.Resource == s.rec.Resource &&
			cur.AccessToken != s.rec.AccessToken && s.fresh(cur) {
			s.rec = cur
			return nil
		} else if err == nil && cur != nil && cur.Resource == s.rec.Resource && cur.RefreshToken != "" {
			s.rec.RefreshToken = cur.RefreshToken
		}
	}
	// RFC 8707 and the MCP authorization spec: the refreshed token is
	// asked for the same resource.
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {s.rec.RefreshToken}, "resource": {s.rec.Resource}}
	id, secret := s.rec.ClientID, s.rec.ClientSecret
	if secret == "" || oauth2.AuthStyle(s.rec.AuthStyle) == oauth2.AuthStyleInParams {
		form.Set("client_id", id)
		if secret != "" {
			form.Set("client_secret", secret)
		}
		id, secret = "", ""
	}
	tok, err := postToken(ctx, s.client, s.now, s.rec.TokenURL, form, id, secret)
	if err != nil {
		if !refused(err) {
			// The authorization server is down or unreachable: the
			// refresh token may still be good; try again later.
			return &transientError{fmt.Errorf("refreshing the token of server %q: %s", s.id, shorten(describeRetrieveError(err)))}
		}
		return fmt.Errorf("refreshing the token of server %q: %w", s.id, describeRetrieveError(err))
	}
	if err := checkTokenSize(tok); err != nil {
		return fmt.Errorf("refreshing the token of server %q: %w", s.id, err)
	}
	next := *s.rec
	applyToken(&next, tok, s.now())
	s.rec = &next
	if s.store != nil {
		if err := s.store.Save(s.id, &next); err != nil {
			return err
		}
	}
	return nil
}

// applyToken copies a token response into rec.
func applyToken(rec *Record, tok *oauth2.Token, now time.Time) {
	rec.AccessToken = tok.AccessToken
	if tok.RefreshToken != "" {
		rec.RefreshToken = tok.RefreshToken
	}
	rec.TokenType = tok.Type()
	rec.ExpiresAt = tok.Expiry
	if sc, ok := tok.Extra("scope").(string); ok && sc != "" {
		rec.Scope = sc
	}
	rec.Updated = now.UTC()
}

// describeRetrieveError keeps what an authorization server said (error and
// error_description) and drops the response body, which may echo a token.
func describeRetrieveError(err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return err
	}
	msg := re.ErrorCode
	if msg == "" && re.Response != nil {
		msg = fmt.Sprintf("HTTP %d", re.Response.StatusCode)
	}
	if re.ErrorDescription != "" {
		msg += ": " + oneLine(re.ErrorDescription, 300)
	}
	return &authServerError{msg: "the authorization server answered " + msg, re: re}
}

type authServerError struct {
	msg string
	re  *oauth2.RetrieveError
}

func (e *authServerError) Error() string { return e.msg }
func (e *authServerError) Unwrap() error { return e.re }

// oneLine shortens s to one line of at most n bytes.
func oneLine(s string, n int) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > n {
		for n > 0 && !utf8.RuneStart(s[n]) { // not half a character
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// maxErrorText bounds what an error from an authorization server's side
// (a registration refused with a page of HTML, say) may bring into a
// message.
const maxErrorText = 300

// shortError keeps an error's chain but shows one short line of it.
type shortError struct {
	msg string
	err error
}

func (e *shortError) Error() string { return e.msg }
func (e *shortError) Unwrap() error { return e.err }

// shorten makes err's message one line of at most maxErrorText bytes:
// go-sdk's registration and discovery errors quote response bodies.
func shorten(err error) error {
	msg := err.Error()
	if len(msg) <= maxErrorText && !strings.ContainsAny(msg, "\r\n") {
		return err
	}
	return &shortError{msg: oneLine(msg, maxErrorText), err: err}
}

// maxTokenBytes bounds a token an authorization server hands out: a
// hostile one must not fill the token file (read with a 4 MiB cap) and
// lock every other login out.
const maxTokenBytes = 32 << 10

func checkTokenSize(tok *oauth2.Token) error {
	if len(tok.AccessToken) > maxTokenBytes || len(tok.RefreshToken) > maxTokenBytes {
		return fmt.Errorf("the authorization server issued a token over %d KiB; refused", maxTokenBytes>>10)
	}
	return nil
}

// ErrTransient is matched by authorization errors that a later attempt
// may not meet (the authorization server down, a network error): not a
// reason to ask the user for a new login.
var ErrTransient = errors.New("temporary authorization failure")

type transientError struct{ error }

func (e *transientError) Unwrap() []error { return []error{e.error, ErrTransient} }

// refused reports whether a token request's error is the authorization
// server refusing the grant (RFC 6749 §5.2: an error code, 400 or 401),
// as opposed to failing to answer.
func refused(err error) bool {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return false
	}
	if re.ErrorCode != "" {
		return true
	}
	return re.Response != nil && (re.Response.StatusCode == http.StatusBadRequest || re.Response.StatusCode == http.StatusUnauthorized)
}

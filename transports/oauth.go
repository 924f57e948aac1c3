package transports

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// RequestAuthorizer is implemented by OAuth handlers whose tokens are not
// plain bearer tokens: a DPoP-bound token (RFC 9449) goes out as
// "Authorization: DPoP <token>" with a fresh proof on every request, and a
// server may ask for a proof with its nonce.
type RequestAuthorizer interface {
	// AuthorizeRequest sets req's Authorization (and proof) headers for tok.
	AuthorizeRequest(req *http.Request, tok *oauth2.Token) error
	// NonceChallenge reads resp's nonce, if any, and reports whether resp
	// is a refusal that the same request with that nonce may cure.
	NonceChallenge(resp *http.Response) bool
}

// oauthRoundTripper authorizes every request of one server with an OAuth
// handler, for every HTTP transport alike (go-sdk's own hook exists for
// Streamable HTTP only and always says "Bearer"). After a 401 or 403 it asks
// the handler to authorize (log in again, step up, refresh...) — one request
// at a time, so that concurrent refusals cause one authorization — and sends
// the request once more.
type oauthRoundTripper struct {
	base    http.RoundTripper
	handler auth.OAuthHandler
	origin  string // credentials go to this origin only

	mu  sync.Mutex // serializes Authorize
	gen uint64     // counts successful Authorize calls (under mu)

	lastMu  sync.Mutex
	lastErr error // why the last authorization failed; cleared by a success
}

func newOAuthRoundTripper(base http.RoundTripper, h auth.OAuthHandler, origin string) *oauthRoundTripper {
	return &oauthRoundTripper{base: base, handler: h, origin: origin}
}

// send sends a copy of req with the handler's current credentials, and
// once more when the server asks for a proof with its new nonce.
func (o *oauthRoundTripper) send(req *http.Request) (*http.Response, error) {
	return o.sendOnce(req, true)
}

func (o *oauthRoundTripper) sendOnce(req *http.Request, nonceRetry bool) (*http.Response, error) {
	r := req.Clone(req.Context())
	if req.Body != nil && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	ts, err := o.handler.TokenSource(req.Context())
	if err != nil {
		return nil, err
	}
	if ts != nil {
		tok, err := ts.Token()
		var re *oauth2.RetrieveError
		switch {
		case errors.As(err, &re):
			// A refused refresh: send without a token, so that the
			// server's 401 starts an authorization.
		case err != nil:
			return nil, fmt.Errorf("oauth token: %w", err)
		case tok != nil:
			if ra, ok := o.handler.(RequestAuthorizer); ok {
				if err := ra.AuthorizeRequest(r, tok); err != nil {
					return nil, err
				}
			} else {
				r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			}
		}
	}
	resp, err := o.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	if ra, ok := o.handler.(RequestAuthorizer); ok && ra.NonceChallenge(resp) && nonceRetry && replayable(req) {
		drain(resp)
		return o.sendOnce(req, false) // once: a server that wants a new nonce every time is refused
	}
	return resp, nil
}

// RoundTrip implements http.RoundTripper.
func (o *oauthRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if o.origin != "" && !sameOrigin(req.URL, o.origin) {
		return o.base.RoundTrip(req)
	}
	o.mu.Lock()
	gen := o.gen
	o.mu.Unlock()
	resp, err := o.send(req)
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		if err == nil && resp.StatusCode < 300 {
			o.setLastErr(nil)
		}
		return resp, err
	}
	if !replayable(req) || !authorizationMatter(resp) {
		return resp, nil
	}
	o.mu.Lock()
	if o.gen == gen {
		status, header := resp.StatusCode, resp.Header.Clone()
		// Authorize reads and closes resp.
		if aerr := o.handler.Authorize(req.Context(), req, resp); aerr != nil {
			o.mu.Unlock()
			o.setLastErr(aerr)
			if out, ok := req.Context().Value(authOutcomeKey{}).(*AuthOutcome); ok {
				out.set(aerr)
			}
			// The caller sees the server's refusal (its body was read by
			// Authorize); the reason is kept for LastAuthError.
			refusal := &http.Response{
				Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
				Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header: header, Body: http.NoBody, Request: req,
			}
			if status == http.StatusForbidden {
				// A scope the caller could not get refuses this request,
				// not the session: a JSON-RPC error for it keeps go-sdk from
				// ending the connection over a bare 403.
				if body := refusedRequestError(req); body != nil {
					refusal.Header.Set("Content-Type", "application/json")
					refusal.Body, refusal.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
				}
			}
			return refusal, nil
		}
		o.gen++
	} else {
		drain(resp) // another request authorized meanwhile: use its result
	}
	o.mu.Unlock()
	resp, err = o.send(req)
	if err == nil && resp.StatusCode < 300 {
		o.setLastErr(nil)
	}
	return resp, err
}

func (o *oauthRoundTripper) setLastErr(err error) {
	o.lastMu.Lock()
	o.lastErr = err
	o.lastMu.Unlock()
}

// authorizationMatter: a 401, or a 403 that asks for more scope (a
// step-up). Any other 403 is the server's answer to the request itself:
// passed on, not sent again.
func authorizationMatter(resp *http.Response) bool {
	if resp.StatusCode == http.StatusUnauthorized {
		return true
	}
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return false
	}
	for _, c := range cs {
		if (c.Scheme == "bearer" || c.Scheme == "dpop") && c.Params["error"] == "insufficient_scope" {
			return true
		}
	}
	return false
}

// refusedRequestError is a JSON-RPC error answering the request req
// carries (nil when it carries none: a notification, a batch, no body).
func refusedRequestError(req *http.Request) []byte {
	if req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	var msg struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.NewDecoder(io.LimitReader(rc, 16<<20)).Decode(&msg); err != nil || len(msg.ID) == 0 || string(msg.ID) == "null" {
		return nil
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
		"error": map[string]any{"code": -32600, "message": "refused by the server: not authorized for this request (HTTP 403)"}})
	if err != nil {
		return nil
	}
	return body
}

func replayable(req *http.Request) bool { return req.Body == nil || req.GetBody != nil }

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// LastAuthError is why the last OAuth authorization of t's server failed
// (no login yet, a refused refresh, an error of the authorization
// server...), or nil. For sse, http and websocket transports.
func LastAuthError(t any) error {
	b := baseOf(t)
	if b == nil || b.oauth == nil {
		return nil
	}
	b.oauth.lastMu.Lock()
	defer b.oauth.lastMu.Unlock()
	return b.oauth.lastErr
}

func baseOf(t any) *base {
	switch x := t.(type) {
	case *hTTPTransport:
		return &x.base
	case *sSETransport:
		return &x.base
	case *webSocketTransport:
		return &x.base
	}
	return nil
}

// AuthOutcome records why the authorization of a request failed, for the
// caller whose request it was (see WithAuthOutcome).
type AuthOutcome struct {
	mu  sync.Mutex
	err error
}

type authOutcomeKey struct{}

// WithAuthOutcome returns ctx whose HTTP requests record into out why their
// authorization failed (a step-up nobody could approve, a login that
// expired): the server's refusal alone says only "Forbidden".
func WithAuthOutcome(ctx context.Context, out *AuthOutcome) context.Context {
	return context.WithValue(ctx, authOutcomeKey{}, out)
}

func (a *AuthOutcome) set(err error) {
	a.mu.Lock()
	a.err = err
	a.mu.Unlock()
}

// Err is the failed authorization's error, or nil.
func (a *AuthOutcome) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

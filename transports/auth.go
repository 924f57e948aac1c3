package transports

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// Challenge is what a server answered when it refused a request: the status
// (401 or 403) and its WWW-Authenticate header. The first request of a
// session is made with a zero Challenge.
type Challenge struct {
	Status          int
	WWWAuthenticate string
}

// AuthFunc supplies credentials for a server's HTTP requests. It returns the
// headers to send and how long they stay valid (0: until the server refuses
// them). Errors must not contain credential values.
type AuthFunc func(ctx context.Context, c Challenge) (http.Header, time.Duration, error)

// authRoundTripper asks an AuthFunc for headers on the first request, when
// they expire, and after a 401 or 403 — then retries that request once with
// the new headers. Replaying needs the request body again: requests whose
// body cannot be re-read are not retried.
type authRoundTripper struct {
	base   http.RoundTripper
	auth   AuthFunc
	origin string // credentials go to this origin only (originOf)

	mu      sync.Mutex
	header  http.Header
	expires time.Time // zero: no expiry
	now     func() time.Time
}

func newAuthRoundTripper(base http.RoundTripper, auth AuthFunc, origin string) *authRoundTripper {
	return &authRoundTripper{base: base, auth: auth, origin: origin, now: time.Now}
}

func (a *authRoundTripper) current(ctx context.Context) (http.Header, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.header != nil && (a.expires.IsZero() || a.now().Before(a.expires)) {
		return a.header, nil
	}
	return a.refreshLocked(ctx, Challenge{})
}

func (a *authRoundTripper) refreshLocked(ctx context.Context, c Challenge) (http.Header, error) {
	h, ttl, err := a.auth(ctx, c)
	if err != nil {
		a.header = nil
		return nil, err
	}
	a.header = h
	a.expires = time.Time{}
	if ttl > 0 {
		a.expires = a.now().Add(ttl)
	}
	return h, nil
}

// RoundTrip implements http.RoundTripper.
func (a *authRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if a.origin != "" && !sameOrigin(req.URL, a.origin) {
		return a.base.RoundTrip(req)
	}
	h, err := a.current(req.Context())
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	r := req.Clone(req.Context())
	setHeaders(r, h)
	resp, err := a.base.RoundTrip(r)
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	if req.Body != nil && req.GetBody == nil {
		return resp, nil
	}
	challenge := Challenge{Status: resp.StatusCode, WWWAuthenticate: resp.Header.Get("WWW-Authenticate")}
	a.mu.Lock()
	h, aerr := a.refreshLocked(req.Context(), challenge)
	a.mu.Unlock()
	if aerr != nil {
		return resp, nil // the caller sees the server's refusal
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		retry.Body = body
	}
	setHeaders(retry, h)
	return a.base.RoundTrip(retry)
}

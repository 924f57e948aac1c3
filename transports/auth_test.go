package transports

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAuthRoundTripperRefreshesOnChallengeAndExpiry(t *testing.T) {
	var (
		mu       sync.Mutex
		valid    = "Bearer v2"
		received []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		received = append(received, r.Header.Get("Authorization")+" "+string(body))
		ok := r.Header.Get("Authorization") == valid
		mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()

	var challenges []Challenge
	version := 0
	auth := func(_ context.Context, c Challenge) (http.Header, time.Duration, error) {
		challenges = append(challenges, c)
		version++
		return http.Header{"Authorization": {"Bearer v" + string(rune('0'+version))}}, time.Hour, nil
	}
	rt := newAuthRoundTripper(http.DefaultTransport, auth, originOf(mustParse(t, srv.URL)))
	now := time.Now()
	rt.now = func() time.Time { return now }
	client := &http.Client{Transport: rt}

	resp, err := client.Post(srv.URL, "text/plain", strings.NewReader("payload"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d after the retry", resp.StatusCode)
	}
	if len(challenges) != 2 || challenges[0].Status != 0 || challenges[1].Status != 401 || !strings.Contains(challenges[1].WWWAuthenticate, "invalid_token") {
		t.Fatalf("challenges = %+v", challenges)
	}
	if strings.Join(received, "|") != "Bearer v1 payload|Bearer v2 payload" {
		t.Fatalf("server received %q (the body must be replayed)", received)
	}

	// Cached until it expires.
	resp, _ = client.Get(srv.URL)
	resp.Body.Close()
	if len(challenges) != 2 {
		t.Fatalf("asked again before expiry: %d", len(challenges))
	}
	now = now.Add(2 * time.Hour)
	mu.Lock()
	valid = "Bearer v3"
	mu.Unlock()
	resp, _ = client.Get(srv.URL)
	resp.Body.Close()
	if len(challenges) != 3 || challenges[2].Status != 0 || resp.StatusCode != 200 {
		t.Fatalf("after expiry: %d challenges, status %d", len(challenges), resp.StatusCode)
	}
}

func TestAuthRoundTripperErrorsAndOtherHosts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			w.WriteHeader(http.StatusTeapot)
		}
	}))
	defer srv.Close()
	failing := func(context.Context, Challenge) (http.Header, time.Duration, error) {
		return nil, 0, errors.New("plugin header-auth: secret not granted")
	}
	client := &http.Client{Transport: newAuthRoundTripper(http.DefaultTransport, failing, originOf(mustParse(t, srv.URL)))}
	if _, err := client.Get(srv.URL); err == nil || !strings.Contains(err.Error(), "secret not granted") {
		t.Fatalf("err = %v", err)
	}
	// Another host never gets the credentials (nor asks for them).
	client = &http.Client{Transport: newAuthRoundTripper(http.DefaultTransport, failing, "http://example.invalid:80")}
	resp, err := client.Get(srv.URL)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("other host: %v %v", resp, err)
	}
	resp.Body.Close()
}

package authn

import (
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

func newTestDPoPKey(t *testing.T, clock *testClock) *dpopKey {
	t.Helper()
	d, err := newDPoPKey(clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkProof verifies a DPoP proof as a resource or authorization server
// would (RFC 9449 §4.3) and returns its claims.
func checkProof(t *testing.T, d *dpopKey, proof, method, htu string, iat time.Time) jwtParts {
	t.Helper()
	p := decodeJWT(t, proof)
	if p.header["typ"] != "dpop+jwt" || p.header["alg"] != "ES256" {
		t.Errorf("header = %v, want typ dpop+jwt, alg ES256", p.header)
	}
	pub := jwkPublicKey(t, p.header["jwk"])
	if !pub.Equal(&d.key.PublicKey) {
		t.Error("the proof's jwk is not the key's public key")
	}
	verifyJWT(t, p, pub)
	if p.claims["htm"] != method || p.claims["htu"] != htu {
		t.Errorf("htm, htu = %v, %v; want %s, %s", p.claims["htm"], p.claims["htu"], method, htu)
	}
	if got := p.claimInt(t, "iat"); got != iat.Unix() {
		t.Errorf("iat = %d, want %d (the clock's)", got, iat.Unix())
	}
	if jti, _ := p.claims["jti"].(string); len(jti) < 16 {
		t.Errorf("jti = %q, want a random id", jti)
	}
	return p
}

func TestDPoPProof(t *testing.T) {
	clock := newTestClock(time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC))
	d := newTestDPoPKey(t, clock)
	u, _ := url.Parse("https://RS.example.com:8443/mcp/v1?session=abc#frag")
	const htu = "https://RS.example.com:8443/mcp/v1"

	p1, err := d.proof(http.MethodPost, u, "")
	if err != nil {
		t.Fatal(err)
	}
	c1 := checkProof(t, d, p1, "POST", htu, clock.Now())
	for _, absent := range []string{"ath", "nonce"} {
		if _, ok := c1.claims[absent]; ok {
			t.Errorf("claim %s in a proof that should not have it: %v", absent, c1.claims)
		}
	}

	// With an access token: ath; the clock moved: iat follows it.
	clock.Add(90 * time.Second)
	p2, err := d.proof(http.MethodGet, u, "access-token-1")
	if err != nil {
		t.Fatal(err)
	}
	c2 := checkProof(t, d, p2, "GET", htu, clock.Now())
	sum := sha256.Sum256([]byte("access-token-1"))
	if c2.claims["ath"] != b64.EncodeToString(sum[:]) {
		t.Errorf("ath = %v, want base64url(sha256(token))", c2.claims["ath"])
	}
	if c1.claims["jti"] == c2.claims["jti"] {
		t.Error("two proofs share a jti")
	}

	// A nonce the origin sent goes into its proofs, and only its.
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Dpop-Nonce": {"nonce-1"}}, Request: &http.Request{URL: u}}
	if !d.noteNonce(resp) {
		t.Error("noteNonce: a first nonce is not new")
	}
	if d.noteNonce(resp) {
		t.Error("noteNonce: the same nonce again is new")
	}
	other, _ := url.Parse("https://as.example.com/token")
	p3, _ := d.proof(http.MethodPost, u, "")
	p4, _ := d.proof(http.MethodPost, other, "")
	if c := checkProof(t, d, p3, "POST", htu, clock.Now()); c.claims["nonce"] != "nonce-1" {
		t.Errorf("nonce = %v, want nonce-1", c.claims["nonce"])
	}
	if c := checkProof(t, d, p4, "POST", "https://as.example.com/token", clock.Now()); c.claims["nonce"] != nil {
		t.Errorf("another origin's proof has nonce %v", c.claims["nonce"])
	}

	// An empty "?" is no query either.
	bare, _ := url.Parse("https://as.example.com/token?")
	p5, _ := d.proof(http.MethodPost, bare, "")
	checkProof(t, d, p5, "POST", "https://as.example.com/token", clock.Now())
}

func TestDPoPKeyPEMRoundTrip(t *testing.T) {
	clock := newTestClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	d := newTestDPoPKey(t, clock)
	d2, err := loadDPoPKey(d.pem(), clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	if !d2.key.Equal(d.key) {
		t.Error("the restored key differs")
	}
	if _, err := loadDPoPKey("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", clock.Now); err == nil {
		t.Error("a broken stored key loaded")
	}
}

func TestDPoPAuthorizeRequest(t *testing.T) {
	clock := newTestClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	d := newTestDPoPKey(t, clock)
	for _, typ := range []string{"DPoP", "dpop"} {
		req, _ := http.NewRequest(http.MethodPost, "https://rs.example.com/mcp?x=1", nil)
		if err := d.authorizeRequest(req, &oauth2.Token{AccessToken: "bound-tok", TokenType: typ}); err != nil {
			t.Fatal(err)
		}
		if got := req.Header.Get("Authorization"); got != "DPoP bound-tok" {
			t.Errorf("token_type %s: Authorization = %q", typ, got)
		}
		p := checkProof(t, d, req.Header.Get("DPoP"), "POST", "https://rs.example.com/mcp", clock.Now())
		sum := sha256.Sum256([]byte("bound-tok"))
		if p.claims["ath"] != b64.EncodeToString(sum[:]) {
			t.Errorf("ath = %v", p.claims["ath"])
		}
	}
	for _, typ := range []string{"Bearer", ""} {
		req, _ := http.NewRequest(http.MethodGet, "https://rs.example.com/mcp", nil)
		if err := d.authorizeRequest(req, &oauth2.Token{AccessToken: "plain-tok", TokenType: typ}); err != nil {
			t.Fatal(err)
		}
		if got := req.Header.Get("Authorization"); got != "Bearer plain-tok" || req.Header.Get("DPoP") != "" {
			t.Errorf("token_type %q: Authorization %q, DPoP %q", typ, got, req.Header.Get("DPoP"))
		}
	}
}

func TestDPoPNonceChallenge(t *testing.T) {
	clock := newTestClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	u, _ := url.Parse("https://rs.example.com/mcp")
	resp := func(status int, challenge, nonce string) *http.Response {
		h := http.Header{}
		if challenge != "" {
			h.Set("WWW-Authenticate", challenge)
		}
		if nonce != "" {
			h.Set("DPoP-Nonce", nonce)
		}
		return &http.Response{StatusCode: status, Header: h, Request: &http.Request{Method: "POST", URL: u}}
	}
	const useNonce = `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"`
	for _, tc := range []struct {
		name string
		resp *http.Response
		want bool
	}{
		{"401 use_dpop_nonce with a nonce", resp(401, useNonce, "n-1"), true},
		{"no nonce", resp(401, useNonce, ""), false},
		{"another error", resp(401, `DPoP error="invalid_token"`, "n-1"), false},
		{"bearer scheme", resp(401, `Bearer error="use_dpop_nonce"`, "n-1"), false},
		{"not a 401", resp(400, useNonce, "n-1"), false},
		{"200 with a nonce", resp(200, "", "n-1"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newTestDPoPKey(t, clock)
			if got := d.nonceChallenge(tc.resp); got != tc.want {
				t.Errorf("nonceChallenge = %v, want %v", got, tc.want)
			}
		})
	}
	// The same nonce twice: the second is not a reason to retry (the
	// retry already carried it).
	d := newTestDPoPKey(t, clock)
	if !d.nonceChallenge(resp(401, useNonce, "n-1")) {
		t.Fatal("first challenge refused")
	}
	if d.nonceChallenge(resp(401, useNonce, "n-1")) {
		t.Error("the same nonce again asks for another retry")
	}
	if !d.nonceChallenge(resp(401, useNonce, "n-2")) {
		t.Error("a new nonce is not retried")
	}
	// A nonce on a 200 is kept for the next proof.
	d.nonceChallenge(resp(200, "", "n-3"))
	p, _ := d.proof("POST", u, "t")
	if c := decodeJWT(t, p); c.claims["nonce"] != "n-3" {
		t.Errorf("nonce = %v, want n-3", c.claims["nonce"])
	}
}

// dpopAS is an authorization server that demands a nonce in token
// requests (RFC 9449 §8).
type dpopAS struct {
	mu     sync.Mutex
	proofs []string
	bodies []string
	ctypes []string
}

func (a *dpopAS) handler(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	a.proofs = append(a.proofs, r.Header.Get("DPoP"))
	a.bodies = append(a.bodies, string(body))
	a.ctypes = append(a.ctypes, r.Header.Get("Content-Type"))
	n := len(a.proofs)
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if strings.HasSuffix(r.URL.Path, "/other-error") {
		w.Header().Set("DPoP-Nonce", "as-nonce-x")
		w.WriteHeader(400)
		io.WriteString(w, `{"error":"invalid_client"}`)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/always") { // a new nonce every time
		w.Header().Set("DPoP-Nonce", "always-"+strconv.Itoa(n))
		w.WriteHeader(400)
		io.WriteString(w, `{"error":"use_dpop_nonce"}`)
		return
	}
	p := r.Header.Get("DPoP")
	if p == "" || !strings.Contains(decodeNonce(p), "as-nonce") {
		w.Header().Set("DPoP-Nonce", "as-nonce-1")
		w.WriteHeader(400)
		io.WriteString(w, `{"error":"use_dpop_nonce","error_description":"Authorization server requires nonce in DPoP proof"}`)
		return
	}
	io.WriteString(w, `{"access_token":"t`+string(rune('0'+n))+`","token_type":"DPoP"}`)
}

func decodeNonce(proof string) string {
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return ""
	}
	raw, _ := b64.DecodeString(parts[1])
	var c struct {
		Nonce string `json:"nonce"`
	}
	json.Unmarshal(raw, &c)
	return c.Nonce
}

func TestTokenRoundTripperNonceRetry(t *testing.T) {
	as := &dpopAS{}
	srv := httptest.NewServer(http.HandlerFunc(as.handler))
	defer srv.Close()
	clock := newTestClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	d := newTestDPoPKey(t, clock)
	client := &http.Client{Transport: &tokenRoundTripper{base: http.DefaultTransport, key: func() *dpopKey { return d }}}

	const form = "grant_type=authorization_code&code=c1"
	resp, err := client.Post(srv.URL+"/token?q=1", "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"access_token":"t2"`) {
		t.Fatalf("after the nonce retry: %d %s", resp.StatusCode, body)
	}
	as.mu.Lock()
	if len(as.proofs) != 2 {
		t.Fatalf("%d token requests, want 2 (one retry)", len(as.proofs))
	}
	for i, p := range as.proofs {
		c := checkProof(t, d, p, "POST", srv.URL+"/token", clock.Now())
		if i == 0 && c.claims["nonce"] != nil {
			t.Errorf("first proof has a nonce: %v", c.claims["nonce"])
		}
		if i == 1 && c.claims["nonce"] != "as-nonce-1" {
			t.Errorf("retried proof's nonce = %v, want as-nonce-1", c.claims["nonce"])
		}
		if as.bodies[i] != form {
			t.Errorf("request %d body = %q, want the form again", i, as.bodies[i])
		}
	}
	if as.proofs[0] == as.proofs[1] {
		t.Error("the retry reused the first proof")
	}
	as.mu.Unlock()

	// A server that wants yet another nonce: one retry only, and its
	// answer reaches the caller.
	resp, err = client.Post(srv.URL+"/always", "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	as.mu.Lock()
	defer as.mu.Unlock()
	if n := len(as.proofs); n != 4 || resp.StatusCode != 400 || !strings.Contains(string(body), "use_dpop_nonce") {
		t.Errorf("always a new nonce: %d requests in all (want 4), answer %d %s", n, resp.StatusCode, body)
	}
	if c := decodeNonce(as.proofs[3]); c != "always-3" {
		t.Errorf("the retry's nonce = %q, want always-3", c)
	}
}

func TestTokenRoundTripperLeavesOthersAlone(t *testing.T) {
	as := &dpopAS{}
	srv := httptest.NewServer(http.HandlerFunc(as.handler))
	defer srv.Close()
	clock := newTestClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	d := newTestDPoPKey(t, clock)
	on := &http.Client{Transport: &tokenRoundTripper{base: http.DefaultTransport, key: func() *dpopKey { return d }}}
	off := &http.Client{Transport: &tokenRoundTripper{base: http.DefaultTransport, key: func() *dpopKey { return nil }}}

	send := func(c *http.Client, method, path, ctype, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// Not form POSTs, or DPoP off: sent once, no proof, the 400 reaches
	// the caller intact.
	for _, tc := range []struct {
		c                   *http.Client
		method, ctype, body string
	}{
		{on, http.MethodGet, "", ""},
		{on, http.MethodPost, "application/json", `{"grant_type":"x"}`},
		{off, http.MethodPost, "application/x-www-form-urlencoded", "grant_type=client_credentials"},
	} {
		status, body := send(tc.c, tc.method, "/token", tc.ctype, tc.body)
		if status != 400 || !strings.Contains(body, "use_dpop_nonce") {
			t.Errorf("%s %s: %d %s", tc.method, tc.ctype, status, body)
		}
	}
	// Another error with a nonce: no retry, the body is the caller's.
	status, body := send(on, http.MethodPost, "/other-error", "application/x-www-form-urlencoded", "grant_type=client_credentials")
	if status != 400 || body != `{"error":"invalid_client"}` {
		t.Errorf("other error: %d %q", status, body)
	}
	as.mu.Lock()
	defer as.mu.Unlock()
	if len(as.proofs) != 4 {
		t.Fatalf("%d requests, want 4 (no retries)", len(as.proofs))
	}
	for i := range 3 {
		if as.proofs[i] != "" {
			t.Errorf("request %d carries a DPoP proof", i)
		}
	}
	if as.proofs[3] == "" {
		t.Error("a form POST with DPoP on has no proof")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// An embedder's RoundTripper need not fill Response.Request (only
// http.Transport does): nonces still work and nothing panics.
func TestTokenRoundTripperBareRoundTripper(t *testing.T) {
	clock := newTestClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	d := newTestDPoPKey(t, clock)
	var nonces []string
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		n := decodeNonce(r.Header.Get("DPoP"))
		nonces = append(nonces, n)
		h := http.Header{"Content-Type": {"application/json"}}
		if n == "" {
			h.Set("DPoP-Nonce", "bare-nonce")
			return &http.Response{StatusCode: 400, Header: h, Body: io.NopCloser(strings.NewReader(`{"error":"use_dpop_nonce"}`))}, nil
		}
		return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(strings.NewReader(`{"access_token":"a","token_type":"DPoP"}`))}, nil
	})
	client := &http.Client{Transport: &tokenRoundTripper{base: base, key: func() *dpopKey { return d }}}
	resp, err := client.Post("https://as.example.com/token", "application/x-www-form-urlencoded", strings.NewReader("grant_type=refresh_token"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || len(nonces) != 2 || nonces[1] != "bare-nonce" {
		t.Errorf("status %d, proofs' nonces %q; want 200 after one retry with bare-nonce", resp.StatusCode, nonces)
	}
	// A resource server's answer without Request: no panic.
	h := http.Header{"Www-Authenticate": {`DPoP error="use_dpop_nonce"`}, "Dpop-Nonce": {"rs-nonce"}}
	d.nonceChallenge(&http.Response{StatusCode: 401, Header: h})
}

package gateway

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// The verifier allows the documented 30 s of clock skew on exp, nbf and
// iat, and not a second more; the clock is the test's.
func TestJWTLeeway(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	const iss, aud = "https://issuer.example", "https://gateway.example/mcp"
	clock := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	ks := &keySet{o: JWTOptions{Issuer: iss, Audience: aud}, now: func() time.Time { return clock },
		keys:    &jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}},
		fetched: clock, attempted: clock}
	token := func(claims map[string]any) string {
		c := map[string]any{"iss": iss, "aud": aud, "sub": "alice", "exp": clock.Add(time.Hour).Unix()}
		for k, v := range claims {
			c[k] = v
		}
		tok, err := jwt.Signed(signer).Claims(c).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	at := func(d time.Duration) int64 { return clock.Add(d).Unix() }
	for _, c := range []struct {
		name   string
		claims map[string]any
		ok     bool
	}{
		{"expired 10 s ago", map[string]any{"exp": at(-10 * time.Second)}, true},
		{"expired 30 s ago", map[string]any{"exp": at(-30 * time.Second)}, true},
		{"expired 31 s ago", map[string]any{"exp": at(-31 * time.Second)}, false},
		{"valid in 10 s", map[string]any{"nbf": at(10 * time.Second)}, true},
		{"valid in 31 s", map[string]any{"nbf": at(31 * time.Second)}, false},
		{"issued in 10 s", map[string]any{"iat": at(10 * time.Second)}, true},
		{"issued in 31 s", map[string]any{"iat": at(31 * time.Second)}, false},
	} {
		info, err := ks.verify(context.Background(), token(c.claims))
		if c.ok && err != nil {
			t.Errorf("%s: refused: %v", c.name, err)
		}
		if !c.ok && (err == nil || !errors.Is(err, auth.ErrInvalidToken)) {
			t.Errorf("%s: accepted (%+v) or wrong error: %v", c.name, info, err)
		}
	}
}

// The HTTP layer allows the verifier's leeway too: a token that expired
// 10 s ago gets through, one that expired 31 s ago gets 401.
func TestExpiredTokenWithinLeewayIsServed(t *testing.T) {
	for _, c := range []struct {
		past time.Duration
		want int
	}{{10 * time.Second, http.StatusOK}, {31 * time.Second, http.StatusUnauthorized}} {
		verifier := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) {
			return &auth.TokenInfo{UserID: "alice", Expiration: time.Now().Add(-c.past)}, nil
		}
		ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
		h := requireToken(HTTPOptions{Verifier: verifier}, "/.well-known/oauth-protected-resource/mcp")(ok)
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("Authorization", "Bearer some-token")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("a token expired %s ago: %d, want %d", c.past, w.Code, c.want)
		}
	}
}

package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/gateway"
	"github.com/mcphost/mcphost/pdk/abi"
)

type issuer struct {
	srv       *httptest.Server
	key       *ecdsa.PrivateKey
	kid       string
	jwksCalls atomic.Int64
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	is := &issuer{kid: "k1"}
	var err error
	if is.key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		is.jwksCalls.Add(1)
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &is.key.PublicKey, KeyID: is.kid, Algorithm: "ES256", Use: "sig"}}})
	})
	return is
}

func (is *issuer) sign(t *testing.T, key *ecdsa.PrivateKey, kid string, claims any) string {
	t.Helper()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", kid).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestJWTVerifier(t *testing.T) {
	is := newIssuer(t)
	const aud = "https://gateway.example/mcp"
	v, err := gateway.NewJWTVerifier(gateway.JWTOptions{Issuer: is.srv.URL, Audience: aud})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	claims := func(mod func(map[string]any)) map[string]any {
		c := map[string]any{"iss": is.srv.URL, "aud": []string{aud}, "sub": "alice", "exp": now.Add(time.Hour).Unix(),
			"iat": now.Unix(), "scope": "tools.read sre", "client_id": "cursor"}
		if mod != nil {
			mod(c)
		}
		return c
	}
	ctx := context.Background()
	info, err := v(ctx, is.sign(t, is.key, is.kid, claims(nil)), nil)
	if err != nil || info.UserID != "alice" || len(info.Scopes) != 2 || info.Scopes[1] != "sre" || info.Extra["client_id"] != "cursor" {
		t.Fatalf("valid token: %+v %v", info, err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for name, tok := range map[string]string{
		"expired":       is.sign(t, is.key, is.kid, claims(func(c map[string]any) { c["exp"] = now.Add(-time.Hour).Unix() })),
		"wrong aud":     is.sign(t, is.key, is.kid, claims(func(c map[string]any) { c["aud"] = "https://other.example/mcp" })),
		"wrong iss":     is.sign(t, is.key, is.kid, claims(func(c map[string]any) { c["iss"] = "https://evil.example" })),
		"no exp":        is.sign(t, is.key, is.kid, claims(func(c map[string]any) { delete(c, "exp") })),
		"other key":     is.sign(t, other, is.kid, claims(nil)),
		"unknown kid":   is.sign(t, other, "k9", claims(nil)),
		"not a JWT":     "opaque-token-value",
		"alg none":      "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.",
		"hmac with pub": hmacToken(t, is),
	} {
		if info, err := v(ctx, tok, nil); err == nil || !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: accepted (%+v) or wrong error: %v", name, info, err)
		}
	}
	// An unknown kid fetches the keys again, but not more than every 30 s.
	if n := is.jwksCalls.Load(); n > 2 {
		t.Errorf("%d JWKS fetches for one unknown kid", n)
	}
}

// An HS256 token "signed" with the issuer's public key as secret: the
// classic confusion attack.
func hmacToken(t *testing.T, is *issuer) string {
	pub, _ := json.Marshal(jose.JSONWebKey{Key: &is.key.PublicKey})
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: pub}, (&jose.SignerOptions{}).WithHeader("kid", is.kid))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(signer).Claims(map[string]any{"iss": is.srv.URL, "sub": "mallory", "exp": time.Now().Add(time.Hour).Unix()}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// sreOnly lets only callers with the "sre" scope call tools, and notes who
// called.
type sreOnly struct{ seen atomic.Value }

func (*sreOnly) StageName() string { return "test:sre-only" }

func (s *sreOnly) Policy(_ context.Context, req *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	if req.Caller != nil {
		s.seen.Store(*req.Caller)
		if slices.Contains(req.Caller.Scopes, "sre") {
			return &abi.PolicyDecision{Decision: abi.Allow}, nil
		}
	}
	return &abi.PolicyDecision{Decision: abi.Deny, Reason: "only the SRE group"}, nil
}

// Over HTTP, the identity in a JWT reaches the policy: "only the SRE group
// may call" works.
func TestCallerIdentityReachesPolicy(t *testing.T) {
	policy := &sreOnly{}
	f := start(t, []host.StageConfig{{Stage: policy}}, nil)
	is := newIssuer(t)
	t.Cleanup(http.DefaultClient.CloseIdleConnections)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	resource := "http://" + ln.Addr().String() + "/mcp"
	v, err := gateway.NewJWTVerifier(gateway.JWTOptions{Issuer: is.srv.URL, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	handler, err := f.g.HTTPHandler(gateway.HTTPOptions{Verifier: v, ResourceURL: resource, AuthorizationServers: []string{is.srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close(); http.DefaultTransport.(*http.Transport).CloseIdleConnections() })
	call := func(scope string) *mcp.CallToolResult {
		tok := is.sign(t, is.key, is.kid, map[string]any{"iss": is.srv.URL, "aud": resource, "sub": "bob",
			"exp": time.Now().Add(time.Hour).Unix(), "scope": scope, "client_id": "vscode"})
		ctx := ctxFor(t)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint: resource, HTTPClient: &http.Client{Transport: bearerRT(tok)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__b__echo", Arguments: map[string]any{"text": "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call("tools.read"); !res.IsError {
		t.Fatal("a caller without the sre scope got through")
	}
	if res := call("tools.read sre"); res.IsError {
		t.Fatalf("an SRE was refused: %v", res.Content)
	}
	seen, _ := policy.seen.Load().(abi.Caller)
	if seen.Kind != "gateway" || seen.ID != "bob" || seen.ClientID != "vscode" || seen.Session == "" {
		t.Fatalf("the policy saw %+v", seen)
	}
}

type bearerRT string

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// The audit log rotates: FILE becomes FILE.1 past MaxBytes, at most Keep
// rotated files stay.
func TestAuditLogRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l := &gateway.AuditLog{Path: path, MaxBytes: 300, Keep: 2}
	defer l.Close()
	for i := 0; i < 20; i++ {
		if err := l.Write(gateway.AuditRecord{Time: time.Now(), Server: "s", Tool: "t", Outcome: "ok", Arguments: map[string]any{"secret": "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{path, path + ".1", path + ".2"} {
		data, err := os.ReadFile(name)
		if err != nil || len(data) > 300 || strings.Contains(string(data), "secret") {
			t.Fatalf("%s: %d bytes, %v", name, len(data), err)
		}
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Fatal("more rotated files than Keep")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
}

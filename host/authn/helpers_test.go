package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"
)

// testClock is the Options clock of tests: it moves only when told.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock(t time.Time) *testClock { return &testClock{t: t} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// jwtParts is a decoded compact JWS.
type jwtParts struct {
	header, claims map[string]any
	input          string // header.claims, the signing input
	sig            []byte
}

func decodeJWT(t *testing.T, tok string) jwtParts {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("JWT has %d parts, want 3", len(parts))
	}
	var p jwtParts
	for i, dst := range []*map[string]any{&p.header, &p.claims} {
		raw, err := b64.DecodeString(parts[i])
		if err != nil {
			t.Fatalf("JWT part %d is not base64url without padding: %v", i, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.UseNumber()
		if err := dec.Decode(dst); err != nil {
			t.Fatalf("JWT part %d is not a JSON object: %v", i, err)
		}
	}
	sig, err := b64.DecodeString(parts[2])
	if err != nil {
		t.Fatalf("JWT signature is not base64url: %v", err)
	}
	p.input, p.sig = parts[0]+"."+parts[1], sig
	return p
}

// claimInt reads a numeric claim.
func (p jwtParts) claimInt(t *testing.T, name string) int64 {
	t.Helper()
	n, ok := p.claims[name].(json.Number)
	if !ok {
		t.Fatalf("claim %s = %#v, want a number", name, p.claims[name])
	}
	v, err := n.Int64()
	if err != nil {
		t.Fatalf("claim %s = %s, want an integer", name, n)
	}
	return v
}

// verifyJWT checks the signature of p with pub for the header's alg.
func verifyJWT(t *testing.T, p jwtParts, pub crypto.PublicKey) {
	t.Helper()
	if err := jwtVerify(p, pub); err != nil {
		t.Fatal(err)
	}
}

// jwtVerify is the check of a verifier: JWS ECDSA signatures are r||s of
// the curve's size (RFC 7518 §3.4).
func jwtVerify(p jwtParts, pub crypto.PublicKey) error {
	alg, _ := p.header["alg"].(string)
	switch alg {
	case "ES256", "ES384":
		k, ok := pub.(*ecdsa.PublicKey)
		if !ok {
			return fmt.Errorf("%s with a %T", alg, pub)
		}
		var digest []byte
		size := 32
		if alg == "ES256" {
			d := sha256.Sum256([]byte(p.input))
			digest = d[:]
		} else {
			d := sha512.Sum384([]byte(p.input))
			digest, size = d[:], 48
		}
		if len(p.sig) != 2*size {
			return fmt.Errorf("%s signature is %d bytes, want %d (r||s)", alg, len(p.sig), 2*size)
		}
		r, s := new(big.Int).SetBytes(p.sig[:size]), new(big.Int).SetBytes(p.sig[size:])
		if !ecdsa.Verify(k, digest, r, s) {
			return fmt.Errorf("%s signature does not verify", alg)
		}
	case "RS256":
		k, ok := pub.(*rsa.PublicKey)
		if !ok {
			return fmt.Errorf("RS256 with a %T", pub)
		}
		d := sha256.Sum256([]byte(p.input))
		if err := rsa.VerifyPKCS1v15(k, crypto.SHA256, d[:], p.sig); err != nil {
			return fmt.Errorf("RS256 signature does not verify: %v", err)
		}
	default:
		return fmt.Errorf("unexpected alg %q", alg)
	}
	return nil
}

// jwkPublicKey is the EC public key of a JWK.
func jwkPublicKey(t *testing.T, v any) *ecdsa.PublicKey {
	t.Helper()
	jwk, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("jwk = %#v, want an object", v)
	}
	if jwk["kty"] != "EC" {
		t.Fatalf("jwk kty = %v, want EC", jwk["kty"])
	}
	if _, ok := jwk["d"]; ok {
		t.Fatal("the jwk holds the private key (d)")
	}
	var curve elliptic.Curve
	switch jwk["crv"] {
	case "P-256":
		curve = elliptic.P256()
	case "P-384":
		curve = elliptic.P384()
	default:
		t.Fatalf("jwk crv = %v", jwk["crv"])
	}
	size := (curve.Params().BitSize + 7) / 8
	coord := func(name string) []byte {
		s, _ := jwk[name].(string)
		b, err := b64.DecodeString(s)
		if err != nil || len(b) != size {
			t.Fatalf("jwk %s = %q: %d bytes, %v; want %d bytes", name, s, len(b), err, size)
		}
		return b
	}
	raw := append([]byte{4}, coord("x")...)
	raw = append(raw, coord("y")...)
	pub, err := ecdsa.ParseUncompressedPublicKey(curve, raw)
	if err != nil {
		t.Fatalf("jwk is not a point of %s: %v", jwk["crv"], err)
	}
	return pub
}

package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
)

func pemOf(t *testing.T, typ string, der []byte) string {
	t.Helper()
	return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

func pkcs8PEM(t *testing.T, key any) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf(t, "PRIVATE KEY", der)
}

func ecKey(t *testing.T, c elliptic.Curve) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(c, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

var testRSAKey = func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}()

func TestSignJWT(t *testing.T) {
	p256, p384 := ecKey(t, elliptic.P256()), ecKey(t, elliptic.P384())
	for _, tc := range []struct {
		alg string
		key crypto.Signer
		pub crypto.PublicKey
	}{
		{"ES256", p256, &p256.PublicKey},
		{"ES384", p384, &p384.PublicKey},
		{"RS256", testRSAKey, &testRSAKey.PublicKey},
	} {
		t.Run(tc.alg, func(t *testing.T) {
			tok, err := signJWT(tc.key, tc.alg, map[string]any{"typ": "JWT", "kid": "k1"}, map[string]any{"iss": "me", "n": 7})
			if err != nil {
				t.Fatal(err)
			}
			p := decodeJWT(t, tok)
			if p.header["alg"] != tc.alg || p.header["typ"] != "JWT" || p.header["kid"] != "k1" {
				t.Errorf("header = %v", p.header)
			}
			if p.claims["iss"] != "me" || p.claimInt(t, "n") != 7 {
				t.Errorf("claims = %v", p.claims)
			}
			verifyJWT(t, p, tc.pub)
			if strings.ContainsAny(tok, "=+/") {
				t.Errorf("not base64url without padding: %s", tok)
			}
			// A changed payload or signature no longer verifies: the
			// check above is real.
			tampered := p
			tampered.input += "x"
			if jwtVerify(tampered, tc.pub) == nil {
				t.Error("a changed payload verifies")
			}
			other := p
			other.sig = append([]byte{}, p.sig...)
			other.sig[len(other.sig)-1] ^= 1
			if jwtVerify(other, tc.pub) == nil {
				t.Error("a changed signature verifies")
			}
		})
	}
	for _, tc := range []struct {
		alg  string
		key  crypto.Signer
		want string
	}{
		{"ES256", testRSAKey, "needs an EC key"},
		{"RS256", p256, "needs an RSA key"},
		{"HS256", p256, "unsupported"},
		{"none", p256, "unsupported"},
	} {
		if _, err := signJWT(tc.key, tc.alg, map[string]any{}, map[string]any{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("signJWT(%T, %s) = %v, want an error with %q", tc.key, tc.alg, err, tc.want)
		}
	}
}

func TestParsePrivateKey(t *testing.T) {
	p256, p384, p521 := ecKey(t, elliptic.P256()), ecKey(t, elliptic.P384()), ecKey(t, elliptic.P521())
	sec1 := func(k *ecdsa.PrivateKey) string {
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pemOf(t, "EC PRIVATE KEY", der)
	}
	pkcs1 := pemOf(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(testRSAKey))
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)

	for _, tc := range []struct {
		name, pem, alg, wantAlg string
		pub                     crypto.PublicKey
	}{
		{"pkcs8 P-256", pkcs8PEM(t, p256), "", "ES256", &p256.PublicKey},
		{"pkcs8 P-256 ES256", pkcs8PEM(t, p256), "ES256", "ES256", &p256.PublicKey},
		{"pkcs8 P-384", pkcs8PEM(t, p384), "", "ES384", &p384.PublicKey},
		{"pkcs8 RSA", pkcs8PEM(t, testRSAKey), "RS256", "RS256", &testRSAKey.PublicKey},
		{"sec1 P-256", sec1(p256), "", "ES256", &p256.PublicKey},
		{"sec1 P-384", sec1(p384), "ES384", "ES384", &p384.PublicKey},
		{"pkcs1 RSA", pkcs1, "", "RS256", &testRSAKey.PublicKey},
		{"with text around", "my key:\n" + pkcs8PEM(t, p256) + "\n", "", "ES256", &p256.PublicKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, alg, err := parsePrivateKey(tc.pem, tc.alg)
			if err != nil {
				t.Fatal(err)
			}
			if alg != tc.wantAlg {
				t.Errorf("alg = %s, want %s", alg, tc.wantAlg)
			}
			if !key.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(tc.pub) {
				t.Error("parsed another key")
			}
			// The key signs with the algorithm it was given.
			tok, err := signJWT(key, alg, map[string]any{}, map[string]any{"a": 1})
			if err != nil {
				t.Fatal(err)
			}
			verifyJWT(t, decodeJWT(t, tok), tc.pub)
		})
	}

	const secretish = "c2VjcmV0LWtleS1tYXRlcmlhbA"
	for _, tc := range []struct {
		name, pem, alg string
		want           []string
	}{
		{"P-256 as RS256", pkcs8PEM(t, p256), "RS256", []string{"signing_algorithm RS256", "use ES256"}},
		{"P-256 as ES384", sec1(p256), "ES384", []string{"P-256", "use ES256"}},
		{"P-384 as ES256", pkcs8PEM(t, p384), "ES256", []string{"P-384", "use ES384"}},
		{"RSA as ES256", pkcs1, "ES256", []string{"RSA", "use RS256"}},
		{"P-521", pkcs8PEM(t, p521), "", []string{"P-256 and P-384"}},
		{"ed25519", pkcs8PEM(t, edKey), "", []string{"only EC and RSA"}},
		{"not PEM", "-----BEGIN NOTHING " + secretish, "", []string{"not PEM"}},
		{"raw base64", secretish + secretish, "", []string{"not PEM"}},
		{"garbage in a PEM block", pemOf(t, "PRIVATE KEY", []byte(secretish)), "", []string{"does not parse"}},
		{"EC garbage", pemOf(t, "EC PRIVATE KEY", []byte(secretish)), "", []string{"does not parse"}},
		{"RSA garbage", pemOf(t, "RSA PRIVATE KEY", []byte(secretish)), "", []string{"does not parse"}},
		{"a certificate", pemOf(t, "CERTIFICATE", []byte(secretish)), "", []string{"not a private key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := parsePrivateKey(tc.pem, tc.alg)
			if err == nil {
				t.Fatal("parsed")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			for _, leak := range []string{secretish, "c2VjcmV0", "MIG", "MII"} {
				if strings.Contains(err.Error(), leak) {
					t.Errorf("error %q quotes the input (%s)", err, leak)
				}
			}
		})
	}
}

func TestPublicJWK(t *testing.T) {
	for _, c := range []elliptic.Curve{elliptic.P256(), elliptic.P384()} {
		// Many keys: some have coordinates with leading zero bytes, which
		// must keep the curve's full width.
		for range 20 {
			k := ecKey(t, c)
			if pub := jwkPublicKey(t, publicJWK(k)); !pub.Equal(&k.PublicKey) {
				t.Fatalf("%s: the JWK is not the key", c.Params().Name)
			}
		}
	}
	if id1, id2 := randomID(), randomID(); id1 == id2 || len(id1) < 16 {
		t.Errorf("randomID: %q, %q", id1, id2)
	}
}

// ECDSA's r and s are often shorter than the curve (a leading zero byte,
// 1 in 128 signatures): JWS wants them left-padded to full width.
func TestSignJWTPadsShortIntegers(t *testing.T) {
	k := ecKey(t, elliptic.P256())
	shortR, shortS := false, false
	for i := 0; i < 5000 && !(shortR && shortS); i++ {
		tok, err := signJWT(k, "ES256", map[string]any{}, map[string]any{"i": i})
		if err != nil {
			t.Fatal(err)
		}
		p := decodeJWT(t, tok)
		verifyJWT(t, p, &k.PublicKey)
		shortR = shortR || p.sig[0] == 0
		shortS = shortS || p.sig[32] == 0
	}
	if !shortR || !shortS {
		t.Log("5000 signatures without both a short r and a short s")
	}
}

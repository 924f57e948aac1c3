package authn

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
)

// A JWT signer written out rather than a JOSE library: mcphost signs two
// kinds of short JWTs (DPoP proofs and client assertions) with three
// algorithms and verifies none, which is a page of crypto/ecdsa and
// crypto/rsa (see RATIONALE.md).

var b64 = base64.RawURLEncoding

// signJWT returns header.claims.signature for alg ES256, ES384 or RS256.
func signJWT(key crypto.Signer, alg string, header, claims map[string]any) (string, error) {
	header["alg"] = alg
	h, err := json.Marshal(header)
	if err != nil {
		return "", err
	}
	c, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := b64.EncodeToString(h) + "." + b64.EncodeToString(c)
	var sig []byte
	switch alg {
	case "ES256", "ES384":
		k, ok := key.(*ecdsa.PrivateKey)
		if !ok {
			return "", fmt.Errorf("%s needs an EC key", alg)
		}
		var digest []byte
		size := 32
		if alg == "ES256" {
			d := sha256.Sum256([]byte(input))
			digest = d[:]
		} else {
			d := sha512.Sum384([]byte(input))
			digest, size = d[:], 48
		}
		r, s, err := ecdsa.Sign(rand.Reader, k, digest)
		if err != nil {
			return "", err
		}
		sig = make([]byte, 2*size)
		r.FillBytes(sig[:size])
		s.FillBytes(sig[size:])
	case "RS256":
		k, ok := key.(*rsa.PrivateKey)
		if !ok {
			return "", errors.New("RS256 needs an RSA key")
		}
		d := sha256.Sum256([]byte(input))
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, d[:])
		if err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("unsupported signing algorithm %q", alg)
	}
	return input + "." + b64.EncodeToString(sig), nil
}

// parsePrivateKey reads a PEM private key (PKCS #8, SEC 1 or PKCS #1) and
// the algorithm that fits it when alg is "". Errors never quote the key.
func parsePrivateKey(pemText, alg string) (crypto.Signer, string, error) {
	block, _ := pem.Decode([]byte(pemText))
	if block == nil {
		return nil, "", errors.New("the private key is not PEM (-----BEGIN PRIVATE KEY-----...)")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, "", fmt.Errorf("PEM block %q is not a private key", block.Type)
	}
	if err != nil {
		return nil, "", errors.New("the private key does not parse")
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		want := map[int]string{256: "ES256", 384: "ES384"}[k.Curve.Params().BitSize]
		if want == "" {
			return nil, "", errors.New("only P-256 and P-384 EC keys are supported")
		}
		if alg != "" && alg != want {
			return nil, "", fmt.Errorf("signing_algorithm %s does not fit a P-%d key (use %s)", alg, k.Curve.Params().BitSize, want)
		}
		return k, want, nil
	case *rsa.PrivateKey:
		if alg != "" && alg != "RS256" {
			return nil, "", fmt.Errorf("signing_algorithm %s does not fit an RSA key (use RS256)", alg)
		}
		return k, "RS256", nil
	}
	return nil, "", errors.New("only EC and RSA private keys are supported")
}

// publicJWK is the public half of an EC key as a JWK (RFC 7517).
func publicJWK(k *ecdsa.PrivateKey) map[string]any {
	size := (k.Curve.Params().BitSize + 7) / 8
	x, y := make([]byte, size), make([]byte, size)
	pub, _ := k.PublicKey.ECDH()
	raw := pub.Bytes() // 0x04 || X || Y
	copy(x, raw[1:1+size])
	copy(y, raw[1+size:])
	return map[string]any{"kty": "EC", "crv": k.Curve.Params().Name, "x": b64.EncodeToString(x), "y": b64.EncodeToString(y)}
}

// randomID is a JWT ID: 128 random bits.
func randomID() string {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	return b64.EncodeToString(n.Bytes())
}

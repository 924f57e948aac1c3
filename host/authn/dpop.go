package authn

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// dpopKey binds tokens to a key (RFC 9449): every request that presents a
// bound token, and every token request, carries a proof signed with it.
// Servers may demand their nonce in proofs; the last one each origin sent
// is kept.
type dpopKey struct {
	key *ecdsa.PrivateKey
	now func() time.Time

	mu     sync.Mutex
	nonces map[string]string // origin → last DPoP-Nonce
}

func newDPoPKey(now func() time.Time) (*dpopKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &dpopKey{key: k, now: now, nonces: map[string]string{}}, nil
}

// loadDPoPKey restores the key of stored tokens.
func loadDPoPKey(pemText string, now func() time.Time) (*dpopKey, error) {
	signer, alg, err := parsePrivateKey(pemText, "ES256")
	if err != nil || alg != "ES256" {
		return nil, errors.New("the stored DPoP key does not parse")
	}
	return &dpopKey{key: signer.(*ecdsa.PrivateKey), now: now, nonces: map[string]string{}}, nil
}

func (d *dpopKey) pem() string {
	der, err := x509.MarshalPKCS8PrivateKey(d.key)
	if err != nil {
		return ""
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

func originOf(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

// proof is the DPoP header for a request; accessToken "" for a token
// request (no ath claim).
func (d *dpopKey) proof(method string, u *url.URL, accessToken string) (string, error) {
	htu := *u
	htu.RawQuery, htu.Fragment, htu.ForceQuery = "", "", false
	claims := map[string]any{
		"jti": randomID(),
		"htm": method,
		"htu": htu.String(),
		"iat": d.now().Unix(),
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = b64.EncodeToString(sum[:])
	}
	d.mu.Lock()
	if n := d.nonces[originOf(u)]; n != "" {
		claims["nonce"] = n
	}
	d.mu.Unlock()
	return signJWT(d.key, "ES256", map[string]any{"typ": "dpop+jwt", "jwk": publicJWK(d.key)}, claims)
}

// noteNonce keeps the nonce a response carries; it reports whether there
// was a new one.
func (d *dpopKey) noteNonce(resp *http.Response) bool {
	n := resp.Header.Get("DPoP-Nonce")
	if n == "" || len(n) > 1024 || resp.Request == nil || resp.Request.URL == nil {
		return false
	}
	o := originOf(resp.Request.URL)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nonces[o] == n {
		return false
	}
	d.nonces[o] = n
	return true
}

// authorizeRequest presents tok: bound tokens as "DPoP <token>" with a
// proof, others as bearer tokens.
func (d *dpopKey) authorizeRequest(req *http.Request, tok *oauth2.Token) error {
	if !strings.EqualFold(tok.Type(), "DPoP") {
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		return nil
	}
	p, err := d.proof(req.Method, req.URL, tok.AccessToken)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "DPoP "+tok.AccessToken)
	req.Header.Set("DPoP", p)
	return nil
}

// nonceChallenge: a resource server's 401 with error="use_dpop_nonce"
// and a new nonce (RFC 9449 §9) is answered by sending the request again.
func (d *dpopKey) nonceChallenge(resp *http.Response) bool {
	fresh := d.noteNonce(resp)
	if resp.StatusCode != http.StatusUnauthorized || !fresh {
		return false
	}
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return false
	}
	for _, c := range cs {
		if c.Scheme == "dpop" && c.Params["error"] == "use_dpop_nonce" {
			return true
		}
	}
	return false
}

// tokenRoundTripper adds a proof to the token requests (form POSTs with a
// grant_type) sent to authorization servers, and sends a request once more
// when the server answers use_dpop_nonce (RFC 9449 §8).
type tokenRoundTripper struct {
	base http.RoundTripper
	key  func() *dpopKey // nil result: DPoP is off
}

func (t *tokenRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	d := t.key()
	if d == nil || req.Method != http.MethodPost || !strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") || req.GetBody == nil {
		return t.base.RoundTrip(req)
	}
	send := func() (*http.Response, error) {
		r := req.Clone(req.Context())
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
		p, err := d.proof(http.MethodPost, req.URL, "")
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", p)
		return t.base.RoundTrip(r)
	}
	resp, err := send()
	if err != nil {
		return nil, err
	}
	if resp.Request == nil { // a RoundTripper other than http.Transport
		resp.Request = req
	}
	fresh := d.noteNonce(resp)
	if resp.StatusCode == http.StatusBadRequest && fresh {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error == "use_dpop_nonce" {
			return send()
		}
		resp.Body = io.NopCloser(bytes.NewReader(data))
	}
	return resp, nil
}

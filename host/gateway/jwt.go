package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// JWTOptions configure the verification of JWT access tokens.
type JWTOptions struct {
	// Issuer must be the token's iss; its metadata (OIDC discovery, then
	// RFC 8414) names the JWKS unless JWKSURL does.
	Issuer string
	// Audience must be among the token's aud (RFC 8707: the gateway's
	// resource URL).
	Audience string
	// JWKSURL is where the issuer's keys are (optional).
	JWKSURL string
	// HTTPClient fetches metadata and keys (default: 10 s timeout).
	HTTPClient *http.Client
}

// jwtAlgorithms are the signatures accepted: asymmetric only (no "none",
// no HMAC, whose key would be the public one).
var jwtAlgorithms = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512, jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

const (
	maxJWKSBytes  = 1 << 20
	jwksTTL       = 10 * time.Minute
	jwksMinReload = 30 * time.Second // at most this often for an unknown kid
	// jwtLeeway is the clock skew allowed on exp, nbf and iat; the HTTP
	// layer allows it on every token's expiry too (requireToken), so
	// that what the verifier accepts is served.
	jwtLeeway = 30 * time.Second
)

// NewJWTVerifier verifies JWT access tokens against the issuer's keys:
// signature (asymmetric algorithms only), iss, aud, exp and nbf (30 s
// leeway). The subject becomes the caller's identity; "scope" (or "scp")
// its scopes; client_id (or azp) its client.
func NewJWTVerifier(o JWTOptions) (auth.TokenVerifier, error) {
	if o.Issuer == "" || o.Audience == "" {
		return nil, errors.New("gateway: a JWT verifier needs the issuer and the audience")
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	ks := &keySet{o: o, now: time.Now}
	return func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		return ks.verify(ctx, token)
	}, nil
}

type keySet struct {
	o   JWTOptions
	now func() time.Time // the package's tests set their own clock

	mu        sync.Mutex
	keys      *jose.JSONWebKeySet
	fetched   time.Time // last successful fetch
	attempted time.Time // last fetch, successful or not
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{auth.ErrInvalidToken}, args...)...)
}

func (k *keySet) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	tok, err := jwt.ParseSigned(token, jwtAlgorithms)
	if err != nil {
		return nil, invalid("not a signed JWT with an accepted algorithm")
	}
	if len(tok.Headers) != 1 {
		return nil, invalid("one signature expected")
	}
	key, err := k.key(ctx, tok.Headers[0].KeyID, string(tok.Headers[0].Algorithm))
	if err != nil {
		return nil, err
	}
	var std jwt.Claims
	var extra struct {
		Scope    string   `json:"scope"`
		Scp      []string `json:"scp"`
		ClientID string   `json:"client_id"`
		AZP      string   `json:"azp"`
	}
	if err := tok.Claims(key, &std, &extra); err != nil {
		// A scp that is one string: read it as scope.
		var alt struct {
			Scp string `json:"scp"`
		}
		if err2 := tok.Claims(key, &std, &alt); err2 != nil {
			return nil, invalid("bad signature or claims")
		}
		extra.Scope = alt.Scp
	}
	if err := std.ValidateWithLeeway(jwt.Expected{Issuer: k.o.Issuer, AnyAudience: jwt.Audience{k.o.Audience}, Time: k.now()}, jwtLeeway); err != nil {
		return nil, invalid("%v", err)
	}
	if std.Expiry == nil {
		return nil, invalid("no expiry")
	}
	if std.Subject == "" {
		return nil, invalid("no subject")
	}
	if strings.HasPrefix(std.Subject, staticPrefix) {
		// Static tokens' callers are "token:NAME": a JWT cannot pass
		// for one.
		return nil, invalid("subject %q takes the form of a static token's caller", std.Subject)
	}
	scopes := strings.Fields(extra.Scope)
	if len(scopes) == 0 {
		scopes = extra.Scp
	}
	client := extra.ClientID
	if client == "" {
		client = extra.AZP
	}
	return &auth.TokenInfo{Scopes: scopes, Expiration: std.Expiry.Time(), UserID: std.Subject,
		Extra: map[string]any{"client_id": client}}, nil
}

// key finds the key for kid and alg, fetching the set again when it is
// old or does not have kid (a rotation), not more often than jwksMinReload.
func (k *keySet) key(ctx context.Context, kid, alg string) (any, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	due := k.attempted.IsZero() || now.Sub(k.fetched) > jwksTTL || (k.keys != nil && len(k.keys.Key(kid)) == 0)
	if due && (k.attempted.IsZero() || now.Sub(k.attempted) > jwksMinReload) {
		// A fetch is tried at most every jwksMinReload, whatever the
		// tokens say (an unknown kid, a failed fetch), and not bound to
		// the request that caused it (it may give up at once).
		k.attempted = now
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		keys, err := k.fetch(fctx)
		cancel()
		if err == nil {
			k.keys, k.fetched = keys, now
		} else if k.keys == nil {
			return nil, fmt.Errorf("gateway: the issuer's keys: %w", err)
		}
	}
	if k.keys == nil {
		return nil, invalid("the issuer's keys are not available yet")
	}
	for _, jk := range k.keys.Key(kid) {
		if jk.Use != "" && jk.Use != "sig" {
			continue
		}
		if jk.Algorithm != "" && jk.Algorithm != alg {
			continue
		}
		if jk.IsPublic() {
			return jk.Key, nil
		}
		return jk.Public().Key, nil
	}
	return nil, invalid("no key %q at the issuer", kid)
}

func (k *keySet) fetch(ctx context.Context) (*jose.JSONWebKeySet, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	url := k.o.JWKSURL
	if url == "" {
		var err error
		if url, err = k.jwksURL(ctx); err != nil {
			return nil, err
		}
	}
	var set jose.JSONWebKeySet
	if err := k.getJSON(ctx, url, &set); err != nil {
		return nil, err
	}
	return &set, nil
}

func (k *keySet) jwksURL(ctx context.Context) (string, error) {
	base := strings.TrimRight(k.o.Issuer, "/")
	for _, u := range []string{base + "/.well-known/openid-configuration", base + "/.well-known/oauth-authorization-server"} {
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := k.getJSON(ctx, u, &meta); err != nil || meta.JWKSURI == "" {
			continue
		}
		if meta.Issuer != k.o.Issuer {
			return "", fmt.Errorf("the metadata at %s names issuer %q", u, meta.Issuer)
		}
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("no metadata with a jwks_uri for issuer %s (give the JWKS URL)", k.o.Issuer)
}

func (k *keySet) getJSON(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := k.o.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d", url, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	if err != nil {
		return err
	}
	if len(data) > maxJWKSBytes {
		return fmt.Errorf("%s is over %d bytes", url, maxJWKSBytes)
	}
	return json.Unmarshal(data, v)
}

// AnyOf accepts a token any of the verifiers accepts (static tokens and
// JWTs on one gateway).
func AnyOf(verifiers ...auth.TokenVerifier) auth.TokenVerifier {
	return func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		var last error
		for _, v := range verifiers {
			info, err := v(ctx, token, r)
			if err == nil {
				return info, nil
			}
			last = err
		}
		return nil, last
	}
}

package authn

import (
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/safefile"
)

// Machine-to-machine grants: no person, no login, no stored tokens. Each
// handler discovers the authorization server from the server's refusal
// (protected resource metadata, then authorization server metadata) and
// asks for a token when needed.

const (
	grantJWTBearer    = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	assertionTypeJWT  = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
	maxAssertionBytes = 64 << 10
)

// discovered is what discovery found about a server's authorization.
type discovered struct {
	resource string
	scopes   []string
	asm      *oauthex.AuthServerMeta
}

// discover follows a 401's challenge to the authorization server: the
// protected resource metadata (from the challenge, then the well-known
// paths of RFC 9728), whose resource must be the server's, then the
// authorization server's metadata (RFC 8414, then OIDC discovery).
func discover(ctx context.Context, serverURL string, resp *http.Response, client *http.Client) (*discovered, error) {
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	var urls []string
	for _, c := range cs {
		if u := c.Params["resource_metadata"]; u != "" {
			urls = append(urls, u)
		}
	}
	su, err := url.Parse(serverURL)
	if err != nil {
		return nil, err
	}
	wk := *su
	wk.RawQuery, wk.Fragment = "", ""
	wk.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(su.Path, "/")
	urls = append(urls, wk.String())
	wk.Path = "/.well-known/oauth-protected-resource"
	urls = append(urls, wk.String())
	var prm *oauthex.ProtectedResourceMetadata
	var lastErr error
	for _, u := range urls {
		resource := serverURL
		if u == wk.String() {
			root := *su
			root.Path, root.RawQuery = "", ""
			resource = root.String()
		}
		p, err := oauthex.GetProtectedResourceMetadata(ctx, u, resource, client)
		if err != nil {
			lastErr = err
			continue
		}
		if p != nil {
			prm = p
			break
		}
	}
	if prm == nil {
		return nil, fmt.Errorf("no protected resource metadata found for %s: %v", config.RedactURL(serverURL), lastErr)
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, errors.New("the protected resource metadata names no authorization server")
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], client)
	if err != nil {
		return nil, fmt.Errorf("authorization server metadata: %w", err)
	}
	if asm == nil {
		base := strings.TrimRight(prm.AuthorizationServers[0], "/")
		asm = &oauthex.AuthServerMeta{Issuer: prm.AuthorizationServers[0], TokenEndpoint: base + "/token"}
	}
	_, scope := challengeError(cs)
	scopes := strings.Fields(scope)
	if len(scopes) == 0 {
		scopes = prm.ScopesSupported
	}
	return &discovered{resource: prm.Resource, scopes: scopes, asm: asm}, nil
}

// grantHandler is the shared part of the machine grants: it keeps the
// token, serializes Authorize, and fails for good after the authorization
// server refused (a retry with the same credentials cannot succeed, and
// assertion grants must not be retried).
type grantHandler struct {
	id, resource string
	cfg          config.Auth
	opts         Options
	client       *http.Client
	// obtain gets a token after the server's refusal.
	obtain func(ctx context.Context, d *discovered) (*oauth2.Token, error)

	mu      sync.Mutex
	tok     *oauth2.Token
	d       *discovered
	refused error // sticky: the authorization server refused these credentials
}

func newGrantHandler(s *config.Server, opts Options) *grantHandler {
	return &grantHandler{id: s.ID, resource: s.URL, cfg: s.Auth, opts: opts, client: guardClient(opts.httpClient(), s.URL, s.Auth)}
}

func (g *grantHandler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tok == nil {
		return nil, nil
	}
	return g, nil
}

// Token implements oauth2.TokenSource: the token, or a new one when it
// expired.
func (g *grantHandler) Token() (*oauth2.Token, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tok != nil && (g.tok.Expiry.IsZero() || g.opts.now().Add(refreshEarly).Before(g.tok.Expiry)) {
		return g.tok, nil
	}
	if g.d == nil || g.refused != nil {
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return g.obtainLocked(ctx)
}

func (g *grantHandler) obtainLocked(ctx context.Context) (*oauth2.Token, error) {
	tok, err := g.obtain(ctx, g.d)
	if err != nil {
		g.tok = nil
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			g.refused = fmt.Errorf("server %q: %s: %w", g.id, g.cfg.Type, describeRetrieveError(re))
			return nil, g.refused
		}
		return nil, fmt.Errorf("server %q: %s: %w", g.id, g.cfg.Type, shorten(err))
	}
	if err := checkTokenSize(tok); err != nil {
		return nil, fmt.Errorf("server %q: %s: %w", g.id, g.cfg.Type, err)
	}
	g.tok = tok
	return tok, nil
}

func (g *grantHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer drain(resp)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refused != nil {
		return g.refused
	}
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if code, _ := challengeError(cs); resp.StatusCode == http.StatusForbidden && code != "insufficient_scope" {
		return nil
	}
	d, err := discover(ctx, g.resource, resp, g.client)
	if err != nil {
		return fmt.Errorf("server %q: %w", g.id, shorten(err))
	}
	if len(g.cfg.Scopes) > 0 {
		d.scopes = g.cfg.Scopes
	}
	if g.cfg.TokenURL != "" {
		d.asm.TokenEndpoint = g.cfg.TokenURL
	}
	g.d = d
	_, err = g.obtainLocked(ctx)
	return err
}

// tokenRequest posts a token request of any grant (RFC 6749 §5) and
// returns the token, or the authorization server's refusal as an
// oauth2.RetrieveError.
func (g *grantHandler) tokenRequest(ctx context.Context, tokenURL string, form url.Values) (*oauth2.Token, error) {
	return g.tokenRequestBasic(ctx, tokenURL, form, "", "")
}

// tokenRequestBasic is tokenRequest with the client authenticated by
// client_secret_basic (RFC 6749 §2.3.1: both parts form-encoded) when
// clientID is set.
func (g *grantHandler) tokenRequestBasic(ctx context.Context, tokenURL string, form url.Values, clientID, secret string) (*oauth2.Token, error) {
	return postToken(ctx, g.client, g.opts.now, tokenURL, form, clientID, secret)
}

// postToken posts a token request (RFC 6749 §3.2), the client
// authenticated with client_secret_basic when clientID is set, and reads
// the answer (§5.1, §5.2) with a size cap and a deadline.
func postToken(ctx context.Context, client *http.Client, now func() time.Time, tokenURL string, form url.Values, clientID, secret string) (*oauth2.Token, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if clientID != "" {
		req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	var t struct {
		AccessToken      string      `json:"access_token"`
		TokenType        string      `json:"token_type"`
		RefreshToken     string      `json:"refresh_token"`
		ExpiresIn        json.Number `json:"expires_in"`
		Scope            string      `json:"scope"`
		Error            string      `json:"error"`
		ErrorDescription string      `json:"error_description"`
		ErrorURI         string      `json:"error_uri"`
	}
	jerr := json.Unmarshal(body, &t)
	if resp.StatusCode < 200 || resp.StatusCode > 299 || t.Error != "" || jerr != nil || t.AccessToken == "" {
		// Body stays out: it may echo the assertion.
		return nil, &oauth2.RetrieveError{Response: resp, ErrorCode: t.Error, ErrorDescription: t.ErrorDescription, ErrorURI: t.ErrorURI}
	}
	tok := &oauth2.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken}
	// A lifetime past time.Duration's 292 years would overflow into the past.
	if secs, err := t.ExpiresIn.Int64(); err == nil && secs > 0 && secs <= int64(math.MaxInt64/time.Second) {
		tok.Expiry = now().Add(time.Duration(secs) * time.Second)
	}
	return tok.WithExtra(map[string]any{"scope": t.Scope}), nil
}

func newClientCredentials(s *config.Server, opts Options) (authHandler, error) {
	a := s.Auth
	if a.ClientSecret != "" {
		return newLocked(extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: a.ClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: a.ClientSecret}},
			HTTPClient:  newGrantHandler(s, opts).client,
		}))
	}
	pemText := a.PrivateKey
	if a.PrivateKeyFile != "" {
		data, err := safefile.ReadFile(a.PrivateKeyFile, maxAssertionBytes)
		if err != nil {
			return nil, fmt.Errorf("authn: server %q: private_key_file: %w", s.ID, err)
		}
		pemText = string(data)
	}
	key, alg, err := parsePrivateKey(pemText, a.SigningAlgorithm)
	if err != nil {
		return nil, fmt.Errorf("authn: server %q: private key: %w", s.ID, err)
	}
	g := newGrantHandler(s, opts)
	g.obtain = func(ctx context.Context, d *discovered) (*oauth2.Token, error) {
		assertion, err := clientAssertion(key, alg, a.ClientID, d.asm, opts.now())
		if err != nil {
			return nil, err
		}
		form := url.Values{
			"grant_type":            {"client_credentials"},
			"client_id":             {a.ClientID},
			"client_assertion_type": {assertionTypeJWT},
			"client_assertion":      {assertion},
			"resource":              {d.resource},
		}
		if len(d.scopes) > 0 {
			form.Set("scope", strings.Join(d.scopes, " "))
		}
		return g.tokenRequest(ctx, d.asm.TokenEndpoint, form)
	}
	return g, nil
}

// clientAssertion is a private_key_jwt (RFC 7523 §2.2): the client
// asserts itself to the authorization server, whose issuer is the audience.
func clientAssertion(key crypto.Signer, alg, clientID string, asm *oauthex.AuthServerMeta, now time.Time) (string, error) {
	aud := asm.Issuer
	if aud == "" {
		aud = asm.TokenEndpoint
	}
	return signJWT(key, alg, map[string]any{"typ": "JWT"}, map[string]any{
		"iss": clientID, "sub": clientID, "aud": aud,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": randomID(),
	})
}

// newJWTBearer is workload identity federation (RFC 7523 §2.1): the
// platform's JWT (a Kubernetes service account token, a CI OIDC token) is
// the grant. The file is read for every token request: platforms rotate it.
func newJWTBearer(s *config.Server, opts Options) authHandler {
	a := s.Auth
	g := newGrantHandler(s, opts)
	g.obtain = func(ctx context.Context, d *discovered) (*oauth2.Token, error) {
		assertion, err := readSecret(a.Assertion, a.AssertionFile)
		if err != nil {
			return nil, fmt.Errorf("assertion_file: %w", err)
		}
		form := url.Values{"grant_type": {grantJWTBearer}, "assertion": {assertion}, "resource": {d.resource}}
		if a.ClientID != "" {
			form.Set("client_id", a.ClientID)
		}
		if len(d.scopes) > 0 {
			form.Set("scope", strings.Join(d.scopes, " "))
		}
		return g.tokenRequest(ctx, d.asm.TokenEndpoint, form)
	}
	return g
}

// newEnterprise is enterprise-managed authorization (SEP-990): the IdP's
// ID token is exchanged at the IdP for an ID-JAG (RFC 8693), which the
// server's authorization server exchanges for an access token (RFC 7523).
// go-sdk's extauth.EnterpriseHandler insists that the IdP advertises
// PKCE, which an IdP used only for token exchange need not; the two
// requests are go-sdk's oauthex.ExchangeToken and a JWT-bearer grant.
func newEnterprise(s *config.Server, opts Options) authHandler {
	a := s.Auth
	g := newGrantHandler(s, opts)
	g.obtain = func(ctx context.Context, d *discovered) (*oauth2.Token, error) {
		idToken, err := readSecret(a.IDToken, a.IDTokenFile)
		if err != nil {
			return nil, fmt.Errorf("id_token_file: %w", err)
		}
		idpToken := a.IDPTokenURL
		if idpToken == "" {
			if idpToken, err = g.tokenEndpointOf(ctx, a.IDPIssuer); err != nil {
				return nil, fmt.Errorf("IdP %s: %w", a.IDPIssuer, err)
			}
		}
		idpCreds := &oauthex.ClientCredentials{ClientID: a.IDPClientID}
		if a.IDPClientSecret != "" {
			idpCreds.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: a.IDPClientSecret}
		}
		jag, err := oauthex.ExchangeToken(ctx, idpToken, &oauthex.TokenExchangeRequest{
			RequestedTokenType: oauthex.TokenTypeIDJAG,
			Audience:           d.asm.Issuer,
			Resource:           d.resource,
			Scope:              d.scopes,
			SubjectToken:       idToken,
			SubjectTokenType:   oauthex.TokenTypeIDToken,
		}, idpCreds, g.client)
		if err != nil {
			return nil, fmt.Errorf("token exchange at the IdP: %w", describeRetrieveError(err))
		}
		form := url.Values{"grant_type": {grantJWTBearer}, "assertion": {jag.AccessToken}}
		if len(d.scopes) > 0 {
			form.Set("scope", strings.Join(d.scopes, " "))
		}
		if a.ClientSecret == "" {
			form.Set("client_id", a.ClientID)
			return g.tokenRequest(ctx, d.asm.TokenEndpoint, form)
		}
		return g.tokenRequestBasic(ctx, d.asm.TokenEndpoint, form, a.ClientID, a.ClientSecret)
	}
	return g
}

// tokenEndpointOf reads an issuer's metadata (OIDC discovery, then RFC
// 8414) for its token endpoint.
func (g *grantHandler) tokenEndpointOf(ctx context.Context, issuer string) (string, error) {
	base := strings.TrimRight(issuer, "/")
	for _, u := range []string{base + "/.well-known/openid-configuration", base + "/.well-known/oauth-authorization-server"} {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			cancel()
			return "", err
		}
		resp, err := g.client.Do(req)
		if err != nil {
			cancel()
			continue
		}
		var meta struct {
			Issuer        string `json:"issuer"`
			TokenEndpoint string `json:"token_endpoint"`
		}
		err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&meta)
		resp.Body.Close()
		cancel()
		if resp.StatusCode != http.StatusOK || err != nil || meta.TokenEndpoint == "" {
			continue
		}
		if strings.TrimRight(meta.Issuer, "/") != base {
			return "", fmt.Errorf("its metadata names issuer %q", meta.Issuer)
		}
		return meta.TokenEndpoint, nil
	}
	return "", errors.New("no metadata with a token_endpoint (set idp_token_url)")
}

// readSecret is an inline value or the trimmed content of a file.
func readSecret(inline, file string) (string, error) {
	if file == "" {
		return inline, nil
	}
	data, err := safefile.ReadFile(file, maxAssertionBytes)
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(data))
	if v == "" {
		return "", fmt.Errorf("%s is empty", file)
	}
	return v, nil
}

// authHandler is auth.OAuthHandler (named here for brevity).
type authHandler = auth.OAuthHandler

// locked makes a go-sdk handler safe for concurrent requests: extauth's
// handlers write their token source in Authorize without a lock.
type locked struct {
	mu sync.RWMutex
	h  auth.OAuthHandler
}

func newLocked[H auth.OAuthHandler](h H, err error) (authHandler, error) {
	if err != nil {
		return nil, err
	}
	return &locked{h: h}, nil
}

func (l *locked) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.h.TokenSource(ctx)
}

func (l *locked) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.h.Authorize(ctx, req, resp)
}

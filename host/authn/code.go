package authn

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/mcphost/mcphost/host/config"
)

// codeHandler is the OAuth handler of a server that a person logs in to
// (authorization code with PKCE). It hands out the stored tokens, refreshes
// them, and when the server refuses them, either asks the user again (a
// login, a step-up to more scopes) or — when nobody can be asked — fails
// with LoginRequiredError, which leaves the server in state needs-auth.
type codeHandler struct {
	id, resource string
	adhoc        string // AdHocAdvice
	cfg          config.Auth
	opts         Options

	mu     sync.RWMutex
	src    *storedSource         // nil: no tokens
	dpop   *dpopKey              // nil: DPoP off
	asMeta map[string]asMetadata // by token endpoint, from the login's discovery

	loginMu   sync.Mutex      // one interactive authorization at a time
	steppedUp map[string]bool // scopes a step-up was done for (under loginMu)

	sdkOnce sync.Once
	sdk     *auth.AuthorizationCodeHandler
	sdkErr  error
	lb      *loopback
}

func newCodeHandler(s *config.Server, opts Options, forceLogin bool) (*codeHandler, error) {
	h := &codeHandler{id: s.ID, resource: s.URL, adhoc: AdHocAdvice(s), cfg: s.Auth, opts: opts}
	if s.Auth.DPoP {
		k, err := newDPoPKey(opts.now)
		if err != nil {
			return nil, err
		}
		h.dpop = k
	}
	if opts.Store != nil && !forceLogin {
		rec, err := opts.Store.Load(s.ID)
		if err != nil {
			opts.logger().Warn("stored login unreadable; the server will need a new login", "server", s.ID, "error", err)
		} else if rec != nil && rec.Resource == s.URL && rec.AccessToken != "" {
			if rec.DPoPKey != "" {
				k, err := loadDPoPKey(rec.DPoPKey, opts.now)
				if err != nil {
					return nil, fmt.Errorf("authn: server %q: %w; run \"mcphost login %s\"", s.ID, err, s.ID)
				}
				h.dpop = k
			}
			h.src = h.newSource(rec)
		}
	}
	return h, nil
}

func (h *codeHandler) newSource(rec *Record) *storedSource {
	return &storedSource{id: h.id, store: h.opts.Store, client: h.asClient(), now: h.opts.now, rec: rec}
}

// asClient is the client for authorization servers: the configured one,
// with DPoP proofs on token requests while DPoP is on.
func (h *codeHandler) asClient() *http.Client {
	c := guardClient(h.opts.httpClient(), h.resource, h.cfg)
	c.Transport = &metadataRecorder{base: c.Transport, h: h}
	c.Transport = &tokenRoundTripper{base: c.Transport, key: func() *dpopKey {
		h.mu.RLock()
		defer h.mu.RUnlock()
		return h.dpop
	}}
	return c
}

// TokenSource implements auth.OAuthHandler.
func (h *codeHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.src == nil {
		return nil, nil
	}
	return h.src, nil
}

// NewLogin reports whether the store holds a login for this server that
// the handler does not use yet: another process ran "mcphost login".
func (h *codeHandler) NewLogin() bool {
	if h.opts.Store == nil {
		return false
	}
	rec, err := h.opts.Store.Load(h.id)
	if err != nil || rec == nil || rec.Resource != h.resource || rec.AccessToken == "" {
		return false
	}
	h.mu.RLock()
	src := h.src
	h.mu.RUnlock()
	return src == nil || src.record().AccessToken != rec.AccessToken
}

// AuthorizeRequest implements transports.RequestAuthorizer.
func (h *codeHandler) AuthorizeRequest(req *http.Request, tok *oauth2.Token) error {
	h.mu.RLock()
	d := h.dpop
	h.mu.RUnlock()
	if d == nil {
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		return nil
	}
	return d.authorizeRequest(req, tok)
}

// NonceChallenge implements transports.RequestAuthorizer.
func (h *codeHandler) NonceChallenge(resp *http.Response) bool {
	h.mu.RLock()
	d := h.dpop
	h.mu.RUnlock()
	return d != nil && d.nonceChallenge(resp)
}

// Authorize implements auth.OAuthHandler.
func (h *codeHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	// A server that challenges with the DPoP scheme wants bound tokens.
	for _, c := range cs {
		if c.Scheme == "dpop" {
			if err := h.enableDPoP(); err != nil {
				resp.Body.Close()
				return err
			}
		}
	}
	errCode, scope := challengeError(cs)
	if resp.StatusCode == http.StatusForbidden && errCode != "insufficient_scope" {
		// Not an authorization matter: the request is sent once more
		// and its answer reaches the caller.
		drain(resp)
		return nil
	}
	h.mu.RLock()
	src := h.src
	h.mu.RUnlock()
	if resp.StatusCode == http.StatusUnauthorized && src != nil && src.canRefresh() {
		refused := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer "), "DPoP "))
		if cur := src.record(); refused != "" && refused != cur.AccessToken {
			drain(resp) // refreshed meanwhile: try the new token
			return nil
		}
		err := src.Refresh(ctx)
		if err == nil {
			drain(resp)
			return nil
		}
		if errors.Is(err, ErrTransient) {
			drain(resp)
			return err
		}
		h.opts.logger().Info("refresh refused; a new login is needed", "server", h.id, "error", err)
	}
	ask := h.opts.Ask == AskAlways || (h.opts.Ask == AskStepUp && resp.StatusCode == http.StatusForbidden)
	if !ask || h.opts.UI == nil {
		drain(resp)
		e := &LoginRequiredError{ID: h.id, Reason: "no stored login", AdHoc: h.adhoc}
		switch {
		case resp.StatusCode == http.StatusForbidden:
			e.Reason, e.Scope = "it refused the request for lack of scope", scope
		case src != nil:
			e.Reason = "the stored login expired or was refused"
		}
		return e
	}
	// The person takes their time: the authorization is bound by the
	// login's owner (WithLoginContext) or loginWait, not by the deadline of
	// the request that was refused (a 3 s discover probe, say).
	ctx, cancel := loginContext(ctx)
	defer cancel()
	// One person, one browser: concurrent refusals wait for the first
	// authorization and use its tokens.
	h.loginMu.Lock()
	defer h.loginMu.Unlock()
	h.mu.RLock()
	changed := h.src != src
	h.mu.RUnlock()
	if changed {
		drain(resp)
		return nil
	}
	if resp.StatusCode == http.StatusForbidden {
		// One step-up per scope: a server that refuses again after the
		// user granted what it asked for is not asked about again.
		if h.steppedUp[scope] {
			drain(resp)
			return &LoginRequiredError{ID: h.id, Reason: "it still refuses after a step-up to that scope", Scope: scope, AdHoc: h.adhoc}
		}
		if h.steppedUp == nil {
			h.steppedUp = map[string]bool{}
		}
		h.steppedUp[scope] = true
	}
	if h.cfg.AuthorizationURL != "" {
		defer drain(resp)
		return h.manualLogin(ctx, scope)
	}
	sdk, err := h.sdkHandler()
	if err != nil {
		drain(resp)
		return err
	}
	challenge := resp.Header.Clone()
	if err := sdk.Authorize(ctx, req, resp); err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return fmt.Errorf("server %q: login: %w", h.id, describeRetrieveError(re))
		}
		if ctx.Err() == nil && h.noMetadata(ctx, challenge) {
			// go-sdk then guessed the 2025-03-26 endpoints at the
			// server's root; what failed there says little.
			return fmt.Errorf("server %q: login: the server asks for authorization but publishes no OAuth metadata (RFC 9728 protected resource metadata); if it takes a static token, give it auth: {type: bearer, token: ${VAR}}, or its endpoints in the oauth block (%w)", h.id, shorten(err))
		}
		return fmt.Errorf("server %q: login: %w", h.id, shorten(err))
	}
	return nil
}

// noMetadata reports whether the server publishes no protected resource
// metadata (nor, at its root, authorization server metadata).
func (h *codeHandler) noMetadata(ctx context.Context, challenge http.Header) bool {
	if _, err := discover(ctx, h.resource, &http.Response{Header: challenge}, h.asClient()); err == nil {
		return false
	}
	u, err := url.Parse(h.resource)
	if err != nil {
		return true
	}
	asm, err := auth.GetAuthServerMetadata(ctx, u.Scheme+"://"+u.Host, h.asClient())
	return err != nil || asm == nil
}

func drain(resp *http.Response) {
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
}

// challengeError is the error and scope of a Bearer or DPoP challenge.
func challengeError(cs []oauthex.Challenge) (code, scope string) {
	for _, c := range cs {
		if c.Scheme == "bearer" || c.Scheme == "dpop" {
			if code == "" {
				code = c.Params["error"]
			}
			if scope == "" {
				scope = c.Params["scope"]
			}
		}
	}
	return code, scope
}

func (h *codeHandler) enableDPoP() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dpop != nil {
		return nil
	}
	k, err := newDPoPKey(h.opts.now)
	if err != nil {
		return err
	}
	h.dpop = k
	return nil
}

// sdkHandler is go-sdk's handler for this server, made on first use: a
// pre-registered client (oauth.client_id), else a client ID metadata
// document (oauth.client_metadata_url) when the server supports them, else
// dynamic registration.
func (h *codeHandler) sdkHandler() (*auth.AuthorizationCodeHandler, error) {
	h.sdkOnce.Do(func() {
		h.lb, h.sdkErr = newLoopback(h.cfg.RedirectPort)
		if h.sdkErr != nil {
			return
		}
		redirect := h.lb.redirectURL()
		if r, ok := h.opts.UI.(CallbackReceiver); ok {
			redirect = r.RedirectURL(h.id)
		}
		c := &auth.AuthorizationCodeHandlerConfig{
			RedirectURL:              redirect,
			AuthorizationCodeFetcher: h.fetch,
			RequestRefreshToken:      true,
			Client:                   h.asClient(),
			NewTokenSource:           h.keep,
			DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
				Metadata: &oauthex.ClientRegistrationMetadata{
					RedirectURIs:            []string{redirect},
					ClientName:              "mcphost",
					GrantTypes:              []string{"authorization_code", "refresh_token"},
					ResponseTypes:           []string{"code"},
					TokenEndpointAuthMethod: "none",
				},
			},
			ScopeFilter: h.scopes,
		}
		if h.cfg.ClientID != "" {
			c.PreregisteredClient = &oauthex.ClientCredentials{ClientID: h.cfg.ClientID}
			if secret := h.clientSecret(); secret != "" {
				c.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
			}
		}
		if h.cfg.ClientMetadataURL != "" {
			c.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: h.cfg.ClientMetadataURL}
		}
		h.sdk, h.sdkErr = auth.NewAuthorizationCodeHandler(c)
	})
	if h.sdkErr != nil {
		return nil, fmt.Errorf("authn: server %q: %w", h.id, h.sdkErr)
	}
	return h.sdk, nil
}

// clientSecret is the configured one, else the one "mcp add
// --oauth-client-secret" stored for this client.
func (h *codeHandler) clientSecret() string {
	if h.cfg.ClientSecret != "" {
		return h.cfg.ClientSecret
	}
	if h.opts.Store != nil {
		if rec, err := h.opts.Store.Load(h.id); err == nil && rec != nil && rec.ClientID == h.cfg.ClientID && rec.Resource == h.resource {
			return rec.ClientSecret
		}
	}
	return ""
}

// scopes chooses what to ask for: the configured scopes, else what the
// server asked for; plus what the stored login had (a step-up must not
// lose them).
func (h *codeHandler) scopes(discovered []string) []string {
	want := discovered
	if len(h.cfg.Scopes) > 0 {
		want = unionScopes(h.cfg.Scopes, discovered)
	}
	h.mu.RLock()
	src := h.src
	h.mu.RUnlock()
	if src != nil {
		want = unionScopes(strings.Fields(src.record().Scope), want)
	}
	return want
}

func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// fetch shows the authorization URL and waits for the redirect.
func (h *codeHandler) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	var (
		q   map[string][]string
		err error
	)
	open := func() error { return h.opts.UI.Open(ctx, h.id, args.URL) }
	if r, ok := h.opts.UI.(CallbackReceiver); ok {
		if err := open(); err != nil {
			return nil, err
		}
		q, err = r.Receive(ctx, h.id)
	} else {
		if u, perr := url.Parse(args.URL); perr == nil {
			h.lb.state = u.Query().Get("state")
		}
		q, err = h.lb.receive(ctx, open)
	}
	if err != nil {
		return nil, fmt.Errorf("server %q: login: %w", h.id, err)
	}
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	if e := get("error"); e != "" {
		msg := oneLine(e, 100)
		if d := get("error_description"); d != "" {
			msg += ": " + oneLine(d, 300)
		}
		return nil, fmt.Errorf("server %q: the authorization server refused the login: %s", h.id, msg)
	}
	return &auth.AuthorizationResult{Code: get("code"), State: get("state"), Iss: get("iss")}, nil
}

// keep stores the tokens of a login (go-sdk's NewTokenSource hook) and
// makes them the handler's.
func (h *codeHandler) keep(_ context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	if err := checkTokenSize(tok); err != nil {
		return nil, err
	}
	rec := &Record{
		Resource:     h.resource,
		ClientID:     cfg.ClientID,
		ClientSecret: cfg.ClientSecret,
		TokenURL:     cfg.Endpoint.TokenURL,
		AuthStyle:    int(cfg.Endpoint.AuthStyle),
		RedirectURL:  cfg.RedirectURL,
		Scope:        strings.Join(cfg.Scopes, " "),
	}
	applyToken(rec, tok, h.opts.now())
	h.mu.Lock()
	if m, ok := h.asMeta[cfg.Endpoint.TokenURL]; ok {
		// Where to revoke these tokens, noted now: at logout the server's
		// metadata may name another authorization server.
		rec.Issuer, rec.RevocationURL = m.Issuer, m.RevocationEndpoint
	}
	if h.dpop != nil {
		rec.DPoPKey = h.dpop.pem()
	}
	h.mu.Unlock()
	if h.opts.Store != nil {
		if err := h.opts.Store.Save(h.id, rec); err != nil {
			return nil, err
		}
	}
	src := h.newSource(rec)
	h.mu.Lock()
	h.src = src
	h.mu.Unlock()
	return src, nil
}

// manualLogin is the login with configured endpoints (oauth.authorization_url
// and token_url), for servers whose metadata cannot be discovered.
func (h *codeHandler) manualLogin(ctx context.Context, challengeScope string) error {
	if h.lb == nil {
		lb, err := newLoopback(h.cfg.RedirectPort)
		if err != nil {
			return err
		}
		h.lb = lb
	}
	redirect := h.lb.redirectURL()
	if r, ok := h.opts.UI.(CallbackReceiver); ok {
		redirect = r.RedirectURL(h.id)
	}
	clientID, secret := h.cfg.ClientID, h.clientSecret()
	client := h.asClient()
	if clientID == "" {
		reg, err := oauthex.RegisterClient(ctx, h.cfg.RegistrationURL, &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "mcphost", ApplicationType: "native",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
			TokenEndpointAuthMethod: "none",
		}, client)
		if err != nil {
			return fmt.Errorf("server %q: registering mcphost at %s: %w", h.id, h.cfg.RegistrationURL, err)
		}
		clientID, secret = reg.ClientID, reg.ClientSecret
	}
	cfg := &oauth2.Config{
		ClientID: clientID, ClientSecret: secret, RedirectURL: redirect,
		Endpoint: oauth2.Endpoint{AuthURL: h.cfg.AuthorizationURL, TokenURL: h.cfg.TokenURL},
		Scopes:   h.scopes(strings.Fields(challengeScope)),
	}
	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	res, err := h.fetch(ctx, &auth.AuthorizationArgs{URL: cfg.AuthCodeURL(state,
		oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", h.resource))})
	if err != nil {
		return err
	}
	if res.State != state {
		return fmt.Errorf("server %q: login: the answer's state does not match the request's (a stale or forged redirect)", h.id)
	}
	tok, err := cfg.Exchange(context.WithValue(ctx, oauth2.HTTPClient, client), res.Code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", h.resource))
	if err != nil {
		return fmt.Errorf("server %q: login: %w", h.id, describeRetrieveError(err))
	}
	_, err = h.keep(ctx, cfg, tok)
	return err
}

package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// The harness on its own, with go-sdk's client as the MCP client: dynamic
// registration, the authorization code flow with PKCE and a resource
// indicator through the provider's login and consent pages, an opaque token
// checked by introspection, and a refresh token that refreshes for the
// resource.
func TestOIDCProviderAuthorizesGoSDKClient(t *testing.T) {
	// Also: the harness leaves nothing running behind it.
	CheckGoroutines(t)
	ln, resource := ListenProtected(t)
	const ttl = 5 * time.Minute
	p := StartOIDCProvider(t, OIDCOptions{Resource: resource, AccessTokenTTL: ttl})
	srv := mcp.NewServer(&mcp.Implementation{Name: "protected", Version: "v0.0.1"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "returns its text"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			who := "nobody"
			if info := auth.TokenInfoFromContext(ctx); info != nil {
				who = info.UserID
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: who + ": " + in.Text}}}, nil, nil
		})
	ps := ServeProtected(t, ln, resource, p, srv)

	for _, method := range []string{"none", "client_secret_basic"} {
		t.Run("token_endpoint_auth_method="+method, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			refusedBefore := ps.Refused()
			redirect, callbacks := startCallback(t)
			h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
				DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
					Metadata: &oauthex.ClientRegistrationMetadata{
						ClientName:              "testenv " + method,
						RedirectURIs:            []string{redirect},
						GrantTypes:              []string{"authorization_code", "refresh_token"},
						ResponseTypes:           []string{"code"},
						TokenEndpointAuthMethod: method,
					},
				},
				AuthorizationCodeFetcher: browserFetcher(callbacks),
				RequestRefreshToken:      true,
				Client:                   noKeepAlive(),
			})
			if err != nil {
				t.Fatal(err)
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "testenv", Version: "v0.0.1"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: resource, OAuthHandler: h, HTTPClient: noKeepAlive()}, nil)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
			if err != nil {
				t.Fatalf("call echo: %v", err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; res.IsError || got != "alice: hello" {
				t.Fatalf("echo answered %q (error %v), want %q", got, res.IsError, "alice: hello")
			}
			if ps.Refused() <= refusedBefore {
				t.Errorf("the first, unauthenticated request was not refused (refused %d before, %d after)", refusedBefore, ps.Refused())
			}

			ts, err := h.TokenSource(ctx)
			if err != nil || ts == nil {
				t.Fatalf("token source %v, %v", ts, err)
			}
			tok, err := ts.Token()
			if err != nil {
				t.Fatal(err)
			}
			if tok.RefreshToken == "" {
				t.Fatalf("no refresh token for a client registered with the refresh_token grant")
			}
			if d := time.Until(tok.Expiry); d < ttl-time.Minute || d > ttl {
				t.Errorf("access token expires in %s, want about %s", d, ttl)
			}
			if strings.Count(tok.AccessToken, ".") == 2 {
				t.Errorf("access token %q looks like a JWT, want opaque", tok.AccessToken)
			}
			at := introspect(t, p, tok.AccessToken)
			if method != "none" {
				return // a refresh needs the client's secret, which go-sdk keeps to itself
			}
			// A refresh without a resource parameter, as golang.org/x/oauth2
			// sends it, is still for the MCP server.
			cfg := &oauth2.Config{ClientID: at.ClientID, Endpoint: oauth2.Endpoint{TokenURL: p.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams}}
			refreshed, err := cfg.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, noKeepAlive()), &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
			if err != nil {
				t.Fatalf("refresh: %v", err)
			}
			if refreshed.AccessToken == tok.AccessToken {
				t.Fatalf("refresh returned the same access token")
			}
			introspect(t, p, refreshed.AccessToken)
			if _, err := p.Verifier()(ctx, tok.RefreshToken, nil); !errors.Is(err, auth.ErrInvalidToken) {
				t.Errorf("a refresh token as bearer token: %v, want auth.ErrInvalidToken", err)
			}
		})
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := p.Verifier()(ctx, "not-a-token", nil); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("verifier on a bogus token: %v, want auth.ErrInvalidToken", err)
	}
}

// A native client's loopback redirect URI may change port between
// registration and authorization (RFC 8252 §7.3), and the browser delivers
// the provider's refusals to the callback too, naming them.
func TestOIDCFollowAuthorization(t *testing.T) {
	_, resource := ListenProtected(t)
	p := StartOIDCProvider(t, OIDCOptions{Resource: resource, AccessTokenTTL: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	redirect, callbacks := startCallback(t)

	// Registered without a port, the callback listening on a random one.
	u, _ := url.Parse(redirect)
	portless := "http://" + u.Hostname() + u.Path
	authURL := p.AuthorizationEndpoint + "?" + url.Values{
		"client_id": {registerPublicClient(t, ctx, p, portless)}, "response_type": {"code"}, "redirect_uri": {redirect},
		"scope": {OIDCScope}, "state": {"s0"}, "code_challenge": {oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())},
		"code_challenge_method": {"S256"},
	}.Encode()
	if err := FollowAuthorization(ctx, authURL); err != nil {
		t.Fatalf("redirect URI registered as %s, used as %s: %v", portless, redirect, err)
	}
	if q := <-callbacks; q.Get("code") == "" || q.Get("state") != "s0" || q.Get("iss") != p.Issuer {
		t.Fatalf("callback got %v, want a code, state s0 and iss %s", q, p.Issuer)
	}

	// Unknown client: the provider shows an error page, it does not redirect.
	authURL = p.AuthorizationEndpoint + "?" + url.Values{
		"client_id": {"nobody"}, "response_type": {"code"}, "redirect_uri": {redirect},
		"scope": {OIDCScope}, "state": {"s1"}, "code_challenge": {oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())},
		"code_challenge_method": {"S256"},
	}.Encode()
	err := FollowAuthorization(ctx, authURL)
	if err == nil || !strings.Contains(err.Error(), "invalid_client") {
		t.Fatalf("unknown client: %v, want an error naming invalid_client", err)
	}
	if q := <-callbacks; q.Get("error") != "invalid_client" || q.Get("state") != "s1" {
		t.Fatalf("callback got %v, want error=invalid_client and state s1", q)
	}

	// A registered client asking for another resource: redirected with error.
	clientID := registerPublicClient(t, ctx, p, redirect)
	authURL = p.AuthorizationEndpoint + "?" + url.Values{
		"client_id": {clientID}, "response_type": {"code"}, "redirect_uri": {redirect},
		"scope": {OIDCScope}, "state": {"s2"}, "resource": {"http://127.0.0.1:1/elsewhere"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())}, "code_challenge_method": {"S256"},
	}.Encode()
	err = FollowAuthorization(ctx, authURL)
	if err == nil || !strings.Contains(err.Error(), "invalid_target") {
		t.Fatalf("other resource: %v, want an error naming invalid_target", err)
	}
	if q := <-callbacks; q.Get("error") != "invalid_target" || q.Get("state") != "s2" {
		t.Fatalf("callback got %v, want error=invalid_target and state s2", q)
	}
}

// startCallback serves the MCP client's loopback redirect URI and hands
// over each query it receives.
func startCallback(t *testing.T) (string, chan url.Values) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan url.Values, 4)
	hs := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		select {
		case got <- r.URL.Query():
		default:
		}
		fmt.Fprintln(w, "you can close this window")
	})}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String() + "/callback", got
}

// browserFetcher opens the authorization URL in the harness's "browser" and
// waits, as a CLI does, for the redirect to reach its callback.
func browserFetcher(callbacks chan url.Values) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		browser := make(chan error, 1)
		go func() { browser <- FollowAuthorization(ctx, args.URL) }()
		var q url.Values
		var err error
		select {
		case q = <-callbacks:
			err = <-browser // it returns once the callback has answered
		case err = <-browser:
			select {
			case q = <-callbacks:
			default:
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if err != nil {
			return nil, fmt.Errorf("browser: %w", err)
		}
		if q == nil {
			return nil, errors.New("the browser finished but the callback got nothing")
		}
		if e := q.Get("error"); e != "" {
			return nil, fmt.Errorf("authorization: %s: %s", e, q.Get("error_description"))
		}
		return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
	}
}

// introspect checks that token is an active access token for the resource
// with the MCP scope, for alice.
func introspect(t *testing.T, p *OIDCProvider, token string) *Introspection {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	in, err := p.Introspect(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if !in.Active || !slices.Equal(in.Aud, []string{p.Resource}) || !slices.Contains(strings.Fields(in.Scope), OIDCScope) ||
		in.Sub != "alice" || in.TokenType != "Bearer" || in.ClientID == "" {
		t.Fatalf("introspection %+v: want an active Bearer token of alice for %s with scope %s", in, p.Resource, OIDCScope)
	}
	info, err := p.Verifier()(ctx, token, nil)
	if err != nil || !slices.Contains(info.Scopes, OIDCScope) || info.Expiration.Before(time.Now()) {
		t.Fatalf("verifier: %+v, %v", info, err)
	}
	return in
}

// noKeepAlive is a client whose connections end with their requests, so
// that CheckGoroutines sees none left.
func noKeepAlive() *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
}

// registerPublicClient registers a native public client by RFC 7591.
func registerPublicClient(t *testing.T, ctx context.Context, p *OIDCProvider, redirect string) string {
	t.Helper()
	resp, err := oauthex.RegisterClient(ctx, p.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
		RedirectURIs: []string{redirect}, GrantTypes: []string{"authorization_code"}, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: "none", ApplicationType: "native",
	}, noKeepAlive())
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return resp.ClientID
}

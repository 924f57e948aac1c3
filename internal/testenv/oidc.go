package testenv

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// OIDCScope is the scope the provider grants for the protected MCP server.
const OIDCScope = "mcp:tools"

// oidcTimeout bounds each HTTP request of the harness, so that a stuck
// provider fails a test instead of hanging it.
const oidcTimeout = 10 * time.Second

// OIDCOptions configure StartOIDCProvider.
type OIDCOptions struct {
	// Resource is the protected MCP server's URL (see ListenProtected): the
	// one RFC 8707 resource the provider issues access tokens for.
	Resource string
	// AccessTokenTTL is the access tokens' lifetime, in whole seconds
	// (rounded up); 0 means 10 minutes.
	AccessTokenTTL time.Duration
}

// OIDCProvider is a running oidc-provider (testdata/oidc/provider.mjs) with
// open dynamic client registration, PKCE, resource indicators, opaque access
// tokens, introspection, revocation and its built-in login and consent pages.
type OIDCProvider struct {
	Issuer   string
	Resource string
	// Endpoints from the provider's RFC 8414 metadata.
	AuthorizationEndpoint, TokenEndpoint, RegistrationEndpoint string
	IntrospectionEndpoint, RevocationEndpoint                  string

	clientID, clientSecret string // the resource server's, for introspection
	client                 *http.Client
}

// StartOIDCProvider starts the provider as a child of the test (killed when
// the test ends, its stderr logged) and checks its metadata. It skips the
// test, or fails it when Required, when Node or oidc-provider is missing.
func StartOIDCProvider(t testing.TB, opts OIDCOptions) *OIDCProvider {
	t.Helper()
	if opts.Resource == "" {
		t.Fatalf("testenv: StartOIDCProvider needs the resource URL")
	}
	bin := NPMBin(t)
	root := ModuleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "testdata", "npm", "node_modules", "oidc-provider", "package.json")); err != nil {
		Missing(t, "testenv: oidc-provider is not installed in testdata/npm/node_modules: run scripts/npm-deps.sh")
	}
	ttl := opts.AccessTokenTTL
	if ttl <= 0 {
		ttl = 10 * time.Minute
	}
	p := &OIDCProvider{
		Resource:     opts.Resource,
		clientID:     "mcphost-test-resource-server",
		clientSecret: rand.Text(),
		// No keep-alive: no idle connection outlives a test that checks
		// for leaked goroutines.
		client: &http.Client{Timeout: oidcTimeout, Transport: &http.Transport{DisableKeepAlives: true}},
	}
	env := Env(t)
	for _, kv := range [][2]string{
		{"OIDC_RESOURCE", opts.Resource},
		{"OIDC_ACCESS_TOKEN_TTL", strconv.FormatInt(int64((ttl+time.Second-1)/time.Second), 10)},
		{"OIDC_INTROSPECTION_CLIENT_ID", p.clientID},
		{"OIDC_INTROSPECTION_CLIENT_SECRET", p.clientSecret},
	} {
		env = EnvWith(env, kv[0], kv[1])
	}
	p.Issuer = startProviderProcess(t, bin, filepath.Join(root, "testdata", "oidc", "provider.mjs"), env)
	p.loadMetadata(t)
	return p
}

// startProviderProcess runs the script and returns the issuer it printed.
// The provider exits when its stdin closes: the cleanup closes it first and
// signals the process group only if that was not enough.
func startProviderProcess(t testing.TB, bin, script string, env []string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "node"), script)
	cmd.Dir = filepath.Dir(script)
	cmd.Env = env
	setProcessGroup(cmd)
	stdin, err1 := cmd.StdinPipe()
	stdout, err2 := cmd.StdoutPipe()
	stderr, err3 := cmd.StderrPipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatalf("testenv: oidc provider pipes: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("testenv: start oidc provider: %v", err)
	}
	first := make(chan string, 1)
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		sc := bufio.NewScanner(stdout)
		for n := 0; sc.Scan(); n++ {
			if n == 0 {
				first <- sc.Text()
			} else {
				t.Logf("oidc-provider stdout: %s", sc.Text())
			}
		}
	}()
	go func() {
		defer readers.Done()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			t.Logf("oidc-provider: %s", sc.Text())
		}
	}()
	exited := make(chan struct{})
	go func() {
		// Wait closes the pipes: only after the readers have seen EOF.
		readers.Wait()
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		stdin.Close()
		for _, sig := range []bool{false, true} {
			select {
			case <-exited:
				return
			case <-time.After(5 * time.Second):
			}
			signalGroup(cmd, cmd.Process.Pid, sig)
		}
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			t.Errorf("testenv: oidc provider %d did not exit after SIGKILL", cmd.Process.Pid)
		}
	})

	var line string
	select {
	case line = <-first:
	case <-exited:
		t.Fatalf("testenv: oidc provider exited before listening (%v); its stderr is logged above", cmd.ProcessState)
	case <-time.After(30 * time.Second):
		t.Fatalf("testenv: oidc provider printed nothing in 30 s")
	}
	var hello struct {
		Issuer string `json:"issuer"`
	}
	if err := json.Unmarshal([]byte(line), &hello); err != nil || !strings.HasPrefix(hello.Issuer, "http://127.0.0.1:") {
		t.Fatalf("testenv: oidc provider's first line %q is not {\"issuer\":\"http://127.0.0.1:PORT\"} (%v)", line, err)
	}
	return hello.Issuer
}

// loadMetadata reads the RFC 8414 metadata and checks what MCP clients need.
func (p *OIDCProvider) loadMetadata(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), oidcTimeout)
	defer cancel()
	body, err := p.get(ctx, p.Issuer+"/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatalf("testenv: oidc provider metadata: %v", err)
	}
	var meta struct {
		Issuer        string   `json:"issuer"`
		Methods       []string `json:"code_challenge_methods_supported"`
		Authorization string   `json:"authorization_endpoint"`
		Token         string   `json:"token_endpoint"`
		Registration  string   `json:"registration_endpoint"`
		Introspection string   `json:"introspection_endpoint"`
		Revocation    string   `json:"revocation_endpoint"`
	}
	if err := json.Unmarshal(body, &meta); err != nil {
		t.Fatalf("testenv: oidc provider metadata: %v", err)
	}
	if meta.Issuer != p.Issuer || !slices.Contains(meta.Methods, "S256") || meta.Authorization == "" || meta.Token == "" ||
		meta.Registration == "" || meta.Introspection == "" || meta.Revocation == "" {
		t.Fatalf("testenv: oidc provider metadata lacks what MCP clients need: %s", body)
	}
	p.AuthorizationEndpoint, p.TokenEndpoint, p.RegistrationEndpoint = meta.Authorization, meta.Token, meta.Registration
	p.IntrospectionEndpoint, p.RevocationEndpoint = meta.Introspection, meta.Revocation
}

func (p *OIDCProvider) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := readCapped(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s: %.300s", u, resp.Status, body)
	}
	return body, err
}

// Introspection is an RFC 7662 answer. Aud is always a list.
type Introspection struct {
	Active    bool
	Scope     string
	Exp       int64
	Sub       string
	ClientID  string
	Iss       string
	TokenType string
	Aud       []string
}

// Introspect asks the provider about token as the resource server's client:
// Active is false for a token that is unknown, expired or revoked.
func (p *OIDCProvider) Introspect(ctx context.Context, token string) (*Introspection, error) {
	ctx, cancel := context.WithTimeout(ctx, oidcTimeout)
	defer cancel()
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.IntrospectionEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	// RFC 6749 §2.3.1: the credentials are form-encoded before Basic.
	req.SetBasicAuth(url.QueryEscape(p.clientID), url.QueryEscape(p.clientSecret))
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := readCapped(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("introspection: %s: %.300s", resp.Status, body)
	}
	var raw struct {
		Active    bool            `json:"active"`
		Scope     string          `json:"scope"`
		Exp       int64           `json:"exp"`
		Sub       string          `json:"sub"`
		ClientID  string          `json:"client_id"`
		Iss       string          `json:"iss"`
		TokenType string          `json:"token_type"`
		Aud       json.RawMessage `json:"aud"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("introspection: %v: %.300s", err, body)
	}
	in := &Introspection{Active: raw.Active, Scope: raw.Scope, Exp: raw.Exp, Sub: raw.Sub,
		ClientID: raw.ClientID, Iss: raw.Iss, TokenType: raw.TokenType}
	// RFC 7662 allows aud as one string or a list.
	if len(raw.Aud) > 0 && json.Unmarshal(raw.Aud, &in.Aud) != nil {
		var one string
		if err := json.Unmarshal(raw.Aud, &one); err != nil {
			return nil, fmt.Errorf("introspection: aud %s is neither a string nor a list", raw.Aud)
		}
		in.Aud = []string{one}
	}
	return in, nil
}

// Verifier checks bearer tokens by introspection: active, issued by this
// provider, an access token (a refresh token has no token_type) and for the
// resource. A refused token is an error wrapping auth.ErrInvalidToken (the
// middleware answers 401); a failed introspection is another error (500).
func (p *OIDCProvider) Verifier() auth.TokenVerifier {
	return func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		in, err := p.Introspect(ctx, token)
		switch {
		case err != nil:
			return nil, err
		case !in.Active:
			return nil, fmt.Errorf("%w: the provider says it is not active", auth.ErrInvalidToken)
		case in.Iss != p.Issuer:
			return nil, fmt.Errorf("%w: issued by %q, not %q", auth.ErrInvalidToken, in.Iss, p.Issuer)
		case !strings.EqualFold(in.TokenType, "Bearer"):
			return nil, fmt.Errorf("%w: token_type %q is not an access token's", auth.ErrInvalidToken, in.TokenType)
		case !slices.Contains(in.Aud, p.Resource):
			return nil, fmt.Errorf("%w: audience %q does not include %s", auth.ErrInvalidToken, in.Aud, p.Resource)
		}
		info := &auth.TokenInfo{Scopes: strings.Fields(in.Scope), UserID: in.Sub, Extra: map[string]any{"client_id": in.ClientID}}
		if in.Exp > 0 {
			info.Expiration = time.Unix(in.Exp, 0)
		}
		return info, nil
	}
}

// ListenProtected reserves a listener on 127.0.0.1 for ServeProtected and
// returns its MCP endpoint, http://127.0.0.1:PORT/mcp: the provider needs
// that resource URL before the server can start.
func ListenProtected(t testing.TB) (net.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testenv: listen: %v", err)
	}
	t.Cleanup(func() { ln.Close() }) // when ServeProtected is never called
	return ln, "http://" + ln.Addr().String() + "/mcp"
}

// ProtectedServer is a go-sdk MCP server behind bearer tokens of an
// OIDCProvider, started by ServeProtected.
type ProtectedServer struct {
	refused atomic.Int64
}

// Refused returns how many MCP requests the bearer check answered itself:
// 401 or 403 for no token, an invalid one or one without the scope, 500
// when introspection failed.
func (s *ProtectedServer) Refused() int64 { return s.refused.Load() }

// ServeProtected serves srv on ln at resourceURL's path, requiring tokens of
// p with scope mcp:tools, and the RFC 9728 metadata that points MCP clients
// at p. The server is closed when the test ends.
func ServeProtected(t testing.TB, ln net.Listener, resourceURL string, p *OIDCProvider, srv *mcp.Server) *ProtectedServer {
	t.Helper()
	u, err := url.Parse(resourceURL)
	if err != nil || u.Host != ln.Addr().String() || u.Path == "" || u.Path == "/" {
		t.Fatalf("testenv: resource URL %q is not a path on %s (%v)", resourceURL, ln.Addr(), err)
	}
	metadataPath := "/.well-known/oauth-protected-resource" + u.Path
	bearer := auth.RequireBearerToken(p.Verifier(), &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: "http://" + u.Host + metadataPath,
		Scopes:              []string{OIDCScope},
	})
	s := &ProtectedServer{}
	type reachedKey struct{}
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	checked := bearer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*r.Context().Value(reachedKey{}).(*bool) = true
		inner.ServeHTTP(w, r)
	}))
	mux := http.NewServeMux()
	// A flag rather than a status-recording ResponseWriter, which would hide
	// the http.Flusher that streaming needs.
	mux.Handle(u.Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached := new(bool)
		checked.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), reachedKey{}, reached)))
		if !*reached {
			s.refused.Add(1)
		}
	}))
	mux.Handle(metadataPath, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:             resourceURL,
		AuthorizationServers: []string{p.Issuer},
		ScopesSupported:      []string{OIDCScope},
	}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: oidcTimeout}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln)
	}()
	t.Cleanup(func() {
		// Open SSE streams never go idle: a short grace, then close.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if hs.Shutdown(ctx) != nil {
			hs.Close()
		}
		<-done
	})
	return s
}

// readCapped reads a body of at most 1 MiB.
func readCapped(r io.Reader) ([]byte, error) {
	const limit = 1 << 20
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && len(b) > limit {
		err = errors.New("body over 1 MiB")
	}
	return b, err
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/internal/testenv"
)

// browserPlayer is the stderr of "mcphost login --no-browser": it plays the
// user, who copies the printed authorization URL into a browser — here an
// HTTP client that logs in at the OpenID provider and follows the
// redirect back to mcphost's loopback callback.
type browserPlayer struct {
	t      *testing.T
	issuer string
	delay  time.Duration // how long the person takes before opening the URL
	opened int           // authorization URLs seen

	mu   sync.Mutex
	buf  bytes.Buffer
	done chan error
}

func (b *browserPlayer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	for _, line := range strings.Split(b.buf.String(), "\n") {
		if strings.HasPrefix(line, b.issuer) && b.done == nil {
			b.opened++
			b.done = make(chan error, 1)
			go func(u string) {
				time.Sleep(b.delay)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				b.done <- testenv.FollowAuthorization(ctx, u)
			}(strings.TrimSpace(line))
		}
	}
	return len(p), nil
}

func (b *browserPlayer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// loginWithBrowser runs "mcphost login id --no-browser" with the player.
func (e *testEnv) loginWithBrowser(id, issuer string) result {
	e.t.Helper()
	r, _ := e.loginSlowly(id, issuer, 0)
	return r
}

// loginSlowly is loginWithBrowser with a person who takes delay to act; it
// also returns how many authorization URLs were printed.
func (e *testEnv) loginSlowly(id, issuer string, delay time.Duration) (result, int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	var stdout testenv.Buffer
	player := &browserPlayer{t: e.t, issuer: issuer, delay: delay}
	a := newApp(strings.NewReader(""), &stdout, player)
	a.globalDir, a.workDir, a.environ = e.global, e.work, e.environ
	a.managedDir = e.managed
	a.resultsDirOverride = e.results()
	a.hostOptions = e.hostOpts
	args := []string{"login", id, "--no-browser"}
	code := a.execute(ctx, args)
	if player.done != nil {
		if err := <-player.done; err != nil {
			e.t.Errorf("the browser's part of the login: %v", err)
		}
	}
	player.mu.Lock()
	opened := player.opened
	player.mu.Unlock()
	return result{args: args, code: code, stdout: stdout.String(), stderr: player.String()}, opened
}

// storedRecord reads the login mcphost kept for id in mcp-auth.json.
func (e *testEnv) storedRecord(id string) *authn.Record {
	e.t.Helper()
	rec, err := (&authn.FileStore{Path: filepath.Join(e.global, "mcp-auth.json")}).Load(id)
	if err != nil {
		e.t.Fatal(err)
	}
	return rec
}

// The whole OAuth life of a server behind a real, certified OpenID
// provider (oidc-provider): a call before login fails with the hint;
// "mcphost login" discovers the provider, registers mcphost, logs in
// through the (played) browser and keeps the tokens in a 0600 file; calls
// work; an expired token is refreshed before use; a token the server
// refuses is refreshed on the 401; "auth status" shows scopes and expiry but
// no token; "mcphost logout" revokes the tokens at the provider.
func TestOAuthLoginEndToEnd(t *testing.T) {
	ln, resource := testenv.ListenProtected(t)
	p := testenv.StartOIDCProvider(t, testenv.OIDCOptions{Resource: resource, AccessTokenTTL: 10 * time.Minute})
	srv := mcp.NewServer(&mcp.Implementation{Name: "protected"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello from the protected server"}}}, nil, nil
	})
	testenv.ServeProtected(t, ln, resource, p, srv)

	e := newEnv(t)
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers:\n  secure:\n    url: "+resource+"\n")

	r := e.must(1, "call", "secure:whoami")
	if !strings.Contains(r.stderr, `run "mcphost login secure"`) {
		t.Fatalf("a call before the login must name the fix:\n%s", r)
	}

	r = e.loginWithBrowser("secure", p.Issuer)
	if r.code != 0 || !strings.Contains(r.stdout, "logged in to secure") || !strings.Contains(r.stdout, "mcp:tools") {
		t.Fatalf("login:\n%s", r)
	}
	if !strings.Contains(r.stderr, "open this URL in a browser") {
		t.Fatalf("--no-browser must print the URL on a line of its own:\n%s", r)
	}
	file := filepath.Join(e.global, "mcp-auth.json")
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v, want mode 0600", st, err)
	}
	first := e.storedRecord("secure")
	if first == nil || first.AccessToken == "" || first.RefreshToken == "" || first.Resource != resource ||
		first.RevocationURL != p.RevocationEndpoint || first.Issuer != p.Issuer {
		t.Fatalf("stored login = %+v", first)
	}
	if r.stdout+r.stderr != strings.ReplaceAll(r.stdout+r.stderr, first.AccessToken, "") {
		t.Fatal("the login printed the access token")
	}

	r = e.must(0, "call", "secure:whoami")
	if !strings.Contains(r.stdout, "hello from the protected server") {
		t.Fatalf("call after login:\n%s", r)
	}

	// Expired (as far as mcphost knows): refreshed before the call.
	expired := *first
	expired.ExpiresAt = time.Now().Add(-time.Minute)
	if err := (&authn.FileStore{Path: file}).Save("secure", &expired); err != nil {
		t.Fatal(err)
	}
	e.must(0, "call", "secure:whoami")
	second := e.storedRecord("secure")
	if second.AccessToken == first.AccessToken || !second.ExpiresAt.After(time.Now()) {
		t.Fatalf("the expired token was not refreshed: %+v", second)
	}

	// Refused by the server while mcphost still thinks it valid (a token
	// the provider no longer knows): the 401 makes mcphost refresh and
	// send the call again.
	store := &authn.FileStore{Path: file}
	refused := *second
	refused.AccessToken = "not-a-token-the-provider-issued"
	if err := store.Save("secure", &refused); err != nil {
		t.Fatal(err)
	}
	e.must(0, "call", "secure:whoami")
	third := e.storedRecord("secure")
	if third.AccessToken == refused.AccessToken || third.RefreshToken == "" {
		t.Fatalf("the refused token was not replaced: %+v", third)
	}

	// A refresh the provider refuses: needs-auth, with the fix.
	bad := *third
	bad.RefreshToken, bad.ExpiresAt = "not-a-refresh-token", time.Now().Add(-time.Minute)
	if err := store.Save("secure", &bad); err != nil {
		t.Fatal(err)
	}
	r = e.must(1, "call", "secure:whoami")
	if !strings.Contains(r.stderr, "needs-auth") || !strings.Contains(r.stderr, `run "mcphost login secure"`) {
		t.Fatalf("a refused refresh must leave the server in needs-auth with the hint:\n%s", r)
	}
	if err := store.Save("secure", third); err != nil {
		t.Fatal(err)
	}

	r = e.must(0, "auth", "status", "--json")
	var status []authn.Status
	if err := json.Unmarshal([]byte(r.stdout), &status); err != nil || len(status) != 1 || status[0].State != "logged-in" || !strings.Contains(strings.Join(status[0].Scopes, " "), "mcp:tools") || status[0].ExpiresAt.IsZero() {
		t.Fatalf("auth status: %v\n%s", err, r)
	}
	for _, secret := range []string{third.AccessToken, third.RefreshToken} {
		if strings.Contains(r.stdout, secret) {
			t.Fatal("auth status printed a token")
		}
	}

	r = e.must(0, "logout", "secure")
	if !strings.Contains(r.stdout, "revoked") {
		t.Fatalf("logout:\n%s", r)
	}
	if in, err := p.Introspect(context.Background(), third.RefreshToken); err != nil || in.Active {
		t.Fatalf("the refresh token is still active after logout: %+v %v", in, err)
	}
	if rec := e.storedRecord("secure"); rec != nil {
		t.Fatalf("login still stored after logout: %+v", rec)
	}
	e.must(1, "call", "secure:whoami")
}

// A person slower than the deadline of the request that met the 401 (the
// bounded discover probe) still logs in, with one authorization URL.
func TestOAuthLoginSlowPerson(t *testing.T) {
	ln, resource := testenv.ListenProtected(t)
	p := testenv.StartOIDCProvider(t, testenv.OIDCOptions{Resource: resource, AccessTokenTTL: 10 * time.Minute})
	testenv.ServeProtected(t, ln, resource, p, mcp.NewServer(&mcp.Implementation{Name: "protected"}, nil))
	e := newEnv(t)
	e.hostOpts = []host.Option{host.WithDiscoverProbeTimeout(50 * time.Millisecond)}
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers:\n  secure:\n    url: "+resource+"\n")
	r, opened := e.loginSlowly("secure", p.Issuer, 300*time.Millisecond)
	if r.code != 0 || opened != 1 {
		t.Fatalf("login (%d URLs printed):\n%s", opened, r)
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/internal/hosttest"
)

func TestLoginRefusesWhatHasNoLogin(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"TOK=token-value-123456"}
	writeFile(t, filepath.Join(e.global, "config.yaml"), `servers:
  local: {command: x}
  static: {url: "https://s.example/mcp", auth: {type: bearer, token: "${TOK}"}}
`)
	for args, want := range map[string]string{
		"login local":   "logins are for sse, http and websocket servers",
		"login static":  "needs no login",
		"login nothere": `no server "nothere"`,
		"logout local":  "logins are for sse, http and websocket servers",
	} {
		r := e.must(2, strings.Fields(args)...)
		if !strings.Contains(r.stderr, want) {
			t.Errorf("%s:\n%s", args, r)
		}
	}
	if r := e.must(0, "logout", "static"); !strings.Contains(r.stdout, "no stored login") {
		t.Errorf("logout without a login:\n%s", r)
	}
}

// A server that lets mcphost in without authorization has nothing to log
// in to: login says so and stores nothing.
func TestLoginToOpenServer(t *testing.T) {
	e := newEnv(t)
	url := hosttest.ServeHTTP(t, hosttest.NewEchoServer())
	// A policy in the configuration does not get in a login's way.
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers:\n  open: {url: \""+url+"\"}\npolicy: {deny: ['*echo*']}\n")
	r := e.loginWithBrowser("open", "http://never")
	if r.code != 0 || !strings.Contains(r.stdout, "did not ask for authorization") {
		t.Fatalf("%s", r)
	}
	if rec := e.storedRecord("open"); rec != nil {
		t.Fatalf("stored %+v", rec)
	}
}

func TestAuthStatus(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"TOK=token-value-123456"}
	writeFile(t, filepath.Join(e.global, "config.yaml"), `servers:
  local: {command: x}
  static: {url: "https://s.example/mcp", auth: {type: bearer, token: "${TOK}"}}
  m2m: {url: "https://m.example/mcp", auth: {type: client_credentials, client_id: c, client_secret: "${TOK}"}}
  oauth: {url: "https://o.example/mcp"}
  moved: {url: "https://new.example/mcp"}
`)
	store := &authn.FileStore{Path: filepath.Join(e.global, "mcp-auth.json")}
	if err := store.Save("oauth", &authn.Record{Resource: "https://o.example/mcp", AccessToken: "at-secret-abcdef", RefreshToken: "rt-secret-abcdef", TokenURL: "https://o.example/token", Scope: "read write"}); err != nil {
		t.Fatal(err)
	}
	if err := store.Save("moved", &authn.Record{Resource: "https://old.example/mcp", AccessToken: "at-secret-123456"}); err != nil {
		t.Fatal(err)
	}
	r := e.must(0, "auth", "status", "--json")
	var list []authn.Status
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	got := map[string]string{}
	for _, st := range list {
		got[st.ID] = st.Type + " " + st.State
	}
	want := map[string]string{"static": "bearer static", "m2m": "client_credentials machine", "oauth": "oauth logged-in", "moved": "oauth login-needed"}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q", id, got[id], w)
		}
	}
	if _, listed := got["local"]; listed {
		t.Error("a stdio server is listed")
	}
	r = e.must(0, "auth", "status")
	for _, s := range []string{"at-secret", "rt-secret", "token-value"} {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Fatalf("auth status shows a secret:\n%s", r)
		}
	}
	if !strings.Contains(r.stdout, "read write") || !strings.Contains(r.stdout, "mcp-auth.json") {
		t.Errorf("table:\n%s", r)
	}
}

func TestMCPAddAuthFlags(t *testing.T) {
	e := newEnv(t)
	e.must(0, "mcp", "add", "api", "--scope", "global", "--url", "https://a.example/mcp", "--bearer-token-env", "API_TOKEN")
	e.must(0, "mcp", "add", "corp", "--scope", "global", "--url", "https://c.example/mcp",
		"--oauth-client-id", "mcphost", "--oauth-client-secret", "literal-secret-value", "--oauth-scope", "a b", "--oauth-scope", "c")
	e.must(0, "mcp", "add", "envsecret", "--scope", "global", "--url", "https://e.example/mcp",
		"--oauth-client-id", "x", "--oauth-client-secret", "${CORP_SECRET}")
	data, err := os.ReadFile(filepath.Join(e.global, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := string(data)
	for _, want := range []string{"type: bearer", "token: ${API_TOKEN}", "client_id: mcphost", "- a", "- c", "client_secret: ${CORP_SECRET}"} {
		if !strings.Contains(file, want) {
			t.Errorf("config lacks %q:\n%s", want, file)
		}
	}
	if strings.Contains(file, "literal-secret-value") {
		t.Fatalf("the literal secret went into the config file:\n%s", file)
	}
	if rec := e.storedRecord("corp"); rec == nil || rec.ClientSecret != "literal-secret-value" || rec.ClientID != "mcphost" {
		t.Fatalf("stored = %+v", rec)
	}
	for _, args := range [][]string{
		{"mcp", "add", "x", "--url", "https://x.example/mcp", "--oauth-client-secret", "s"},
		{"mcp", "add", "x", "--url", "https://x.example/mcp", "--bearer-token-env", "A", "--oauth-client-id", "c"},
		{"mcp", "add", "x", "--url", "https://x.example/mcp", "--bearer-token-env", "not a name"},
		{"mcp", "add", "x", "--oauth-client-id", "c", "--", "server"},
	} {
		e.must(2, args...)
	}
}

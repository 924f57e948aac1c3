package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestAuthBlocks(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"TOK=bearer-secret-value", "KEY=api-key-secret-1", "CS=client-secret-42", "PEM=-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"}
	e.writeGlobal("config.yaml", `servers:
  bearer: {url: "https://a.example/mcp", auth: {type: bearer, token: "${TOK}"}}
  apikey: {url: "https://a.example/mcp", auth: {type: api_key, key: "${KEY}"}}
  oauth: {url: "https://a.example/mcp", oauth: {client_id: mcphost, client_secret: "${CS}", scopes: "read write", redirect_port: 8765, dpop: true}}
  alias: {url: "https://a.example/mcp", authorization: {type: oauth2.1, client_id: other, scopes: [x]}}
  m2m: {url: "https://a.example/mcp", auth: {type: client_credentials, client_id: c, private_key: "${PEM}", signing_algorithm: es256}}
  wif: {transport: sse, url: "https://a.example/sse", auth: {type: jwt_bearer, assertion_file: token.jwt}}
  literal: {url: "https://a.example/mcp", auth: {type: bearer, token: "hunter2hunter2"}}
  wrongfield: {url: "https://a.example/mcp", auth: {type: bearer, token: "${TOK}", client_id: x}}
  typo: {url: "https://a.example/mcp", oauth: {client_idd: x}}
  both: {url: "https://a.example/mcp", oauth: {client_id: x}, auth: {type: none}}
  notype: {url: "https://a.example/mcp", auth: {token: "${TOK}"}}
  stdio: {command: x, auth: {type: none}}
  cc: {url: "https://a.example/mcp", auth: {type: client_credentials, client_id: c, client_secret: "${CS}", private_key_file: k.pem}}
`)
	cfg := e.load()
	ok := func(id string) *Server {
		s := server(t, cfg, id)
		if s.Err != nil {
			t.Fatalf("%s: %v", id, s.Err)
		}
		return s
	}
	if a := ok("bearer").Auth; a.Type != AuthBearer || a.Token != "bearer-secret-value" {
		t.Errorf("bearer = %+v", a)
	}
	if a := ok("apikey").Auth; a.Header != "X-API-Key" || a.Key != "api-key-secret-1" {
		t.Errorf("api_key = %+v", a)
	}
	if a := ok("oauth").Auth; a.Type != AuthOAuth || a.ClientID != "mcphost" || a.ClientSecret != "client-secret-42" ||
		!slices.Equal(a.Scopes, []string{"read", "write"}) || a.RedirectPort != 8765 || !a.DPoP {
		t.Errorf("oauth = %+v", a)
	}
	if a := ok("alias").Auth; a.Type != AuthOAuth || a.ClientID != "other" || !slices.Equal(a.Scopes, []string{"x"}) {
		t.Errorf("authorization alias = %+v", a)
	}
	if a := ok("m2m").Auth; a.SigningAlgorithm != "ES256" || !strings.Contains(a.PrivateKey, "\n") {
		t.Errorf("client_credentials = %+v", a)
	}
	if a := ok("wif").Auth; !strings.HasSuffix(a.AssertionFile, "token.jwt") || !strings.HasPrefix(a.AssertionFile, e.global) {
		t.Errorf("assertion_file is not resolved against the file's directory: %q", a.AssertionFile)
	}
	for id, want := range map[string][]string{
		"literal":    {"auth.token", "${VAR}"},
		"wrongfield": {"auth.client_id", "not a field of type bearer"},
		"typo":       {"oauth", `unknown field "client_idd"`, `"client_id"`},
		"both":       {"keep one"},
		"notype":     {"auth.type", "missing"},
		"stdio":      {"auth", "sse, http and websocket"},
		"cc":         {"exactly one of client_secret, private_key, private_key_file"},
	} {
		s := server(t, cfg, id)
		wantErrContains(t, s.Err, want...)
		if s.Err != nil && strings.Contains(s.Err.Error(), "hunter2") {
			t.Errorf("%s: the error quotes the secret: %v", id, s.Err)
		}
	}
	secrets := strings.Join(cfg.SecretValues(), "\n")
	for _, v := range []string{"bearer-secret-value", "api-key-secret-1", "client-secret-42"} {
		if !strings.Contains(secrets, v) {
			t.Errorf("SecretValues lacks %q", v)
		}
	}
	if s := server(t, cfg, "bearer"); strings.Contains(s.Auth.String(), "bearer-secret") {
		t.Error("Auth.String shows the token")
	}
}

// A project cannot give one of your servers credentials (or take them).
func TestProjectCannotChangeAuthOfYourServer(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"TOK=bearer-secret-value"}
	e.writeGlobal("config.yaml", "servers:\n  api: {url: \"https://a.example/mcp\", auth: {type: bearer, token: \"${TOK}\"}}\n")
	e.writeProject(".mcphost.yaml", "servers:\n  api: {auth: {type: none}}\n")
	e.trust()
	s := server(t, e.load(), "api")
	if s.Err != nil || s.Auth.Type != AuthBearer {
		t.Fatalf("api = %+v %v", s.Auth, s.Err)
	}
	if w := e.loadWarnings(); !strings.Contains(w, "auth") {
		t.Errorf("no warning about the ignored auth: %q", w)
	}
}

// .mcp.json's oauth block in Claude Code's spelling.
func TestMCPJSONOAuthCamelCase(t *testing.T) {
	e := newEnv(t)
	e.writeProject(".mcp.json", `{"mcpServers": {"r": {"type": "http", "url": "https://r.example/mcp", "oauth": {"clientId": "abc", "callbackPort": 8123}}}}`)
	e.trust()
	s := server(t, e.load(), "r")
	if s.Err != nil || s.Auth.ClientID != "abc" || s.Auth.RedirectPort != 8123 {
		t.Fatalf("r = %+v %v", s.Auth, s.Err)
	}
}

// Only one whole ${VAR} passes for a secret: a default or a literal around
// a reference is a literal secret in the file.
func TestAuthSecretMustBeOneReference(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"EMPTY="}
	e.writeGlobal("config.yaml", `servers:
  dflt: {url: "https://a.example/mcp", auth: {type: bearer, token: "${UNSET:-ghp_literalSecretInFile123}"}}
  tail: {url: "https://a.example/mcp", auth: {type: bearer, token: "sk-live-abc${EMPTY}"}}
  bare: {url: "https://a.example/mcp", auth: {type: bearer, token: "$EMPTY"}}
  badtype: {url: "https://a.example/mcp", authorization: {type: 5, client_id: x}}
`)
	cfg := e.load()
	for _, id := range []string{"dflt", "tail", "bare"} {
		s := server(t, cfg, id)
		wantErrContains(t, s.Err, "auth.token", "one ${VAR} reference")
		if s.Err != nil && (strings.Contains(s.Err.Error(), "ghp_") || strings.Contains(s.Err.Error(), "sk-live")) {
			t.Errorf("%s: the error quotes the secret: %v", id, s.Err)
		}
	}
	wantErrContains(t, server(t, cfg, "badtype").Err, "authorization.type")
}

// A secret field whose variable is unset is one problem, the variable's:
// not also a missing field, and without the ${VAR:-default} advice that
// such a field refuses.
func TestAuthSecretUnsetVariableIsOneProblem(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", `servers:
  api: {url: "https://a.example/mcp", auth: {type: bearer, token: "${DOCS_TOKEN}"}}
  key: {url: "https://a.example/mcp", headers: {X-Key: "${KEY_VAR}"}}
`)
	cfg := e.load()
	s := server(t, cfg, "api")
	wantErrContains(t, s.Err, `variable "DOCS_TOKEN" is not set`, "a secret field takes no default")
	if s.Err != nil && (strings.Contains(s.Err.Error(), "missing") || strings.Contains(s.Err.Error(), ":-default")) {
		t.Errorf("api: %v; want only the unset variable, without a default", s.Err)
	}
	var unset *UnsetVariableError
	if !errors.As(s.Err, &unset) || !unset.Secret {
		t.Errorf("api: the cause is %#v; want an UnsetVariableError of a secret field", unset)
	}
	// Elsewhere a default is still the advice.
	wantErrContains(t, server(t, cfg, "key").Err, `${KEY_VAR:-default}`)
}

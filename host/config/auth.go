package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Auth types: how mcphost authenticates to an sse, http or websocket server.
const (
	// AuthAuto (no auth block): OAuth when the server asks for it, with
	// the tokens of "mcphost login" (dynamic registration or a client ID
	// metadata document).
	AuthAuto              = ""
	AuthNone              = "none"
	AuthBearer            = "bearer"             // Authorization: Bearer <token>
	AuthAPIKey            = "api_key"            // <header>: <key>
	AuthTokenFile         = "token_file"         // a bearer token read from a file, re-read on change
	AuthOAuth             = "oauth"              // authorization code with login, pre-registered client
	AuthClientCredentials = "client_credentials" // machine to machine: client secret or private-key JWT
	AuthJWTBearer         = "jwt_bearer"         // workload identity: a JWT from the platform (RFC 7523)
	AuthEnterprise        = "enterprise"         // enterprise-managed: IdP ID token → ID-JAG → token
)

// Auth is a server's auth block (or its oauth block). Secrets hold the
// expanded value and are never printed.
type Auth struct {
	Type string

	Token     string // bearer
	Header    string // api_key: the header name (default X-API-Key)
	Key       string // api_key
	TokenFile string // token_file: absolute path

	ClientID          string
	ClientSecret      string
	Scopes            []string
	AuthorizationURL  string
	TokenURL          string
	RegistrationURL   string
	RedirectPort      int
	ClientMetadataURL string
	DPoP              bool

	PrivateKey       string // client_credentials with private_key_jwt: PEM
	PrivateKeyFile   string
	SigningAlgorithm string // ES256 (default), ES384, RS256

	Assertion     string // jwt_bearer: the workload JWT
	AssertionFile string // jwt_bearer: re-read for every token request

	IDPIssuer       string // enterprise
	IDPClientID     string
	IDPClientSecret string
	IDPTokenURL     string // skips the IdP's discovery
	IDToken         string
	IDTokenFile     string
}

// authFields are the keys of an auth block, by type; "" lists the ones of
// every type.
var authFields = map[string][]string{
	"":                    {"type"},
	AuthNone:              {},
	AuthBearer:            {"token"},
	AuthAPIKey:            {"header", "key"},
	AuthTokenFile:         {"path"},
	AuthOAuth:             {"client_id", "client_secret", "scopes", "authorization_url", "token_url", "registration_url", "redirect_port", "client_metadata_url", "dpop"},
	AuthClientCredentials: {"client_id", "client_secret", "scopes", "private_key", "private_key_file", "signing_algorithm", "token_url"},
	AuthJWTBearer:         {"client_id", "scopes", "assertion", "assertion_file", "token_url"},
	AuthEnterprise:        {"client_id", "client_secret", "scopes", "idp_issuer", "idp_client_id", "idp_client_secret", "idp_token_url", "id_token", "id_token_file"},
}

// allAuthFields is every key any auth block may hold.
var allAuthFields = func() []string {
	var all []string
	for _, fs := range authFields {
		for _, f := range fs {
			if !slices.Contains(all, f) {
				all = append(all, f)
			}
		}
	}
	slices.Sort(all)
	return all
}()

// authorizationFields: the "authorization" block other hosts write, read as
// an oauth block.
var authorizationFields = []string{"type", "client_id", "client_secret", "scopes"}

// secretAuthFields must come from the environment (${VAR}) or the keychain
// (${secret:NAME}): a literal value would sit in a file that gets copied,
// shared, committed.
var secretAuthFields = []string{"token", "key", "client_secret", "private_key", "assertion", "idp_client_secret", "id_token"}

// secretRef is the only form a secret may take in an auth block: one whole
// ${VAR} or ${secret:NAME} reference, no default (a default would be the
// literal secret).
var secretRef = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*|secret:[A-Za-z0-9_.-]{1,64})\}$`)

// IsSecretRef reports whether v is a reference a secret field accepts.
func IsSecretRef(v string) bool { return secretRef.MatchString(v) }

// decodeAuth decodes the auth, oauth and authorization blocks (at most one).
func (d *decoder) decodeAuth(s *Server) {
	f := d.ms.fields
	var (
		block map[string]any
		name  string
	)
	for _, n := range []string{"auth", "oauth", "authorization"} {
		v, ok := f[n]
		if !ok || v == nil {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			d.fail(n, "must be a map (see docs/authorization.md)")
			return
		}
		if block != nil {
			d.fail(n, "%s and %s are both set; keep one", name, n)
			return
		}
		block, name = m, n
	}
	if block == nil {
		return
	}
	a := &s.Auth
	switch name {
	case "oauth":
		a.Type = AuthOAuth
		if _, ok := block["type"]; ok {
			d.fail("oauth.type", "an oauth block has no type; use an auth block with type: ... for other kinds")
			return
		}
	case "authorization":
		a.Type = AuthOAuth
		if v, has := block["type"]; has {
			t, ok := v.(string)
			if !ok || !slices.Contains([]string{"oauth2.1", "oauth2", "oauth"}, strings.ToLower(t)) {
				d.fail("authorization.type", "%s is not supported here (use oauth2.1, or an auth block)", quoteValue(v))
				return
			}
		}
	case "auth":
		t, ok := block["type"].(string)
		if !ok {
			d.fail("auth.type", "missing: one of none, bearer, api_key, token_file, oauth, client_credentials, jwt_bearer, enterprise")
			return
		}
		a.Type = strings.ToLower(t)
		if _, known := authFields[a.Type]; !known || a.Type == "" {
			d.fail("auth.type", "unknown type %q (use none, bearer, api_key, token_file, oauth, client_credentials, jwt_bearer or enterprise)", t)
			return
		}
	}
	allowed := authFields[a.Type]
	if name == "authorization" {
		allowed = authorizationFields
	}
	for _, k := range sortedKeys(block) {
		if k == "type" {
			continue
		}
		if !slices.Contains(allowed, k) {
			if slices.Contains(allAuthFields, k) {
				d.fail(name+"."+k, "is not a field of type %s (its fields: %s)", a.Type, strings.Join(allowed, ", "))
			} else {
				d.fail(name+"."+k, "unknown field%s", suggest(k, allowed))
			}
		}
	}
	str := func(k string) string {
		v, ok := block[k]
		if !ok || v == nil {
			return ""
		}
		sv, ok := scalarString(v)
		if !ok {
			d.fail(name+"."+k, "must be a string")
			return ""
		}
		if slices.Contains(secretAuthFields, k) && sv != "" && !secretRef.MatchString(sv) {
			d.fail(name+"."+k, "write the secret as one ${VAR} reference (an environment variable, no default) or ${secret:NAME} (the OS keychain), not in the file")
			return ""
		}
		expand := d.expand
		if slices.Contains(secretAuthFields, k) {
			expand = d.expandSecretField
		}
		out, ok := expand(name+"."+k, sv)
		if !ok {
			return ""
		}
		if strings.ContainsAny(out, "\r\n\x00") && k != "private_key" {
			d.fail(name+"."+k, "the value contains a line break or NUL; write it on one line")
			return ""
		}
		return out
	}
	path := func(k string) string {
		p := str(k)
		if p != "" && !filepath.IsAbs(p) {
			base := d.origin(name + "." + k).dir
			if base == "" {
				base = d.workDir
			}
			p = filepath.Join(base, p)
		}
		return p
	}
	httpURL := func(k string) string {
		u := str(k)
		if u == "" {
			return ""
		}
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "https" && pu.Scheme != "http") || pu.Host == "" {
			d.fail(name+"."+k, "must be an http(s) URL")
			return ""
		}
		return u
	}
	a.Token = str("token")
	a.Header = str("header")
	a.Key = str("key")
	a.TokenFile = path("path")
	a.ClientID = str("client_id")
	a.ClientSecret = str("client_secret")
	a.AuthorizationURL = httpURL("authorization_url")
	a.TokenURL = httpURL("token_url")
	a.RegistrationURL = httpURL("registration_url")
	a.ClientMetadataURL = httpURL("client_metadata_url")
	a.PrivateKey = str("private_key")
	a.PrivateKeyFile = path("private_key_file")
	a.SigningAlgorithm = strings.ToUpper(str("signing_algorithm"))
	a.Assertion = str("assertion")
	a.AssertionFile = path("assertion_file")
	a.IDPIssuer = httpURL("idp_issuer")
	a.IDPClientID = str("idp_client_id")
	a.IDPClientSecret = str("idp_client_secret")
	a.IDPTokenURL = httpURL("idp_token_url")
	a.IDToken = str("id_token")
	a.IDTokenFile = path("id_token_file")
	if v, ok := block["scopes"]; ok && v != nil {
		if sv, ok := v.(string); ok {
			a.Scopes = strings.Fields(sv)
		} else if l, ok := scalarList(v); ok {
			a.Scopes = l
		} else {
			d.fail(name+".scopes", "must be a list of scopes")
		}
		for _, sc := range a.Scopes {
			if sc == "" || strings.ContainsAny(sc, " \"\\\r\n") {
				d.fail(name+".scopes", "bad scope %q", sc)
			}
		}
	}
	if v, ok := block["redirect_port"]; ok && v != nil {
		n, ok := asInt(v)
		if !ok || n < 1 || n > 65535 {
			d.fail(name+".redirect_port", "must be a port number (1-65535)")
		} else {
			a.RedirectPort = int(n)
		}
	}
	if v, ok := block["dpop"]; ok {
		b, ok := asBool(v)
		if !ok {
			d.fail(name+".dpop", "must be true or false")
		}
		a.DPoP = b
	}
	d.checkAuth(name, a)
}

// checkAuth checks that a block has what its type needs.
func (d *decoder) checkAuth(name string, a *Auth) {
	need := func(ok bool, field, why string) {
		// A field that is written but whose variable or secret is missing
		// has been said already: it is not missing.
		if !ok && !slices.Contains(d.unresolved, name+"."+field) {
			d.fail(name+"."+field, "missing: %s", why)
		}
	}
	switch a.Type {
	case AuthBearer:
		need(a.Token != "", "token", "type bearer needs token: ${VAR}")
	case AuthAPIKey:
		need(a.Key != "", "key", "type api_key needs key: ${VAR}")
		if a.Header == "" {
			a.Header = "X-API-Key"
		} else if !ValidHeaderName(a.Header) {
			d.fail(name+".header", "bad header name %q", a.Header)
		}
	case AuthTokenFile:
		need(a.TokenFile != "", "path", "type token_file needs the path of the file holding the token")
	case AuthOAuth:
		if a.ClientSecret != "" {
			need(a.ClientID != "", "client_id", "a client_secret needs its client_id")
		}
		if (a.AuthorizationURL == "") != (a.TokenURL == "") {
			d.fail(name, "authorization_url and token_url go together (both, or neither to discover them)")
		}
		if a.AuthorizationURL != "" && a.ClientID == "" && a.RegistrationURL == "" {
			d.fail(name, "with explicit endpoints, set client_id (or registration_url for dynamic registration)")
		}
		if a.ClientMetadataURL != "" && !strings.HasPrefix(a.ClientMetadataURL, "https://") {
			d.fail(name+".client_metadata_url", "must be an https URL (a client ID metadata document)")
		}
	case AuthClientCredentials:
		need(a.ClientID != "", "client_id", "type client_credentials needs client_id")
		n := 0
		for _, v := range []string{a.ClientSecret, a.PrivateKey, a.PrivateKeyFile} {
			if v != "" {
				n++
			}
		}
		if n != 1 {
			d.fail(name, "type client_credentials needs exactly one of client_secret, private_key, private_key_file")
		}
		switch a.SigningAlgorithm {
		case "", "ES256", "ES384", "RS256":
		default:
			d.fail(name+".signing_algorithm", "%q is not supported (ES256, ES384 or RS256)", a.SigningAlgorithm)
		}
	case AuthJWTBearer:
		if (a.Assertion == "") == (a.AssertionFile == "") {
			d.fail(name, "type jwt_bearer needs exactly one of assertion (${VAR}) and assertion_file")
		}
	case AuthEnterprise:
		need(a.ClientID != "", "client_id", "type enterprise needs the client_id registered at the server's authorization server")
		need(a.IDPIssuer != "", "idp_issuer", "type enterprise needs the IdP's issuer URL")
		need(a.IDPClientID != "", "idp_client_id", "type enterprise needs the client_id registered at the IdP")
		if (a.IDToken == "") == (a.IDTokenFile == "") {
			d.fail(name, "type enterprise needs exactly one of id_token (${VAR}) and id_token_file")
		}
	}
}

// Secrets returns the secret values of the block, for scrubbing.
func (a *Auth) Secrets() []string {
	var out []string
	for _, s := range []string{a.Token, a.Key, a.ClientSecret, a.PrivateKey, a.Assertion, a.IDPClientSecret, a.IDToken} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// String never shows a secret.
func (a Auth) String() string { return fmt.Sprintf("auth{type: %q}", a.Type) }

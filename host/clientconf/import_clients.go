package clientconf

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcphost/mcphost/host/config"
)

// importMCPServers reads the "mcpServers" map that Claude Desktop, Cursor,
// Windsurf and tenx write.
var importMCPServers = importSection("mcpServers", `"mcpServers"`, readMCPServer)

// importClaudeCode reads .mcp.json, or ~/.claude.json: the user's servers
// (mcpServers) and, under projects[<dir>].mcpServers, each directory's
// private ones, of which only the current directory's are taken.
func importClaudeCode(f *fileReader, root map[string]any) {
	found := false
	if sec := f.section(root, "mcpServers", "mcpServers"); len(sec) > 0 {
		found = true
		f.servers(sec, f.src.Scope, readMCPServer)
	}
	projects, _ := root["projects"].(map[string]any)
	others := 0
	for _, dir := range sortedNames(projects) {
		p, _ := projects[dir].(map[string]any)
		sec, _ := p["mcpServers"].(map[string]any)
		if len(sec) == 0 {
			continue
		}
		if !sameDir(dir, f.src.Env) {
			others++
			continue
		}
		found = true
		f.servers(sec, ScopeLocal, readMCPServer)
	}
	if others > 0 {
		f.notef("%d other directories have servers of their own in this file: run the import in each of them to bring those in", others)
	}
	if !found {
		f.notef("no servers for this directory in this file")
	}
}

// sameDir reports whether a directory key of ~/.claude.json names the
// project directory (Windows keys may use either slash, in any case).
func sameDir(key string, env Env) bool {
	if env.WorkDir == "" {
		return false
	}
	a, b := filepath.Clean(key), filepath.Clean(env.WorkDir)
	if env.GOOS == "windows" {
		a, b = strings.ReplaceAll(key, `\`, "/"), strings.ReplaceAll(env.WorkDir, `\`, "/")
		return strings.EqualFold(strings.TrimRight(a, "/"), strings.TrimRight(b, "/"))
	}
	return a == b
}

// readMCPServer reads one entry of an "mcpServers" map: the fields of
// Claude Desktop and Claude Code, plus Cursor's, Windsurf's and tenx's own.
func readMCPServer(r *entryReader) {
	e := &r.im.Entry
	if t, ok := r.text("type"); ok {
		r.setTransport("type", t)
	}
	if t, ok := r.text("transport"); ok {
		r.setTransport("transport", t)
	}
	e.Command, _ = r.value("command", true)
	e.Args = r.values("args")
	e.Env = r.valueMap("env", false)
	e.Cwd = r.cwd("cwd")
	if u, ok := r.value("serverUrl", true); ok { // Windsurf
		e.URL = u
		r.im.convertf("serverUrl → url (Streamable HTTP; if the server speaks only SSE, set transport: sse)")
		r.drop("url", "the entry has serverUrl too, which Windsurf uses")
	} else {
		e.URL, _ = r.value("url", true)
	}
	e.Headers = r.valueMap("headers", true)
	if d, ok := r.boolean("disabled"); ok && d {
		e.Enabled = boolPtr(false)
		r.im.convertf("disabled: true → enabled: false")
	}
	if en, ok := r.boolean("enabled"); ok && !en {
		e.Enabled = boolPtr(false)
	}
	r.envFile("envFile")
	if deny, ok := r.list("disabledTools"); ok && len(deny) > 0 { // Windsurf
		e.Tools = &config.ToolsEntry{Deny: deny}
		r.im.convertf("disabledTools → tools.deny")
	}
	if m, ok := r.object("oauth"); ok { // Claude Code
		r.oauthBlock("oauth", m, map[string]string{
			"clientId": "client_id", "clientSecret": "client_secret", "callbackPort": "redirect_port",
			"authServerMetadataUrl": "", "scopes": "scopes",
		})
	}
	if m, ok := r.object("auth"); ok { // Cursor
		r.oauthBlock("auth", m, map[string]string{"CLIENT_ID": "client_id", "CLIENT_SECRET": "client_secret", "scopes": "scopes"})
	}
	if m, ok := r.object("authorization"); ok { // tenx
		if t, _ := m["type"].(string); t != "" && !strings.HasPrefix(strings.ToLower(t), "oauth") {
			r.im.drop("authorization", fmt.Sprintf("type %q is not OAuth, the only kind tenx writes here", printableField(t)))
		} else {
			delete(m, "type")
			r.oauthBlock("authorization", m, map[string]string{"client_id": "client_id", "client_secret": "client_secret", "scopes": "scopes"})
		}
	}
	r.drop("headersHelper", "mcphost does not run a command for headers: write them with ${VAR} references, or use an auth block (see \"mcphost mcp add --help\")")
	r.drop("alwaysAllow", "mcphost decides which calls to allow through its policy, not per server")
	r.drop("autoApprove", "mcphost decides which calls to allow through its policy, not per server")
	r.unknown()
}

func boolPtr(v bool) *bool { return &v }

// cwd reads a working directory: mcphost does not expand it, and takes a
// relative one from the file that holds it, so a project's relative path
// is made absolute against the project directory.
func (r *entryReader) cwd(k string) string {
	dir, ok := r.value(k, false)
	if !ok || dir == "" {
		return ""
	}
	if filepath.IsAbs(dir) || strings.Contains(dir, "${input:") {
		return dir
	}
	if r.im.Scope == ScopeProject && r.env.WorkDir != "" {
		abs := filepath.Join(r.env.WorkDir, dir)
		r.im.convertf("%s %q → %s (relative to the project directory)", k, dir, abs)
		return abs
	}
	if r.env.Home != "" {
		abs := filepath.Join(r.env.Home, dir)
		r.im.convertf("%s %q → %s (relative to the home directory)", k, dir, abs)
		return abs
	}
	return dir
}

// oauthBlock writes an OAuth block of the client's (keys renamed by names;
// a name mapped to "" is dropped) as mcphost's oauth block.
func (r *entryReader) oauthBlock(field string, m map[string]any, names map[string]string) {
	out := map[string]any{}
	for _, k := range sortedNames(m) {
		sub := field + "." + printableField(k)
		to, known := names[k]
		if !known || to == "" {
			r.im.drop(sub, "not an OAuth setting mcphost takes (it finds the authorization server itself)")
			continue
		}
		v := m[k]
		switch to {
		case "scopes":
			if sc := scopeList(v); len(sc) > 0 {
				out["scopes"] = sc
			} else {
				r.im.drop(sub, "not a list of scopes")
			}
		case "redirect_port":
			n, ok := numberOf(v)
			if !ok || n != float64(int(n)) || n < 1 || n > 65535 {
				r.im.drop(sub, "not a port number")
				continue
			}
			out["redirect_port"] = int(n)
		case "client_secret":
			s, ok := scalarText(v)
			if !ok || s == "" {
				r.im.drop(sub, "not a string")
				continue
			}
			out["client_secret"] = r.secretValue("client_secret", s)
		default:
			if c, ok := r.convertScalar(sub, v, "not a string"); ok {
				out[to] = c
			}
		}
	}
	if len(out) == 0 {
		return
	}
	if r.im.Entry.OAuth == nil {
		r.im.Entry.OAuth = map[string]any{}
	}
	for k, v := range out {
		r.im.Entry.OAuth[k] = v
	}
	if field != "oauth" {
		r.im.convertf("%s → oauth", field)
	}
}

// secretValue writes a secret field: a reference stays one, a value the
// file held in clear goes to the keychain.
func (r *entryReader) secretValue(what, s string) string {
	if c, reason := r.convert(what, s, true); reason == "" && config.IsSecretRef(c) {
		return c
	}
	return r.keepSecret(what, s)
}

// scopeList reads OAuth scopes: a list, or one space-separated string.
func scopeList(v any) []any {
	var out []any
	switch t := v.(type) {
	case string:
		for _, s := range strings.Fields(t) {
			out = append(out, s)
		}
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil
			}
			for _, f := range strings.Fields(s) {
				out = append(out, f)
			}
		}
	}
	return out
}

// importBeans reads a Beans agent's .beans/mcp.json: "servers" with a
// transport, and an auth block of its own. No released Beans file was to
// be found; the shape follows the agent's design document, as tenx's
// mcp.json (read by importMCPServers) follows its MCP.md.
var importBeans = importSection("servers", `"servers"`, readBeansServer)

func readBeansServer(r *entryReader) {
	e := &r.im.Entry
	if t, ok := r.text("transport"); ok {
		r.setTransport("transport", t)
		if r.transport == config.TransportHTTP {
			r.im.convertf("transport http → Streamable HTTP (Beans also means SSE by it: use transport sse if the server only speaks SSE)")
		}
	}
	if n, ok := r.text("name"); ok && n != r.im.Name {
		r.im.drop("name", "mcphost names a server by its key")
	}
	e.Command, _ = r.value("command", true)
	e.Args = r.values("args")
	e.Env = r.valueMap("env", false)
	e.URL, _ = r.value("url", true)
	e.Headers = r.valueMap("headers", true)
	if m, ok := r.object("auth"); ok {
		r.beansAuth(m)
	}
	r.unknown()
}

func (r *entryReader) beansAuth(m map[string]any) {
	e := &r.im.Entry
	str := func(k string) string {
		s, _ := scalarText(m[k])
		return s
	}
	t := str("type")
	used := map[string]bool{"type": true}
	switch t {
	case "", "none":
	case "api_key":
		header := str("headerName")
		if header == "" {
			header = "X-API-Key"
		}
		if !config.ValidHeaderName(header) {
			r.im.drop("auth.headerName", "not a valid HTTP header name")
			break
		}
		key := str("apiKey")
		if key == "" {
			r.im.drop("auth", "an api_key block without apiKey")
			break
		}
		e.Auth = map[string]any{"type": config.AuthAPIKey, "header": header, "key": r.secretValue("api_key", key)}
		used["headerName"], used["apiKey"] = true, true
		r.im.convertf("auth api_key → auth api_key (header %s)", header)
	case "oauth":
		sub := map[string]any{}
		for from, to := range map[string]string{"clientId": "client_id", "authUrl": "authorization_url", "tokenUrl": "token_url"} {
			if v, ok := m[from]; ok {
				sub[to] = v
				used[from] = true
			}
		}
		r.oauthBlock("auth", sub, map[string]string{"client_id": "client_id", "authorization_url": "authorization_url", "token_url": "token_url"})
	case "token_file":
		p := str("tokenPath")
		if p == "" {
			r.im.drop("auth", "a token_file block without tokenPath")
			break
		}
		if !filepath.IsAbs(p) && r.env.WorkDir != "" {
			p = filepath.Join(r.env.WorkDir, p)
		}
		e.Auth = map[string]any{"type": config.AuthTokenFile, "path": escapeDollars(p)}
		used["tokenPath"] = true
		r.im.convertf("auth token_file → auth token_file")
	default:
		r.im.drop("auth", fmt.Sprintf("type %q is not one mcphost knows", printableField(t)))
		return
	}
	for _, k := range sortedNames(m) {
		if !used[k] {
			r.im.drop("auth."+printableField(k), "not a setting of this auth type")
		}
	}
}

// importCodelia reads Codelia's config.json: mcp.servers.<id>.
var importCodelia = importSection("mcp.servers", `"mcp.servers"`, readCodeliaServer)

func readCodeliaServer(r *entryReader) {
	e := &r.im.Entry
	if t, ok := r.text("transport"); ok {
		r.setTransport("transport", t)
	}
	if en, ok := r.boolean("enabled"); ok && !en {
		e.Enabled = boolPtr(false)
	}
	e.Command, _ = r.value("command", true)
	e.Args = r.values("args")
	e.Cwd = r.cwd("cwd")
	e.Env = r.valueMap("env", false)
	e.URL, _ = r.value("url", true)
	e.Headers = r.valueMap("headers", true)
	if ms, ok := r.num("request_timeout_ms"); ok && ms > 0 {
		e.RequestTimeout = durationText(ms, "ms")
		r.im.convertf("request_timeout_ms %s → request_timeout %s", numText(ms), e.RequestTimeout)
	}
	if m, ok := r.object("oauth"); ok {
		r.oauthBlock("oauth", m, map[string]string{
			"authorization_url": "authorization_url", "token_url": "token_url", "registration_url": "registration_url",
			"client_id": "client_id", "client_secret": "client_secret", "scope": "scopes",
		})
	}
	r.unknown()
}

func numText(f float64) string { return fmt.Sprint(f) }

package clientconf

import (
	"slices"

	"github.com/mcphost/mcphost/host/config"
)

const trustReason = "mcphost asks through policy, not per server"

// importCodex reads Codex's config.toml: [mcp_servers.<id>].
var importCodex = importSection("mcp_servers", "[mcp_servers]", readCodexServer)

func readCodexServer(r *entryReader) {
	e := &r.im.Entry
	e.Command, _ = r.value("command", true)
	e.Args = r.values("args")
	e.Env = r.valueMap("env", false)
	e.Cwd = r.cwd("cwd")
	if names, ok := r.list("env_vars"); ok && len(names) > 0 {
		r.im.convertf("env_vars: nothing to write, mcphost passes its whole environment to stdio servers")
	}
	e.URL, _ = r.value("url", true)
	e.Headers = r.valueMap("http_headers", true)
	if len(e.Headers) > 0 {
		r.im.convertf("http_headers → headers")
	}
	if v, ok := r.object("env_http_headers"); ok {
		for _, h := range sortedNames(v) {
			field := "env_http_headers." + printableField(h)
			name, _ := v[h].(string)
			switch {
			case !config.ValidHeaderName(h):
				r.im.drop(field, "not a valid HTTP header name")
			case !envName.MatchString(name):
				r.im.drop(field, "the value does not name an environment variable")
			default:
				if e.Headers == nil {
					e.Headers = map[string]string{}
				}
				e.Headers[h] = "${" + name + "}"
				r.im.convertf("env_http_headers %s = %q → headers %s: ${%s}", h, name, h, name)
			}
		}
	}
	if v, ok := r.text("bearer_token_env_var"); ok {
		if envName.MatchString(v) {
			e.Auth = map[string]any{"type": config.AuthBearer, "token": "${" + v + "}"}
			r.im.convertf("bearer_token_env_var %s → auth: {type: bearer, token: ${%s}}", v, v)
		} else {
			r.im.drop("bearer_token_env_var", "does not name an environment variable")
		}
	}
	if v, ok := r.text("bearer_token"); ok && v != "" && e.Auth == nil {
		e.Auth = map[string]any{"type": config.AuthBearer, "token": r.keepSecret("bearer_token", v)}
	}
	if sc, ok := r.take("scopes"); ok {
		if e.Auth != nil {
			r.im.drop("scopes", "OAuth scopes, and the server takes a bearer token instead")
		} else if l := scopeList(sc); len(l) > 0 {
			e.OAuth = map[string]any{"scopes": l}
			r.im.convertf("scopes → oauth.scopes")
		} else {
			r.im.drop("scopes", "not a list of scopes")
		}
	}
	for _, t := range []struct{ field, unit, to string }{
		{"startup_timeout_sec", "s", "startup_timeout"}, {"startup_timeout_ms", "ms", "startup_timeout"},
		{"tool_timeout_sec", "s", "request_timeout"},
	} {
		n, ok := r.num(t.field)
		if !ok || n == 0 {
			continue
		}
		d := durationText(n, t.unit)
		if t.to == "startup_timeout" {
			e.StartupTimeout = d
		} else {
			e.RequestTimeout = d
		}
		r.im.convertf("%s %s → %s %s", t.field, numText(n), t.to, d)
	}
	if en, ok := r.boolean("enabled"); ok && !en {
		e.Enabled = boolPtr(false)
	}
	allow, _ := r.list("enabled_tools")
	deny, _ := r.list("disabled_tools")
	setTools(r, allow, deny, "enabled_tools", "disabled_tools")
	r.drop("required", "mcphost starts the other servers when one fails, and \"mcphost servers\" shows which")
	r.drop("tools", "Codex's per-tool approval settings: mcphost decides which calls to allow through its policy")
	r.drop("oauth_resource", "mcphost finds the resource to ask a token for from the server")
	r.unknown()
}

// setTools writes allow and deny lists, noting the client's names for them.
func setTools(r *entryReader, allow, deny []string, allowField, denyField string) {
	if len(allow) == 0 && len(deny) == 0 {
		return
	}
	r.im.Entry.Tools = &config.ToolsEntry{Allow: allow, Deny: deny}
	if len(allow) > 0 {
		r.im.convertf("%s → tools.allow", allowField)
	}
	if len(deny) > 0 {
		r.im.convertf("%s → tools.deny", denyField)
	}
}

// importGemini reads Gemini CLI's settings.json: mcpServers, and the
// mcp.allowed / mcp.excluded lists that switch servers off.
func importGemini(f *fileReader, root map[string]any) {
	sec := f.section(root, "mcpServers", "mcpServers")
	if sec == nil {
		f.notef("no \"mcpServers\" in this file")
		return
	}
	mcp, _ := root["mcp"].(map[string]any)
	names := func(k string) ([]string, bool) {
		l, ok := mcp[k].([]any)
		var out []string
		for _, v := range l {
			if s, ok := v.(string); ok {
				out = append(out, s)
			}
		}
		return out, ok
	}
	allowed, hasAllowed := names("allowed")
	excluded, _ := names("excluded")
	if _, ok := mcp["serverCommand"]; ok {
		f.notef("mcp.serverCommand (one command that starts the servers) is not imported: add it with \"mcphost mcp add\"")
	}
	f.servers(sec, f.src.Scope, func(r *entryReader) {
		readGeminiServer(r)
		switch {
		case slices.Contains(excluded, r.im.Name):
			r.im.Entry.Enabled = boolPtr(false)
			r.im.convertf("listed in mcp.excluded → enabled: false")
		case hasAllowed && !slices.Contains(allowed, r.im.Name):
			r.im.Entry.Enabled = boolPtr(false)
			r.im.convertf("not listed in mcp.allowed → enabled: false")
		}
	})
}

func readGeminiServer(r *entryReader) {
	e := &r.im.Entry
	typ, hasType := r.text("type")
	e.Command, _ = r.value("command", true)
	e.Args = r.values("args")
	e.Env = r.valueMap("env", false)
	e.Cwd = r.cwd("cwd")
	if u, ok := r.value("httpUrl", true); ok {
		e.URL = u
		r.transport = config.TransportHTTP
		r.im.convertf("httpUrl → url (Streamable HTTP)")
		r.drop("url", "the entry has httpUrl too, which Gemini CLI uses")
	} else if u, ok := r.value("url", true); ok {
		e.URL = u
		if !hasType {
			r.transport = config.TransportSSE
			r.im.convertf("url → url with transport sse (Gemini CLI's url is an SSE endpoint)")
		}
	}
	if hasType {
		r.setTransport("type", typ)
	}
	e.Headers = r.valueMap("headers", true)
	if ms, ok := r.num("timeout"); ok && ms > 0 {
		e.RequestTimeout = durationText(ms, "ms")
		r.im.convertf("timeout %s (ms) → request_timeout %s", numText(ms), e.RequestTimeout)
	}
	r.drop("trust", trustReason)
	allow, _ := r.list("includeTools")
	deny, _ := r.list("excludeTools")
	setTools(r, allow, deny, "includeTools", "excludeTools")
	r.drop("description", "mcphost keeps no description of a server")
	if m, ok := r.object("oauth"); ok {
		if en, _ := m["enabled"].(bool); !en {
			r.im.drop("oauth", "OAuth is switched off here (mcphost uses it only when the server asks for it)")
		} else {
			delete(m, "enabled")
			r.oauthBlock("oauth", m, map[string]string{
				"clientId": "client_id", "clientSecret": "client_secret", "authorizationUrl": "authorization_url",
				"tokenUrl": "token_url", "registrationUrl": "registration_url", "scopes": "scopes",
			})
			r.im.convertf("oauth: log in with \"mcphost login %s\"", e.ID)
		}
	}
	if v, ok := r.text("authProviderType"); ok && v != "dynamic_discovery" {
		r.im.drop("authProviderType", "Google credentials are not an auth type of mcphost: use an auth block (see docs/authorization.md)")
	}
	for _, k := range []string{"targetAudience", "targetServiceAccount"} {
		r.drop(k, "Google credentials are not an auth type of mcphost")
	}
	r.drop("extensionName", "servers of Gemini CLI extensions are the extension's: mcphost imports them as plain servers")
	r.unknown()
}

// importZed reads Zed's settings.json: context_servers.
var importZed = importSection("context_servers", `"context_servers"`, readZedServer)

func readZedServer(r *entryReader) {
	e := &r.im.Entry
	source, _ := r.text("source")
	_, hasCommand := r.m["command"]
	_, hasURL := r.m["url"]
	if source == "extension" || (!hasCommand && !hasURL) {
		r.skip("provided by a Zed extension, which mcphost cannot run: add the server's command with \"mcphost mcp add\"")
		return
	}
	if cmd, ok := r.m["command"].(map[string]any); ok {
		// The first shape: "command": {"path", "args", "env"}.
		r.used["command"] = true
		sub := newEntryReader(r.kind, cmd, r.im, r.env, r.source)
		e.Command, _ = sub.value("path", true)
		e.Args = sub.values("args")
		e.Env = sub.valueMap("env", false)
		for _, k := range sortedNames(cmd) {
			if !sub.used[k] {
				r.im.drop("command."+printableField(k), "not a field of Zed's command")
			}
		}
		r.im.convertf("command.path → command")
	} else {
		e.Command, _ = r.value("command", true)
		e.Args = r.values("args")
		e.Env = r.valueMap("env", false)
	}
	e.URL, _ = r.value("url", true)
	e.Headers = r.valueMap("headers", true)
	if en, ok := r.boolean("enabled"); ok && !en {
		e.Enabled = boolPtr(false)
	}
	if s, ok := r.m["settings"].(map[string]any); !ok || len(s) > 0 {
		r.drop("settings", "settings are passed to Zed extensions; a command-line server takes its settings in args and env")
	} else {
		r.used["settings"] = true // an empty block says nothing
	}
	r.unknown()
}

// importGoose reads Goose's config.yaml: extensions.
var importGoose = importSection("extensions", `"extensions"`, readGooseExtension)

func readGooseExtension(r *entryReader) {
	e := &r.im.Entry
	typ, _ := r.text("type")
	switch typ {
	case "stdio", "sse", "streamable_http", "http":
		r.setTransport("type", typ)
	case "builtin", "platform", "frontend", "inline_python":
		r.skip("a Goose %s extension runs inside Goose; mcphost cannot run it", printableField(typ))
		return
	case "":
		r.skip("no type (stdio, sse or streamable_http)")
		return
	default:
		r.skip("type %q is not an extension type mcphost can run", printableField(typ))
		return
	}
	if n, ok := r.text("name"); ok && n != r.im.Name {
		r.im.drop("name", "mcphost names a server by its key")
	}
	if en, ok := r.boolean("enabled"); ok && !en {
		e.Enabled = boolPtr(false)
	}
	e.Command, _ = r.value("cmd", true)
	if e.Command != "" {
		r.im.convertf("cmd → command")
	}
	e.Args = r.values("args")
	e.Cwd = r.cwd("cwd")
	e.Env = r.valueMap("envs", false)
	if len(e.Env) > 0 {
		r.im.convertf("envs → env")
	}
	if keys, ok := r.list("env_keys"); ok {
		for _, k := range keys {
			if !envName.MatchString(k) {
				r.im.drop("env_keys."+printableField(k), "not an environment variable name")
				continue
			}
			if e.Env == nil {
				e.Env = map[string]string{}
			}
			if _, set := e.Env[k]; !set {
				e.Env[k] = "${" + k + "}"
				r.im.convertf("env_keys %s → env %s: ${%s} (Goose keeps it in its keyring: set %s in the environment)", k, k, k, k)
			}
		}
	}
	if u, ok := r.value("uri", true); ok {
		e.URL = u
		r.im.convertf("uri → url")
	}
	e.Headers = r.valueMap("headers", true)
	if s, ok := r.num("timeout"); ok && s > 0 {
		e.RequestTimeout = durationText(s, "s")
		r.im.convertf("timeout %s (s) → request_timeout %s", numText(s), e.RequestTimeout)
	}
	if tools, ok := r.list("available_tools"); ok && len(tools) > 0 {
		setTools(r, tools, nil, "available_tools", "")
	}
	for _, k := range []string{"description", "display_name"} {
		r.drop(k, "mcphost keeps no description of a server")
	}
	r.drop("bundled", "Goose's own bookkeeping")
	r.unknown()
}

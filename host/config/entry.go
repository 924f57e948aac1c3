package config

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
)

// serverFields are the fields of a server entry, in the order they are
// written and documented.
var serverFields = []string{
	"transport", "command", "args", "env", "env_file", "cwd", "url", "headers", "enabled",
	"startup_timeout", "request_timeout", "protocol_version", "tools", "max_message_bytes",
	"health_interval", "reconnect", "auth", "oauth", "authorization",
}

// fieldAliases maps other hosts' names to ours: .mcp.json says "type",
// VS Code "envFile".
var fieldAliases = map[string]string{"type": "transport", "envFile": "env_file"}

var (
	toolsFields     = []string{"allow", "deny"}
	reconnectFields = []string{"initial_delay", "max_delay", "max_attempts"}
)

// nestedAliases maps other hosts' names inside nested blocks to ours:
// Claude Code's .mcp.json writes "oauth": {"clientId", "callbackPort"}.
var nestedAliases = map[string]string{
	"clientId": "client_id", "clientSecret": "client_secret", "callbackPort": "redirect_port",
}

// nestedFields are the server fields that hold a map with known keys; any
// other key in them is an error, as for the entry itself.
var nestedFields = map[string][]string{
	"tools": toolsFields, "reconnect": reconnectFields,
	"auth": append([]string{"type"}, allAuthFields...), "oauth": authFields[AuthOAuth], "authorization": authorizationFields,
}

// ValidHeaderName reports whether s is an HTTP header name (an RFC 9110
// token).
func ValidHeaderName(s string) bool { return headerPattern.MatchString(s) }

func isField(f string, known []string) bool {
	for _, k := range known {
		if k == f {
			return true
		}
	}
	return false
}

var idPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ValidID reports whether id can name a server: ids become part of public
// tool names, which providers limit to ^[a-zA-Z0-9_-]{1,64}$.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// ReservedServerID names mcphost's own resources (mcphost://results/<id>):
// no configured server may take it.
const ReservedServerID = "mcphost"

// CheckServerID says what is wrong with a server id, or nil. Beyond
// ValidID, an id may not contain "__", the separator of public names
// (mcp__SERVER__TOOL), which would let one server's tools pass for
// another's, and may not be the reserved id "mcphost".
func CheckServerID(id string) error {
	switch {
	case !ValidID(id):
		return fmt.Errorf("bad id %q: it must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, _ and -)", id)
	case strings.Contains(id, "__"):
		return fmt.Errorf("bad id %q: it must not contain \"__\", the separator of public tool names (mcp__SERVER__TOOL); use one _ or -", id)
	case strings.EqualFold(id, ReservedServerID):
		return fmt.Errorf("id %q is reserved for mcphost's own resources (mcphost://results/...); choose another", id)
	}
	return nil
}

var (
	protocolPattern = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	headerPattern   = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

func isServerField(f string) bool { return isField(f, serverFields) }

// entryError formats a per-server error: "config: FILE: server "ID": FIELD: MSG".
func entryError(source, id, field, msg string) error {
	if field == "" {
		return fmt.Errorf("config: %s: server %q: %s", source, id, msg)
	}
	return fmt.Errorf("config: %s: server %q: %s: %s", source, id, field, msg)
}

// entryCause is entryError keeping err as the cause (errors.As finds it).
func entryCause(source, id, field string, err error) error {
	return fmt.Errorf("config: %s: server %q: %s: %w", source, id, field, err)
}

// normalizeEntry checks the keys of one raw server entry and returns it with
// canonical field names. Values are checked later, after merging, so that the
// error names the layer the effective value came from.
func normalizeEntry(l *layer, id string, raw any) (map[string]any, []error) {
	fields := map[string]any{}
	if raw == nil {
		return fields, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return fields, []error{entryError(l.source, id, "", "the entry must be a map of fields (command, args, url...)")}
	}
	lenient := l.kind == kindMCPJSON
	var errs []error
	for _, k := range sortedKeys(m) {
		v := m[k]
		canon := k
		if a, ok := fieldAliases[k]; ok {
			canon = a
		}
		if !isServerField(canon) {
			if !lenient {
				errs = append(errs, entryError(l.source, id, "", fmt.Sprintf("unknown field %q%s", k, suggest(k, append(serverFields, "type")))))
			}
			continue
		}
		if prev, dup := fields[canon]; dup {
			// "transport" and "type" in one entry: fine if they agree.
			if !reflect.DeepEqual(prev, v) {
				errs = append(errs, entryError(l.source, id, "", `both "transport" and "type" are set, to different values; keep one`))
			}
			continue
		}
		if known, nested := nestedFields[canon]; nested {
			if sm, ok := v.(map[string]any); ok {
				clean := map[string]any{}
				for _, sk := range sortedKeys(sm) {
					v := sm[sk]
					if a, ok := nestedAliases[sk]; ok {
						sk = a
					}
					if !isField(sk, known) {
						if !lenient {
							errs = append(errs, entryError(l.source, id, canon, fmt.Sprintf("unknown field %q%s", sk, suggest(sk, known))))
						}
						continue
					}
					clean[sk] = v
				}
				v = clean
			}
		}
		fields[canon] = v
	}
	return fields, errs
}

// lookups are how a decoder resolves ${VAR} and ${secret:NAME}.
type lookups struct {
	env    func(string) (string, bool)
	secret func(string) (string, error) // nil: none can be resolved
}

// decoder turns one merged entry into a Server.
type decoder struct {
	ms      *mergedServer
	layers  []*layer
	workDir string
	lookups
	// checkOnly: validating an entry about to be written. Every variable
	// and secret counts as set, a url holding a reference is only checked
	// for syntax, and no env_file is read.
	checkOnly bool
	errs      []error
	// secretValues are the values ${secret:NAME} references gave, for
	// Server.refSecrets.
	secretValues []string
	// unresolved are the secret fields written whose variable or secret
	// is missing (they are not missing themselves).
	unresolved []string
}

func (d *decoder) origin(p string) *layer {
	if i := strings.IndexByte(p, '['); i >= 0 {
		p = p[:i] // args[2] -> args
	}
	for q := p; q != ""; {
		if li, ok := d.ms.origins[q]; ok {
			return d.layers[li]
		}
		i := strings.LastIndexByte(q, '.')
		if i < 0 {
			break
		}
		q = q[:i]
	}
	return d.layers[d.ms.source]
}

func (d *decoder) fail(field, format string, args ...any) {
	d.errs = append(d.errs, entryError(d.origin(field).source, d.ms.id, field, fmt.Sprintf(format, args...)))
}

// expand expands a value; the error names the variable (or secret) and the
// field only. A project file may not name a keychain secret at all: a
// cloned repository could send it, in a header or an argument, to a server
// of its choosing. A project value is checked whole first, so that a
// reference before a malformed one ("${secret:a}${") is not looked up
// either: the keychain is never asked for a project file's reference.
func (d *decoder) expand(field, s string) (string, bool) {
	return d.expandField(field, s, false)
}

// expandSecretField expands a secret field's one reference: an unset
// variable is said without the ${VAR:-default} advice, which such a field
// refuses, and the field counts as given (its fault is the variable).
func (d *decoder) expandSecretField(field, s string) (string, bool) {
	return d.expandField(field, s, true)
}

func (d *decoder) expandField(field, s string, secretField bool) (string, bool) {
	fromProject := d.origin(field).fromProject()
	if fromProject {
		names, err := SecretRefs(s)
		if err != nil {
			d.fail(field, "%v", err)
			return "", false
		}
		if len(names) > 0 {
			d.fail(field, "${secret:%s} is not allowed in a project file (a cloned repository could send your keychain secrets to a server of its choosing); "+
				"define the server in your local or user scope (mcphost mcp add --scope local ...), or use an environment variable ${VAR}", names[0])
			return "", false
		}
	}
	secret := func(name string) (string, error) {
		if d.checkOnly {
			return "value", nil
		}
		if d.secret == nil || fromProject {
			return "", errNoSecretStore
		}
		v, err := d.secret(name)
		if err == nil {
			d.secretValues = append(d.secretValues, v)
		}
		return v, err
	}
	out, err := ExpandSecrets(s, d.env, secret)
	if err != nil {
		var unset *UnsetVariableError
		if secretField && errors.As(err, &unset) {
			err = &UnsetVariableError{Name: unset.Name, Secret: true}
		}
		if secretField {
			d.unresolved = append(d.unresolved, field)
		}
		// Kept as the cause: a caller tells an unset variable or a
		// missing secret (set it) from a wrong entry (fix it).
		d.errs = append(d.errs, entryCause(d.origin(field).source, d.ms.id, field, err))
		return "", false
	}
	return out, true
}

// decodeServer validates a merged entry. Every problem lands in Server.Err;
// none ever quotes an env or header value.
func decodeServer(ms *mergedServer, layers []*layer, lk lookups, workDir string, checkOnly bool) *Server {
	d := &decoder{ms: ms, layers: layers, lookups: lk, workDir: workDir, checkOnly: checkOnly}
	s := &Server{
		ID:              ms.id,
		Enabled:         true,
		StartupTimeout:  DefaultStartupTimeout,
		RequestTimeout:  DefaultRequestTimeout,
		MaxMessageBytes: DefaultMaxMessageBytes,
		Source:          layers[ms.source].source,
		Scope:           scopeOfKind(layers[ms.source].kind),
		Untrusted:       ms.untrusted,
		ProjectDir:      ms.projectDir,
	}
	d.errs = append(d.errs, ms.errs...)
	if err := CheckServerID(ms.id); err != nil {
		d.errs = append(d.errs, entryError(s.Source, ms.id, "", err.Error()))
	}
	f := ms.fields

	transport, badTransport := "", false
	if v, ok := f["transport"]; ok {
		str, ok := v.(string)
		if !ok {
			d.fail("transport", "must be a string (stdio, sse, http or websocket)")
			badTransport = true
		} else if t, ok := normalizeTransport(str); ok {
			transport = t
		} else {
			d.fail("transport", "unknown transport %q (use stdio, sse, http or websocket)", str)
			badTransport = true
		}
	}
	rawCommand := d.str("command")
	rawURL := d.str("url")
	if v, ok := f["args"]; ok {
		list, ok := scalarList(v)
		if !ok {
			d.fail("args", "must be a list of strings")
		}
		for i, a := range list {
			e, _ := d.expand(fmt.Sprintf("args[%d]", i), a)
			s.Args = append(s.Args, e)
		}
		s.Written.Args = list
	}
	s.Written.Command, s.Written.URL = rawCommand, rawURL
	s.Env = d.stringMap("env", func(k string) string {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return "bad variable name"
		}
		return ""
	})
	s.EnvFile, s.Env = d.envFile(s.Env)
	s.Headers = d.stringMap("headers", func(k string) string {
		if !headerPattern.MatchString(k) {
			return "bad header name"
		}
		return ""
	})
	if cwd := d.str("cwd"); cwd != "" {
		if !filepath.IsAbs(cwd) {
			base := d.origin("cwd").dir
			if base == "" {
				base = d.workDir
			}
			cwd = filepath.Join(base, cwd)
		}
		s.Cwd = filepath.Clean(cwd)
	}
	if v, ok := f["enabled"]; ok {
		b, ok := asBool(v)
		if !ok {
			d.fail("enabled", "must be true or false")
		} else {
			s.Enabled = b
		}
	}
	s.StartupTimeout = d.duration("startup_timeout", DefaultStartupTimeout)
	s.RequestTimeout = d.duration("request_timeout", DefaultRequestTimeout)
	if v, ok := f["protocol_version"]; ok {
		pv, isStr := v.(string)
		if st, ok := v.(fmt.Stringer); ok && !isStr {
			pv, isStr = st.String(), true // TOML reads an unquoted date as a date
		}
		switch {
		case !isStr:
			d.fail("protocol_version", "must be a string like \"2025-06-18\"")
		case pv == "":
		case !protocolPattern.MatchString(pv) || !validDate(pv):
			d.fail("protocol_version", "%q does not look like a protocol version (YYYY-MM-DD, e.g. \"2025-06-18\")", pv)
		default:
			s.ProtocolVersion = pv
		}
	}
	if v, ok := f["tools"]; ok {
		tm, ok := v.(map[string]any)
		if !ok && v != nil {
			d.fail("tools", "must be a map with allow and deny lists")
		}
		s.Tools.Allow = d.globs("tools.allow", tm["allow"])
		s.Tools.Deny = d.globs("tools.deny", tm["deny"])
	}
	if v, ok := f["max_message_bytes"]; ok {
		n, ok := asInt(v)
		switch {
		case !ok:
			d.fail("max_message_bytes", "must be a whole number of bytes")
		case n < 0:
			d.fail("max_message_bytes", "must not be negative (0 means the default, %d)", DefaultMaxMessageBytes)
		case n > 0:
			s.MaxMessageBytes = n
		}
	}
	s.HealthInterval = d.healthInterval()
	s.Reconnect = d.reconnect()

	// Transport: explicit, or inferred from what is there.
	if transport == "" && !badTransport {
		switch {
		case rawCommand != "" && rawURL != "":
			d.fail("transport", "both command and url are set; add transport: stdio or transport: http")
		case rawURL != "":
			transport = TransportHTTP
		default:
			transport = TransportStdio
		}
	}
	s.Transport = transport
	switch transport {
	case TransportStdio:
		for _, n := range []string{"auth", "oauth", "authorization"} {
			if _, ok := f[n]; ok && d.origin(n).kind != kindMCPJSON {
				d.fail(n, "is for sse, http and websocket servers; a stdio server gets its credentials through env")
			}
		}
		if rawCommand == "" {
			if _, isField := f["command"]; isField {
				d.fail("command", "is empty")
			} else {
				d.fail("command", `missing: a stdio server needs a command (or set "url" for an http server)`)
			}
			break
		}
		if c, ok := d.expand("command", rawCommand); ok {
			if c == "" {
				d.fail("command", "is empty after ${VAR} expansion")
			}
			s.Command = c
		}
	case TransportHTTP, TransportSSE, TransportWebSocket:
		d.decodeAuth(s)
		if rawURL == "" {
			d.fail("url", "missing: a %s server needs a url", transport)
			break
		}
		if u, ok := d.expand("url", rawURL); ok {
			d.checkURL(rawURL, u, transport)
			s.URL = u
		}
	}
	s.refSecrets = d.secretValues
	if len(d.errs) > 0 {
		s.Err = joinErrors(d.errs)
	}
	return s
}

// joinErrors joins like errors.Join but keeps a single error as it is, so
// errors.As still finds a typed error in the common case.
func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return &multiError{errs}
}

type multiError struct{ errs []error }

func (m *multiError) Error() string {
	parts := make([]string, len(m.errs))
	for i, e := range m.errs {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

func (m *multiError) Unwrap() []error { return m.errs }

func (d *decoder) checkURL(raw, expanded, transport string) {
	if d.checkOnly && strings.Contains(raw, "${") {
		return // the real value is only known at load time
	}
	// Quote the url as written: after expansion it may hold a secret.
	u, err := url.Parse(expanded)
	if err != nil || u.Scheme == "" || u.Host == "" {
		d.fail("url", "%q is not an absolute URL (like https://host/mcp)", RedactURL(raw))
		return
	}
	scheme := strings.ToLower(u.Scheme)
	ok := scheme == "http" || scheme == "https"
	want := "http:// or https://"
	if transport == TransportWebSocket {
		ok = ok || scheme == "ws" || scheme == "wss"
		want = "ws://, wss://, http:// or https://"
	}
	if !ok {
		d.fail("url", "scheme %q does not fit transport %s (use %s)", u.Scheme, transport, want)
	}
}

// normalizeTransport accepts our names and those of Claude Code, VS Code and
// others ("streamable-http", "streamableHttp", "ws").
func normalizeTransport(s string) (string, bool) {
	k := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch k {
	case "stdio":
		return TransportStdio, true
	case "sse":
		return TransportSSE, true
	case "http", "streamablehttp", "streamable":
		return TransportHTTP, true
	case "websocket", "ws":
		return TransportWebSocket, true
	}
	return "", false
}

// Name length limits. 16 leaves room for a server prefix and the hash suffix
// that shortens long names. The default, 64, is the limit of the strictest
// model providers; 128 is for clients known to accept longer names.
const (
	MinNameLength = 16
	MaxNameLength = 128
)

func applyNames(n *Names, l *layer) error {
	if l.names == nil {
		return nil
	}
	var errs []error
	for _, k := range sortedKeys(l.names) {
		v := l.names[k]
		switch k {
		case "scheme":
			s, _ := v.(string)
			switch s {
			case SchemePrefixed, SchemeServer, SchemeBare:
				n.Scheme = s
			default:
				errs = append(errs, fmt.Errorf("config: %s: names.scheme: %s is not a name scheme (use %q, %q or %q)", l.source, quoteValue(v), SchemePrefixed, SchemeServer, SchemeBare))
			}
		case "max_length":
			i, ok := asInt(v)
			if !ok || i < MinNameLength || i > MaxNameLength {
				errs = append(errs, fmt.Errorf("config: %s: names.max_length: %s must be a whole number from %d to %d", l.source, quoteValue(v), MinNameLength, MaxNameLength))
				continue
			}
			n.MaxLength = int(i)
		default:
			errs = append(errs, fmt.Errorf("config: %s: names: unknown field %q%s (known: scheme, max_length)", l.source, k, suggest(k, []string{"scheme", "max_length"})))
		}
	}
	if len(errs) > 0 {
		return joinErrors(errs)
	}
	return nil
}

package config

import (
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mcphost/mcphost/pdk/glob"
)

// serverFields are the fields of a server entry, in the order they are
// written and documented.
var serverFields = []string{
	"transport", "command", "args", "env", "cwd", "url", "headers", "enabled",
	"startup_timeout", "request_timeout", "protocol_version", "tools", "max_message_bytes",
	"health_interval", "reconnect", "auth", "oauth", "authorization",
}

// fieldAliases maps other hosts' names to ours: .mcp.json says "type".
var fieldAliases = map[string]string{"type": "transport"}

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

// mergedServer is one id after merging all layers.
type mergedServer struct {
	id      string
	fields  map[string]any
	origins map[string]int // field path ("url", "env.TOKEN") -> index of the layer that set it
	source  int            // the highest layer that defined the id
	errs    []error
	// untrusted: an untrusted project layer contributed more than
	// "enabled: false" (switching a server off needs no trust).
	untrusted bool
}

// mergeServers merges the layers' entries by id: maps (env, headers, tools)
// merge key by key, anything else a higher layer sets replaces the lower
// value. This is koanf's merge rule, with the origin of every value kept so
// that errors name the file the offending value came from.
//
// A project file (trusted or not) cannot change a server that the user's
// own files define: it may switch it on or off, add tools.deny globs and
// tune its timeouts (projectTuning); anything else it says about that
// server is ignored with a warning. Else a
// cloned repository could point the user's server, with the user's headers
// and environment, at a URL or program of its choosing, or lift its deny list.
func mergeServers(layers []*layer, warn func(string, ...any)) []*mergedServer {
	byID := map[string]*mergedServer{}
	userDefined := map[string]bool{}
	var ids []string
	for li, l := range layers {
		for _, id := range sortedKeys(l.servers) {
			e := l.servers[id]
			if l.fromProject() && userDefined[id] {
				e = restrictProjectEntry(l, id, e, byID[id], warn)
				if len(e.fields) == 0 && len(e.errs) == 0 {
					continue
				}
			} else if !l.fromProject() {
				userDefined[id] = true
			}
			ms := byID[id]
			if ms == nil {
				ms = &mergedServer{id: id, fields: map[string]any{}, origins: map[string]int{}}
				byID[id] = ms
				ids = append(ids, id)
			}
			ms.source = li
			ms.errs = append(ms.errs, e.errs...)
			if l.untrusted && !onlyDisables(e.fields) {
				ms.untrusted = true
			}
			mergeInto(ms.fields, e.fields, "", li, ms.origins)
		}
	}
	sort.Strings(ids)
	out := make([]*mergedServer, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out
}

func onlyDisables(fields map[string]any) bool {
	for k, v := range fields {
		if k != "enabled" {
			return false
		}
		if b, ok := asBool(v); !ok || b {
			return false
		}
	}
	return true
}

func mergeInto(dst, src map[string]any, prefix string, li int, origins map[string]int) {
	for _, k := range sortedKeys(src) {
		v := src[k]
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		if vm, ok := v.(map[string]any); ok {
			dm, ok := dst[k].(map[string]any)
			if !ok {
				dm = map[string]any{}
				dst[k] = dm
				dropOrigins(origins, p)
			}
			origins[p] = li
			mergeInto(dm, vm, p, li, origins)
			continue
		}
		dst[k] = v
		dropOrigins(origins, p)
		origins[p] = li
	}
}

func dropOrigins(origins map[string]int, p string) {
	for k := range origins {
		if k == p || strings.HasPrefix(k, p+".") {
			delete(origins, k)
		}
	}
}

// decoder turns one merged entry into a Server.
type decoder struct {
	ms      *mergedServer
	layers  []*layer
	workDir string
	lookup  func(string) (string, bool)
	// checkOnly: validating an entry about to be written. Every variable
	// counts as set and a url holding a reference is only checked for syntax.
	checkOnly bool
	errs      []error
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

// expand expands a value; the error names the variable and the field only.
func (d *decoder) expand(field, s string) (string, bool) {
	out, err := Expand(s, d.lookup)
	if err != nil {
		d.fail(field, "%v", err)
		return "", false
	}
	return out, true
}

// decodeServer validates a merged entry. Every problem lands in Server.Err;
// none ever quotes an env or header value.
func decodeServer(ms *mergedServer, layers []*layer, lookup func(string) (string, bool), workDir string, checkOnly bool) *Server {
	d := &decoder{ms: ms, layers: layers, lookup: lookup, workDir: workDir, checkOnly: checkOnly}
	s := &Server{
		ID:              ms.id,
		Enabled:         true,
		StartupTimeout:  DefaultStartupTimeout,
		RequestTimeout:  DefaultRequestTimeout,
		MaxMessageBytes: DefaultMaxMessageBytes,
		Source:          layers[ms.source].source,
		Untrusted:       ms.untrusted,
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
	}
	s.Env = d.stringMap("env", func(k string) string {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return "bad variable name"
		}
		return ""
	})
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

// str returns a string field ("" when absent); a non-string is an error.
func (d *decoder) str(field string) string {
	v, ok := d.ms.fields[field]
	if !ok || v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		d.fail(field, "must be a string")
		return ""
	}
	return s
}

// stringMap decodes env or headers. Values are expanded and never quoted.
func (d *decoder) stringMap(field string, badKey func(string) string) map[string]string {
	v, ok := d.ms.fields[field]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.fail(field, "must be a map of names to strings")
		return nil
	}
	out := make(map[string]string, len(m))
	for _, k := range sortedKeys(m) {
		p := field + "." + k
		if msg := badKey(k); msg != "" {
			d.fail(field, "%s %q", msg, k)
			continue
		}
		s, ok := scalarString(m[k])
		if !ok {
			d.fail(p, "value must be a string")
			continue
		}
		val, _ := d.expand(p, s)
		if field == "headers" && strings.ContainsAny(val, "\r\n\x00") {
			// A line break would start another header (or a body) on the
			// wire. The value itself is never quoted: it may be a secret.
			d.fail(p, "the value contains a line break (CR or LF) or NUL, which no HTTP header may hold; write it on one line")
			continue
		}
		out[k] = val
	}
	return out
}

// duration accepts a Go duration ("30s", "1m30s") or a number of seconds, as
// Codex users write (startup_timeout_sec = 10).
func (d *decoder) duration(field string, def time.Duration) time.Duration {
	v, ok := d.ms.fields[field]
	if !ok || v == nil {
		return def
	}
	dur, err := parseDuration(v)
	if err != "" {
		d.fail(field, "%s", err)
		return def
	}
	return dur
}

// healthInterval decodes health_interval: a duration, or "off" (also 0 and
// false) for no health checks, which is -1 in Server. Unset stays 0: the
// host applies DefaultHealthInterval.
func (d *decoder) healthInterval() time.Duration {
	const field = "health_interval"
	v, ok := d.ms.fields[field]
	if !ok || v == nil {
		return 0
	}
	if healthOff(v) {
		return -1
	}
	if b, ok := v.(bool); ok && b {
		d.fail(field, "must be a duration like \"30s\", a number of seconds, or \"off\"")
		return 0
	}
	dur, err := parseDuration(v)
	if err != "" {
		d.fail(field, "%s (or \"off\" for no health checks)", err)
		return 0
	}
	return dur
}

// reconnect decodes the reconnect map. Unset values stay zero: the host
// applies the defaults.
func (d *decoder) reconnect() Reconnect {
	var r Reconnect
	v, ok := d.ms.fields["reconnect"]
	if !ok || v == nil {
		return r
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.fail("reconnect", "must be a map with initial_delay, max_delay and max_attempts")
		return r
	}
	r.InitialDelay = d.durationValue("reconnect.initial_delay", m["initial_delay"])
	r.MaxDelay = d.durationValue("reconnect.max_delay", m["max_delay"])
	if r.InitialDelay > 0 && r.MaxDelay > 0 && r.MaxDelay < r.InitialDelay {
		d.fail("reconnect.max_delay", "%s is less than reconnect.initial_delay (%s); max_delay must be at least initial_delay", r.MaxDelay, r.InitialDelay)
	}
	if mv, ok := m["max_attempts"]; ok && mv != nil {
		n, ok := asInt(mv)
		switch {
		case !ok:
			d.fail("reconnect.max_attempts", "must be a whole number (0 means no limit)")
		case n < 0:
			d.fail("reconnect.max_attempts", "must not be negative (0 means no limit)")
		case n > math.MaxInt32:
			d.fail("reconnect.max_attempts", "%d is too large (0 means no limit)", n)
		default:
			r.MaxAttempts = int(n)
		}
	}
	return r
}

// durationValue decodes an optional duration inside a map field; absent or
// invalid gives 0.
func (d *decoder) durationValue(field string, v any) time.Duration {
	if v == nil {
		return 0
	}
	dur, err := parseDuration(v)
	if err != "" {
		d.fail(field, "%s", err)
		return 0
	}
	return dur
}

func (d *decoder) globs(field string, v any) []string {
	if v == nil {
		return nil
	}
	var list []string
	if s, ok := v.(string); ok {
		list = []string{s}
	} else {
		l, ok := scalarList(v)
		if !ok {
			d.fail(field, "must be a list of tool-name globs")
			return nil
		}
		list = l
	}
	var out []string
	for _, g := range list {
		if g == "" {
			d.fail(field, "empty glob")
			continue
		}
		if err := glob.Valid(g); err != nil {
			d.fail(field, "%v (syntax: * ? [abc])", err)
			continue
		}
		out = append(out, g)
	}
	return out
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

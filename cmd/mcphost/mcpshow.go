package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcphost/mcphost/host/clientconf"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/termtext"
)

// How mcp list and mcp get show a configured server.

// target is what a server runs or where it is, for listings; a URL's
// password and query values are redacted unless show.
func target(s *config.Server, show bool) string {
	return entryTarget(config.ServerEntry{Command: s.Command, Args: s.Args, URL: s.URL}, show)
}

// masked shows the keys of a map of secrets with the values masked: an
// authorization scheme stays readable ("Bearer ****"), the rest is ****.
// With show, the values as they are.
func masked(m map[string]string, show bool) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch scheme, _, ok := strings.Cut(v, " "); {
		case show:
			out[k] = v
		case ok && isAuthScheme(scheme):
			out[k] = scheme + " " + config.Redacted
		default:
			out[k] = config.Redacted
		}
	}
	return out
}

func isAuthScheme(s string) bool {
	switch strings.ToLower(s) {
	case "bearer", "basic", "token", "digest", "dpop":
		return true
	}
	return false
}

func describeServer(s *config.Server, show bool) map[string]any {
	d := map[string]any{
		"id": s.ID, "transport": s.Transport, "enabled": s.Enabled, "source": s.Source,
		"untrusted": s.Untrusted, "startup_timeout": s.StartupTimeout.String(),
		"request_timeout": s.RequestTimeout.String(), "max_message_bytes": s.MaxMessageBytes,
	}
	set := func(k string, v any, ok bool) {
		if ok {
			d[k] = v
		}
	}
	set("scope", string(s.Scope), s.Scope != "")
	set("command", s.Command, s.Command != "")
	args := s.Args
	if !show {
		args = clientconf.MaskSecretArgs(args) // the value after --token, --api-key...
	}
	set("args", args, len(args) > 0)
	set("cwd", s.Cwd, s.Cwd != "")
	set("url", target(&config.Server{URL: s.URL}, show), s.URL != "")
	set("env", masked(s.Env, show), len(s.Env) > 0)
	set("env_file", s.EnvFile, s.EnvFile != "")
	set("headers", masked(s.Headers, show), len(s.Headers) > 0)
	set("protocol_version", s.ProtocolVersion, s.ProtocolVersion != "")
	set("tools_allow", s.Tools.Allow, len(s.Tools.Allow) > 0)
	set("tools_deny", s.Tools.Deny, len(s.Tools.Deny) > 0)
	// Health checks and reconnecting, with the defaults the host applies to
	// what is not set (a negative health interval means off).
	switch {
	case s.HealthInterval < 0:
		d["health_interval"] = "off"
	case s.HealthInterval == 0:
		d["health_interval"] = config.DefaultHealthInterval.String()
	default:
		d["health_interval"] = s.HealthInterval.String()
	}
	orDefault := func(v, def time.Duration) time.Duration {
		if v <= 0 {
			return def
		}
		return v
	}
	initial := orDefault(s.Reconnect.InitialDelay, config.DefaultReconnectInitialDelay)
	d["reconnect_initial_delay"] = initial.String()
	// The maximum is never less than the initial delay (a default maximum
	// below a set initial delay gives way to it).
	d["reconnect_max_delay"] = max(orDefault(s.Reconnect.MaxDelay, config.DefaultReconnectMaxDelay), initial).String()
	d["reconnect_max_attempts"] = s.Reconnect.MaxAttempts // 0: no limit
	if s.Err != nil {
		d["error"] = s.Err.Error()
	}
	set("blocked", s.Blocked, s.Blocked != "")
	return d
}

// getOrder is the order of mcp get's fields: what the server is first, the
// details after; fields not named here follow by name.
var getOrder = []string{
	"id", "scope", "source", "enabled", "blocked", "untrusted", "error", "transport", "command", "args", "cwd",
	"env_file", "env", "url", "headers", "tools_allow", "tools_deny",
}

// writeServerText prints describeServer's fields as people write them: a
// list on one line, shell-quoted (args: -y 'two words'); env as KEY=VALUE
// lines and headers as "Name: value" lines under their field; an error one
// line per problem. Every value is escaped for the terminal (it may come
// from a project file).
func writeServerText(w io.Writer, d map[string]any) {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		ia, ib := slices.Index(getOrder, a), slices.Index(getOrder, b)
		switch {
		case ia >= 0 && ib >= 0:
			return ia - ib
		case ia >= 0:
			return -1
		case ib >= 0:
			return 1
		}
		return strings.Compare(a, b)
	})
	width := 0
	for _, k := range keys {
		width = max(width, len(k)+1)
	}
	for _, k := range keys {
		label := fmt.Sprintf("%-*s", width, k+":")
		switch v := d[k].(type) {
		case []string:
			fmt.Fprintf(w, "%s %s\n", label, termtext.Line(shellJoin(v)))
		case map[string]string:
			fmt.Fprintln(w, strings.TrimRight(label, " "))
			sep := "="
			if k == "headers" {
				sep = ": "
			}
			for _, name := range sortedNames(v) {
				fmt.Fprintf(w, "  %s%s%s\n", termtext.Line(name), sep, termtext.Line(v[name]))
			}
		default:
			text := fmt.Sprint(v)
			if k != "error" || !strings.Contains(text, "\n") {
				fmt.Fprintf(w, "%s %s\n", label, termtext.Line(text))
				continue
			}
			fmt.Fprintln(w, strings.TrimRight(label, " "))
			for _, line := range strings.Split(text, "\n") {
				fmt.Fprintf(w, "  %s\n", termtext.Line(line))
			}
		}
	}
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// shellJoin writes words as a POSIX shell would read them back: plain words
// as they are, others in single quotes, those with a control character as
// $'...' with it escaped (planQuote).
func shellJoin(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = planQuote(w)
	}
	return strings.Join(out, " ")
}

// shellQuote writes w as a POSIX shell reads it back: as it is when it is
// made of letters, digits and @%+=:,./_-* (so that a masked "****" reads
// as written), else in single quotes.
func shellQuote(w string) string {
	if w == "" {
		return "''"
	}
	for _, c := range w {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("@%+=:,./_-*", c)) {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}

// noteWidth bounds the NOTE column of mcp list: one line per server, the
// whole problem is in mcp get.
const noteWidth = 120

// listNote is the NOTE of a server in mcp list: its first problem, without
// the file and server the row already shows, on one line and cut to
// noteWidth; how many more there are.
func listNote(s *config.Server) string {
	switch {
	case s.Blocked != "":
		// Before an error: nothing the user fixes makes it run.
		return cutLine(s.Blocked, noteWidth)
	case s.Err != nil:
		lines := strings.Split(strings.TrimSpace(s.Err.Error()), "\n")
		first := strings.TrimPrefix(lines[0], fmt.Sprintf("config: %s: server %q: ", s.Source, s.ID))
		note := "error: " + first
		if len(lines) > 1 {
			note = fmt.Sprintf("%d errors: %s", len(lines), first)
		}
		return cutLine(note, noteWidth)
	case s.Untrusted && s.TrustChanged:
		return "changed since trusted (mcphost trust)"
	case s.Untrusted:
		return "untrusted (mcphost trust)"
	}
	return ""
}

// cutLine escapes s for one line of a table and cuts it to n runes.
func cutLine(s string, n int) string {
	s = termtext.Line(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

package config

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Redacted stands in for a secret value in anything mcphost shows.
const Redacted = "****"

// minSecretLength: shorter values are not scrubbed from output. A value
// such as "1", "true" or "json" would mangle every line (and turn JSON
// output invalid) while protecting nothing; real credentials are longer.
const minSecretLength = 8

// RedactURL shows a server URL without its secrets: the password of
// user:password@ and the value of every query parameter become ****.
// A URL that does not parse is redacted as text (redactURLText), so that an
// error about it can still show what is wrong.
func RedactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return redactURLText(raw)
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Redacted)
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		keys := make([]string, 0, len(q))
		for k := range q {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, url.QueryEscape(k)+"="+Redacted)
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	// url.URL escapes the '*' of the placeholders; show them plainly.
	return strings.ReplaceAll(u.String(), "%2A%2A%2A%2A", Redacted)
}

// redactURLText redacts a URL that does not parse, by its shape: whatever
// follows the first '?' or '#' becomes ****, and so does the password of a
// user:password@. A URL with a space in its password, say,
// is quoted in a config error without it.
func redactURLText(raw string) string {
	rest, tail := raw, ""
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest, tail = rest[:i], rest[i:i+1]+Redacted
	}
	scheme, afterScheme := "", rest
	if i := strings.Index(rest, "://"); i >= 0 {
		scheme, afterScheme = rest[:i+3], rest[i+3:]
	}
	// The last '@' ends the user information, even past a '/' (a password
	// may hold one): redacting part of a path is the safe mistake.
	if at := strings.LastIndexByte(afterScheme, '@'); at >= 0 {
		if colon := strings.IndexByte(afterScheme[:at], ':'); colon >= 0 {
			afterScheme = afterScheme[:colon+1] + Redacted + afterScheme[at:]
		}
	}
	return scheme + afterScheme + tail
}

// SecretValues lists the values that must never appear in output: every
// server's URL password and query values, header values (and the token
// after a scheme such as "Bearer "), env values (env_file's too), the values
// of ${secret:NAME} references wherever they are used, and the plugins'
// secrets.
// Longest first, so that a scrubber replaces a value before any part of it.
func (c *Config) SecretValues() []string {
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		v = strings.TrimSpace(v)
		if len(v) < minSecretLength || isNumber(v) {
			return
		}
		// The value, and the value as it appears inside a URL, a JSON
		// string (--json output) and a quoted log value.
		for _, form := range append([]string{v, url.QueryEscape(v)}, quotedForms(v)...) {
			if !seen[form] {
				seen[form] = true
				out = append(out, form)
			}
		}
	}
	for _, s := range c.Servers {
		if u, err := url.Parse(s.URL); err == nil {
			if u.User != nil {
				if p, ok := u.User.Password(); ok {
					add(p)
				}
			}
			for _, vs := range u.Query() {
				for _, v := range vs {
					add(v)
				}
			}
		}
		for _, v := range s.Headers {
			add(v)
			if _, tok, ok := strings.Cut(v, " "); ok {
				add(tok)
			}
		}
		for _, v := range s.Env {
			add(v)
		}
		for _, v := range s.Auth.Secrets() {
			add(v)
		}
		for _, v := range s.refSecrets {
			add(v)
		}
	}
	for _, p := range c.Plugins {
		for _, v := range p.Secrets {
			add(v)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// quotedForms are v as it appears inside a JSON string (escaped as
// encoding/json does by default, with <, > and & as \u003c..., and without
// that) and inside a Go-quoted string (hclog's quoted values).
func quotedForms(v string) []string {
	var forms []string
	unquote := func(q string) string { return q[1 : len(q)-1] }
	if b, err := json.Marshal(v); err == nil {
		forms = append(forms, unquote(string(b)))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		forms = append(forms, unquote(strings.TrimSuffix(buf.String(), "\n")))
	}
	return append(forms, unquote(strconv.Quote(v)))
}

// isNumber: a number is not scrubbed (it could be part of JSON syntax in
// the output, and a configuration's numbers are not its secrets).
func isNumber(v string) bool {
	_, err := strconv.ParseFloat(v, 64)
	return err == nil
}

package clientconf

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mcphost/mcphost/host/config"
)

// displayName is how messages name a kind's client.
func displayName(kind Kind) string {
	switch kind {
	case ClaudeDesktop:
		return "Claude Desktop"
	case ClaudeCode:
		return "Claude Code"
	case Cursor:
		return "Cursor"
	case Windsurf:
		return "Windsurf"
	case VSCode:
		return "VS Code"
	case Codex:
		return "Codex"
	case Gemini:
		return "Gemini CLI"
	case Zed:
		return "Zed"
	case Goose:
		return "Goose"
	case Codelia:
		return "Codelia"
	case Beans:
		return "Beans"
	case Tenx:
		return "tenx"
	}
	return string(kind)
}

// vsInput is one entry of VS Code's "inputs".
type vsInput struct {
	Type        string
	Description string
	Password    bool
	Default     string
	Options     []string
}

// entryReader reads one server entry: every field it takes is marked, and
// what is left is dropped with a note, never silently.
type entryReader struct {
	kind  Kind
	m     map[string]any
	used  map[string]bool
	im    *Imported
	env   Env
	style refStyle
	// source names where the entry comes from (the client file's path):
	// the keychain names of its secrets are made unique to it.
	source string
	inputs map[string]vsInput // VS Code's inputs, by id
	// transport is the client's explicit transport in mcphost's spelling;
	// "" infers it from command or url.
	transport string
	// skipReason, once set, keeps the server out of the import.
	skipReason string
}

func newEntryReader(kind Kind, m map[string]any, im *Imported, env Env, source string) *entryReader {
	return &entryReader{kind: kind, m: m, used: map[string]bool{}, im: im, env: env, style: styleOf(kind), source: source}
}

func (r *entryReader) skip(format string, args ...any) {
	if r.skipReason == "" {
		r.skipReason = fmt.Sprintf(format, args...)
	}
}

// take returns field k and marks it read; null counts as absent.
func (r *entryReader) take(k string) (any, bool) {
	v, ok := r.m[k]
	if ok {
		r.used[k] = true
	}
	return v, ok && v != nil
}

// drop marks field k read and records why it is left out (if it is there).
func (r *entryReader) drop(k, reason string) {
	if _, ok := r.m[k]; ok {
		r.used[k] = true
		r.im.drop(k, reason)
	}
}

// unknown drops every field no reader took.
func (r *entryReader) unknown() {
	for _, k := range sortedNames(r.m) {
		if !r.used[k] {
			r.used[k] = true
			r.im.drop(printableField(k), fmt.Sprintf("not a %s field mcphost knows", displayName(r.kind)))
		}
	}
}

// printableField keeps a field name from a file short in messages.
func printableField(k string) string {
	if len(k) > 64 {
		return k[:64] + "..."
	}
	return k
}

// scalarText is a scalar as text (numbers and booleans as written).
func scalarText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	case bool:
		return strconv.FormatBool(t), true
	case int64:
		return strconv.FormatInt(t, 10), true
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64), true
	case int:
		return strconv.Itoa(t), true
	case uint64:
		return strconv.FormatUint(t, 10), true
	}
	return "", false
}

// number reads a numeric scalar (a number in a string too).
func numberOf(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	case int64:
		return float64(t), true
	case uint64:
		return float64(t), true
	case int:
		return float64(t), true
	case float64:
		return t, !math.IsInf(t, 0) && !math.IsNaN(t)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	return 0, false
}

// text reads a string field as written.
func (r *entryReader) text(k string) (string, bool) {
	v, ok := r.take(k)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		r.im.drop(k, "not a string")
		return "", false
	}
	return s, true
}

// value reads a string field and converts its variable references;
// expands says whether mcphost expands ${VAR} in the field.
func (r *entryReader) value(k string, expands bool) (string, bool) {
	s, ok := r.text(k)
	if !ok {
		return "", false
	}
	out, reason := r.convert(k, s, expands)
	if reason != "" {
		r.im.drop(k, reason)
		return "", false
	}
	return out, true
}

// list reads a list of scalars as written.
func (r *entryReader) list(k string) ([]string, bool) {
	v, ok := r.take(k)
	if !ok {
		return nil, false
	}
	l, ok := v.([]any)
	if !ok {
		if s, isStr := v.(string); isStr && (k == "args") {
			// A single argument written as a string: one argument.
			r.im.convertf("%s: a single string taken as one argument", k)
			return []string{s}, true
		}
		r.im.drop(k, "not a list of strings")
		return nil, false
	}
	out := make([]string, 0, len(l))
	for _, e := range l {
		s, ok := scalarText(e)
		if !ok {
			r.im.drop(k, "not a list of strings")
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// convertScalar converts v, the value of field, for a field mcphost
// expands; a value that is not a scalar (notText says so) or that cannot
// be converted is dropped.
func (r *entryReader) convertScalar(field string, v any, notText string) (string, bool) {
	s, ok := scalarText(v)
	if !ok {
		r.im.drop(field, notText)
		return "", false
	}
	c, reason := r.convert(field, s, true)
	if reason != "" {
		r.im.drop(field, reason)
		return "", false
	}
	return c, true
}

// values reads a list field and converts every element.
func (r *entryReader) values(k string) []string {
	l, ok := r.list(k)
	if !ok || len(l) == 0 {
		return nil
	}
	out := make([]string, len(l))
	for i, s := range l {
		c, reason := r.convert(fmt.Sprintf("%s[%d]", k, i), s, true)
		if reason != "" {
			r.im.drop(k, fmt.Sprintf("element %d: %s", i, reason))
			return nil
		}
		out[i] = c
	}
	return out
}

// valueMap reads env or headers (header: names must be HTTP tokens):
// a bad name or an inconvertible value drops that key alone.
func (r *entryReader) valueMap(k string, header bool) map[string]string {
	v, ok := r.take(k)
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		r.im.drop(k, "not a map of names to strings")
		return nil
	}
	out := map[string]string{}
	for _, name := range sortedNames(m) {
		field := k + "." + printableField(name)
		switch {
		case header && !config.ValidHeaderName(name):
			r.im.drop(field, "not a valid HTTP header name")
			continue
		case !header && (name == "" || strings.ContainsAny(name, "=\x00")):
			r.im.drop(field, "not a valid environment variable name")
			continue
		}
		if c, ok := r.convertScalar(field, m[name], "the value is not a string"); ok {
			out[name] = c
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// boolean reads a true/false field ("true" and "false" as strings too).
func (r *entryReader) boolean(k string) (bool, bool) {
	v, ok := r.take(k)
	if !ok {
		return false, false
	}
	switch t := v.(type) {
	case bool:
		return t, true
	case string:
		if b, err := strconv.ParseBool(t); err == nil {
			return b, true
		}
	}
	r.im.drop(k, "not true or false")
	return false, false
}

// num reads a number field (a number in a string too); negative is wrong.
func (r *entryReader) num(k string) (float64, bool) {
	v, ok := r.take(k)
	if !ok {
		return 0, false
	}
	f, ok := numberOf(v)
	if !ok || f < 0 {
		r.im.drop(k, "not a positive number")
		return 0, false
	}
	return f, true
}

// object reads a nested map field.
func (r *entryReader) object(k string) (map[string]any, bool) {
	v, ok := r.take(k)
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		r.im.drop(k, "not an object")
		return nil, false
	}
	return m, true
}

// setTransport takes the client's transport name.
func (r *entryReader) setTransport(field, name string) {
	t, ok := transportOf(name)
	if !ok {
		r.skip("%s %q is not a transport mcphost knows (stdio, sse, http, websocket)", field, printableField(name))
		return
	}
	if norm := strings.ToLower(name); norm != t {
		r.im.convertf("%s %q → transport %s", field, printableField(name), t)
	}
	r.transport = t
}

// transportOf spells a client's transport name as mcphost does.
func transportOf(s string) (string, bool) {
	k := strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch k {
	case "stdio", "local", "command":
		return config.TransportStdio, true
	case "sse":
		return config.TransportSSE, true
	case "http", "streamablehttp", "streamable", "remote":
		return config.TransportHTTP, true
	case "websocket", "ws":
		return config.TransportWebSocket, true
	}
	return "", false
}

// durationText writes a number of units (seconds, milliseconds) as an
// mcphost duration: whole seconds as "20s", anything finer in whole
// milliseconds (rounded up: a timeout never gets shorter).
func durationText(n float64, unit string) string {
	ms := n
	if unit != "ms" {
		ms = n * 1000
	}
	ms = math.Ceil(ms)
	if ms >= 1000 && math.Mod(ms, 1000) == 0 {
		return strconv.FormatFloat(ms/1000, 'f', -1, 64) + "s"
	}
	return strconv.FormatFloat(ms, 'f', -1, 64) + "ms"
}

// settle decides the transport and takes out what does not belong to it.
func (r *entryReader) settle() {
	e := &r.im.Entry
	t := r.transport
	if t == "" {
		switch {
		case e.Command != "" && e.URL != "":
			r.skip("it has both a command and a url, and no type that says which to use")
			return
		case e.URL != "":
			t = config.TransportHTTP
		case e.Command != "":
			t = config.TransportStdio
		default:
			r.skip("it has neither a command nor a url that mcphost could use")
			return
		}
	}
	if t == config.TransportStdio {
		if e.Command == "" {
			r.skip("a stdio server without a command")
			return
		}
		dropIf := func(field string, set bool, reason string) {
			if set {
				r.im.drop(field, reason)
			}
		}
		dropIf("url", e.URL != "", "a stdio server has no url")
		dropIf("headers", len(e.Headers) > 0, "headers are for remote servers; a stdio server gets env")
		dropIf("auth", len(e.Auth) > 0 || len(e.OAuth) > 0, "authorization is for remote servers; a stdio server gets its credentials through env")
		e.URL, e.Headers, e.Auth, e.OAuth = "", nil, nil, nil
	} else {
		if e.URL == "" {
			r.skip("a %s server without a url", t)
			return
		}
		if e.Command != "" || len(e.Args) > 0 {
			r.im.drop("command", "a remote server is not started by mcphost")
		}
		if len(e.Env) > 0 {
			r.im.drop("env", "a remote server gets no environment variables")
		}
		if e.Cwd != "" {
			r.im.drop("cwd", "a remote server has no working directory")
		}
		e.Command, e.Args, e.Env, e.Cwd = "", nil, nil, ""
		r.clearEnvFile(e)
	}
	if t == config.TransportSSE || t == config.TransportWebSocket {
		e.Transport = t
	}
}

func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

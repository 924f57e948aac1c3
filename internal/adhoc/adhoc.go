// Package adhoc builds the configuration for a server typed on the command
// line, as with the MCP Inspector: a command to start (mcphost tools -- npx
// -y some-server) or a URL with headers (mcphost call --url URL tool). The
// server is used once and written nowhere.
//
// It is trusted like a --config file: the person typed it. Everything else
// of the configuration still applies to it (plugins, policy, confirmation
// of destructive tools, result limits, naming); only the configured
// servers are left out.
package adhoc

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcphost/mcphost/host/config"
)

// ID is the id of the ad-hoc server, unless the configuration has a server
// of that id (then ID-2, ID-3, ...): its tools are mcp__adhoc__TOOL.
const ID = "adhoc"

// Source is what Status shows as the server's source.
const Source = "command line"

// Spec is a server as typed on the command line.
type Spec struct {
	// Command is the command that starts a stdio server and its arguments
	// (the words after --).
	Command []string
	// URL is the address of an http (Streamable HTTP), sse or websocket
	// server.
	URL string
	// Headers are HTTP headers, "Name: value" (as curl takes them) or
	// "Name=value"; values may hold ${VAR} references.
	Headers []string
	// Transport is stdio, http, sse or websocket; "" is http for a URL and
	// stdio for a command.
	Transport string
	// Env holds KEY=VALUE variables for the command.
	Env []string
}

// IsSet reports whether the spec gives a server at all (or any of its
// parts, which then must be complete).
func (s Spec) IsSet() bool {
	return len(s.Command) > 0 || s.URL != "" || len(s.Headers) > 0 || s.Transport != "" || len(s.Env) > 0
}

// Config returns the configuration of opts with its servers replaced by
// the ad-hoc server alone. base is the configuration opts load (read
// beforehand, so that its warnings are shown once); it says which ids are
// taken. The server goes through the same checks and ${VAR} expansion as
// one in a file. Errors say which flag to fix.
func Config(opts config.LoadOptions, base *config.Config, spec Spec) (*config.Config, error) {
	fields, err := spec.fields()
	if err != nil {
		return nil, err
	}
	id := freeID(base)
	over := make(map[string]any, len(opts.Overrides)+1)
	for k, v := range opts.Overrides {
		over[k] = v
	}
	over["servers."+id] = fields
	opts.Overrides = over
	cfg, err := config.Load(opts)
	if err != nil {
		return nil, err
	}
	for _, s := range cfg.Servers {
		if s.ID != id {
			continue
		}
		if s.Err != nil {
			return nil, flagError(id, s.Err)
		}
		s.Source = Source
		s.AdHoc = true
		cfg.Servers = []*config.Server{s}
		return cfg, nil
	}
	if key, locked := cfg.Managed.Locked("servers." + id); locked {
		return nil, fmt.Errorf("ad-hoc server: the administrator locked %s (lock_settings in %s): no server can be added from the command line", key, strings.Join(cfg.Managed.Files, ", "))
	}
	return nil, fmt.Errorf("ad-hoc server: the configuration lost server %q (a bug)", id)
}

// freeID is ID, or the first ID-N no configured server has.
func freeID(base *config.Config) string {
	taken := map[string]bool{}
	if base != nil {
		for _, s := range base.Servers {
			taken[s.ID] = true
		}
	}
	id := ID
	for n := 2; taken[id]; n++ {
		id = ID + "-" + strconv.Itoa(n)
	}
	return id
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// fields checks the spec and returns it as a server entry's fields. No
// error quotes a header or env value: they hold secrets.
func (s Spec) fields() (map[string]any, error) {
	hasCommand, hasURL := len(s.Command) > 0, s.URL != ""
	switch {
	case hasCommand && hasURL:
		return nil, errors.New("ad-hoc server: give either a command after -- or --url, not both")
	case !hasCommand && !hasURL:
		return nil, errors.New("ad-hoc server: give the command to start after -- (mcphost tools -- npx -y SERVER), or --url URL")
	case hasCommand && s.Command[0] == "":
		return nil, errors.New("ad-hoc server: the command after -- is empty")
	case hasCommand && len(s.Headers) > 0:
		return nil, errors.New("ad-hoc server: --header is for --url servers; a command takes --env")
	case hasURL && len(s.Env) > 0:
		return nil, errors.New("ad-hoc server: --env is for a command after --; a --url server takes --header")
	}
	f := map[string]any{}
	if s.Transport != "" {
		t := strings.ToLower(strings.TrimSpace(s.Transport))
		if hasCommand && t != config.TransportStdio {
			return nil, fmt.Errorf("ad-hoc server: --transport %s needs --url; a command after -- is a stdio server", strconv.Quote(s.Transport))
		}
		if hasURL && t == config.TransportStdio {
			return nil, errors.New("ad-hoc server: --transport stdio needs a command after --, not --url")
		}
		f["transport"] = s.Transport
	}
	if hasCommand {
		f["command"] = s.Command[0]
		args := make([]any, len(s.Command)-1)
		for i, a := range s.Command[1:] {
			args[i] = a
		}
		if len(args) > 0 {
			f["args"] = args
		}
	}
	if hasURL {
		f["url"] = s.URL
	}
	if len(s.Headers) > 0 {
		h, err := headers(s.Headers)
		if err != nil {
			return nil, err
		}
		f["headers"] = h
	}
	if len(s.Env) > 0 {
		env := map[string]any{}
		for i, kv := range s.Env {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || !envName.MatchString(k) {
				return nil, fmt.Errorf("ad-hoc server: --env %d: write KEY=VALUE with a variable name of letters, digits and _ (the entry is not shown: it may hold a secret)", i+1)
			}
			env[k] = v
		}
		f["env"] = env
	}
	return f, nil
}

// headers reads "Name: value" and "Name=value": the name ends at the first
// ":" or "=", neither of which a header name may hold.
func headers(list []string) (map[string]any, error) {
	out := map[string]any{}
	for i, h := range list {
		cut := strings.IndexAny(h, ":=")
		if cut <= 0 {
			return nil, fmt.Errorf("ad-hoc server: --header %d: write \"Name: value\" (or Name=value) (the header is not shown: it may hold a secret)", i+1)
		}
		name, value := strings.TrimSpace(h[:cut]), strings.TrimSpace(h[cut+1:])
		if !config.ValidHeaderName(name) {
			return nil, fmt.Errorf("ad-hoc server: --header %d: %s is not a header name (letters, digits and !#$%%&'*+-.^_`|~)", i+1, strconv.Quote(name))
		}
		out[name] = value
	}
	return out, nil
}

// flagError rewrites a configuration error about the ad-hoc server to name
// the flag to fix instead of a field of a file.
func flagError(id string, err error) error {
	msg := err.Error()
	prefix := fmt.Sprintf("server %q: ", id)
	var parts []string
	for _, p := range strings.Split(msg, "\n") {
		p = strings.TrimSpace(p)
		if i := strings.Index(p, prefix); i >= 0 {
			p = p[i+len(prefix):]
		}
		for field, flag := range fieldFlags {
			if rest, ok := strings.CutPrefix(p, field+": "); ok {
				p = flag + ": " + rest
				break
			}
			if rest, ok := strings.CutPrefix(p, field+"."); ok { // headers.NAME: ...
				p = flag + " " + rest
				break
			}
		}
		if p != "" {
			parts = append(parts, p)
		}
	}
	return errors.New("ad-hoc server: " + strings.Join(parts, "; "))
}

var fieldFlags = map[string]string{
	"url": "--url", "headers": "--header", "transport": "--transport", "env": "--env",
	"command": "the command after --", "args": "the arguments after --",
}

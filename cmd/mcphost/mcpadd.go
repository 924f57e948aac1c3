package main

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
)

// keyValues parses repeated K=V flags. hint, if any, says more about what
// the flag is for. An entry is never echoed: it may hold a secret.
func keyValues(flag, hint string, items []string) (map[string]string, error) {
	if len(items) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for _, it := range items {
		k, v, ok := strings.Cut(it, "=")
		if !ok || k == "" {
			what := "has no \"=\""
			if ok {
				what = "has no name before \"=\""
			}
			return nil, usageError("--%s: an entry %s: write KEY=VALUE%s (the entry is not shown: it may hold a secret)", flag, what, hint)
		}
		m[k] = v
	}
	return m, nil
}

// headerValues parses repeated -H flags written as curl and Claude Code
// take them ("Name: value") or as mcphost always did (Name=value): the
// name ends at the first ':' or '=', neither of which a header name may
// hold. An entry is never echoed: it may hold a secret.
func headerValues(items []string) (map[string]string, error) {
	if len(items) == 0 {
		return nil, nil
	}
	m := map[string]string{}
	for i, it := range items {
		cut := strings.IndexAny(it, ":=")
		if cut < 0 || strings.TrimSpace(it[:cut]) == "" {
			return nil, usageError(`--header %d: write "Name: value" or Name=value (the header is not shown: it may hold a secret)`, i+1)
		}
		name, value := strings.TrimSpace(it[:cut]), it[cut+1:]
		if it[cut] == ':' {
			value = strings.TrimSpace(value)
		}
		if !config.ValidHeaderName(name) {
			return nil, usageError("--header %d: %q is not a header name (letters, digits and !#$%%&'*+-.^_`|~)", i+1, name)
		}
		m[name] = value
	}
	return m, nil
}

// urlArgument reports whether a positional argument of mcp add is a
// server URL (http, https, ws or wss with a host) rather than a command.
func urlArgument(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ws", "wss":
		return true
	}
	return false
}

func isWebSocketURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "ws://") || strings.HasPrefix(l, "wss://")
}

// addHint is added to cobra's "unknown flag" error of mcp add: the flag
// most likely belongs to the server's command.
const addHint = "flags of the server's command go after --: mcphost mcp add ID -- CMD ARGS..."

func (a *app) mcpAddCommand() *cobra.Command {
	var (
		e                               addEntry
		envs, headers                   []string
		includeTools, excludeTools      []string
		scopeName                       string
		replace, disabled               bool
		reconnect                       config.ReconnectEntry
		oauthID, oauthSecret, bearerEnv string
		oauthScopes                     []string
	)
	cmd := &cobra.Command{
		Use:   "add ID [URL | CMD [ARGS...]] [flags] [-- CMD ARGS...]",
		Short: "Add a server to your local, the project's or your user config",
		Long: `Add a server to a config file, after checking the entry.

A remote server is given as a URL (mcp add ID URL, or --url URL); its
transport is http (Streamable HTTP) unless -t/--transport says sse, or the
URL is ws:// or wss:// (websocket). A stdio server is given as the command
and its arguments (mcp add ID CMD ARGS...), or after -- when an argument
starts with "-" (mcp add ID -- npx -y PKG), or with --command and --arg.

-s/--scope local (the default) keeps the server private to you, in this
directory: it is written to a file of your config directory for this
directory, not to the project, and needs no "mcphost trust". --scope project
writes .mcphost.yaml (or the existing .mcphost.*) in the current directory,
to share with the project; its servers start only after you run "mcphost
trust" (again after every change). --scope user (formerly "global") writes
your config file, for every project. Where an id is in several scopes,
local wins over project, and project over user.

Values of -e/--env and -H/--header may hold ${VAR} references (environment
variables) and ${secret:NAME} references (see "mcphost secret set"),
expanded when the server starts; they are never printed.
--env-file names a file of KEY=VALUE lines (dotenv syntax) whose variables
the server gets too (-e wins). --include-tools and --exclude-tools take
tool-name globs (comma-separated or repeated) and write tools.allow and
tools.deny.

--startup-timeout, --request-timeout, --health-interval and the
--reconnect-* flags set the entry's fields of the same names; a duration is
written as given (30s, 1m30s, or a number of seconds). Left out, the
defaults apply: health checks every 30s, reconnect waits from 500ms
doubling up to 30s, with no limit on attempts.

Authorization of a remote server: a server that asks for OAuth needs nothing
here — run "mcphost login ID" after adding it. --oauth-client-id (with
--oauth-client-secret and --oauth-scope) writes an oauth block for a client
registered with the server's authorization server in advance; the secret is
kept in the OS keychain (or mcp-auth.json), not in the config file, unless it
is given as a ${VAR} or ${secret:NAME} reference. --bearer-token-env NAME
sends the token in the environment variable NAME as "Authorization: Bearer
...".`,
		Example: `  mcphost mcp add linear https://mcp.linear.app/mcp && mcphost login linear
  mcphost mcp add everything -- npx -y @modelcontextprotocol/server-everything
  mcphost mcp add memory npx @modelcontextprotocol/server-memory
  mcphost mcp add github https://api.githubcopilot.com/mcp/ -H 'Authorization: Bearer ${secret:github}'
  mcphost mcp add files -s project -e ROOT=. --exclude-tools 'write_*,delete_*' -- npx -y @modelcontextprotocol/server-filesystem .
  mcphost mcp add api https://api.example.com/mcp --bearer-token-env API_TOKEN -s user
  mcphost mcp add corp https://mcp.corp.example/mcp --oauth-client-id mcphost --oauth-scope tools.read
  mcphost mcp add events https://mcp.example.com/sse -t sse
  mcphost mcp add local-ws ws://127.0.0.1:8080/mcp
  mcphost mcp add flaky --health-interval 1m --reconnect-max-delay 2m --reconnect-max-attempts 10 -- ./server`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e.ID = args[0]
			if err := e.takePositional(cmd, args); err != nil {
				return err
			}
			if (e.Command == "") == (e.URL == "") {
				return usageError("give the server: a URL (mcp add ID URL, or --url) or a command (mcp add ID CMD ARGS..., -- CMD ARGS..., or --command)")
			}
			if e.Command != "" && len(headers) > 0 {
				return usageError("--header is for remote servers (a URL); a stdio server takes --env")
			}
			if e.URL != "" && (len(envs) > 0 || e.Cwd != "" || len(e.Args) > 0 || e.EnvFile != "") {
				return usageError("--env, --env-file, --cwd and --arg are for servers started with a command; a remote server (a URL) takes --header")
			}
			if e.Transport == "" && isWebSocketURL(e.URL) {
				e.Transport = config.TransportWebSocket
			}
			var err error
			if e.Env, err = keyValues("env", "", envs); err != nil {
				return err
			}
			if e.Headers, err = headerValues(headers); err != nil {
				return err
			}
			if len(includeTools) > 0 || len(excludeTools) > 0 {
				e.Tools = &config.ToolsEntry{Allow: includeTools, Deny: excludeTools}
			}
			storeSecret, err := e.takeAuthFlags(oauthID, oauthSecret, bearerEnv, oauthScopes)
			if err != nil {
				return err
			}
			if disabled {
				f := false
				e.Enabled = &f
			}
			if err := checkHealthReconnect(e.HealthInterval, reconnect); err != nil {
				return err
			}
			if reconnect != (config.ReconnectEntry{}) {
				r := reconnect
				e.Reconnect = &r
			}
			scope, err := parseScope(scopeName, false)
			if err != nil {
				return err
			}
			if err := e.Validate(); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			path, err := config.AddServer(a.loadOptions(), scope, config.ServerEntry(e), replace)
			if errors.Is(err, config.ErrServerExists) {
				return usageError("%v\npass --replace to overwrite it", err)
			}
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "added server %q to %s%s\n", e.ID, path, scopeNote(scope))
			if storeSecret != "" {
				store, err := a.tokenStore()
				if err == nil {
					err = store.Save(e.ID, &authn.Record{Resource: e.URL, ClientID: oauthID, ClientSecret: storeSecret, Updated: time.Now().UTC()})
				}
				if err != nil {
					return fmt.Errorf("the entry was written, but the client secret could not be kept: %w", err)
				}
				fmt.Fprintf(a.stdout, "kept the client secret in the %s\n", store.Name())
			}
			a.shadowNotes(scope, e.ID)
			a.missingCommandWarning(scope, e.ID)
			a.trustHint(scope, e.ID)
			return nil
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		if strings.HasPrefix(err.Error(), "unknown flag") || strings.HasPrefix(err.Error(), "unknown shorthand flag") {
			return fmt.Errorf("%w\n%s", err, addHint)
		}
		return err
	})
	f := cmd.Flags()
	f.StringVar(&e.Command, "command", "", "command that starts a stdio server")
	f.StringArrayVar(&e.Args, "arg", nil, "argument for the command (repeatable)")
	f.StringArrayVarP(&envs, "env", "e", nil, "environment variable KEY=VALUE for the command (repeatable; ${VAR} and ${secret:NAME} allowed)")
	f.StringVar(&e.EnvFile, "env-file", "", "file of KEY=VALUE lines for the command's environment (relative to this directory)")
	f.StringVar(&e.Cwd, "cwd", "", "working directory for the command")
	f.StringVar(&e.URL, "url", "", "URL of an sse, http or websocket server (or give it as the second argument)")
	f.StringArrayVarP(&headers, "header", "H", nil, `HTTP header "Name: value" or Name=value (repeatable; ${VAR} and ${secret:NAME} allowed)`)
	f.StringVarP(&e.Transport, "transport", "t", "", "stdio, sse, http or websocket (default: stdio with a command, http with a URL, websocket with ws://)")
	f.StringSliceVar(&includeTools, "include-tools", nil, "only these tools (name globs, comma-separated or repeated): tools.allow")
	f.StringSliceVar(&excludeTools, "exclude-tools", nil, "never these tools (name globs, comma-separated or repeated): tools.deny")
	f.StringVar(&e.StartupTimeout, "startup-timeout", "", "how long connecting may take (e.g. 30s)")
	f.StringVar(&e.RequestTimeout, "request-timeout", "", "deadline of each request (e.g. 60s)")
	f.StringVar(&e.HealthInterval, "health-interval", "", `time between health checks of the ready server (e.g. 1m), or "off" (default 30s)`)
	f.StringVar(&reconnect.InitialDelay, "reconnect-initial-delay", "", "wait before the first reconnect attempt, doubled after each failure (default 500ms)")
	f.StringVar(&reconnect.MaxDelay, "reconnect-max-delay", "", "longest wait between reconnect attempts, at least the initial delay (default 30s)")
	f.IntVar(&reconnect.MaxAttempts, "reconnect-max-attempts", 0, "failed connects in a row after which the server is left in error (default 0: no limit)")
	f.StringVarP(&scopeName, "scope", "s", string(config.ScopeLocal), "local (only you, in this directory), project (.mcphost.yaml, shared) or user (your config file, every project)")
	f.BoolVar(&replace, "replace", false, "replace an existing entry with the same id")
	f.BoolVar(&disabled, "disabled", false, "add it disabled")
	f.StringVar(&oauthID, "oauth-client-id", "", "OAuth client ID registered in advance with the server's authorization server")
	f.StringVar(&oauthSecret, "oauth-client-secret", "", "its client secret (kept in the OS keychain or mcp-auth.json; or a ${VAR} or ${secret:NAME} reference)")
	f.StringArrayVar(&oauthScopes, "oauth-scope", nil, "OAuth scope to ask for (repeatable)")
	f.StringVar(&bearerEnv, "bearer-token-env", "", `environment variable holding a bearer token (sent as "Authorization: Bearer ...")`)
	return cmd
}

// addEntry is the entry mcp add builds, with the steps that read flags.
type addEntry config.ServerEntry

// takePositional reads what follows the id: a URL, a command and its
// arguments (Gemini CLI's style), or the words after --.
func (e *addEntry) takePositional(cmd *cobra.Command, args []string) error {
	rest := args[1:]
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		if dash != 1 || len(rest) == 0 {
			return usageError("write the command after --: mcphost mcp add ID -- CMD ARGS...")
		}
		if e.Command != "" {
			return usageError("give the command either with --command or after --, not both")
		}
		e.Command, e.Args = rest[0], append(rest[1:], e.Args...)
		return nil
	}
	if len(rest) == 0 {
		return nil
	}
	if urlArgument(rest[0]) {
		switch {
		case len(rest) > 1:
			return usageError("unexpected arguments %q after the URL (headers go in -H \"Name: value\")", rest[1:])
		case e.URL != "":
			return usageError("give the URL either as an argument or with --url, not both")
		}
		e.URL = rest[0]
		return nil
	}
	if e.Command != "" {
		return usageError("give the command either with --command or as arguments, not both")
	}
	// -y is mcphost's --yes, which means nothing to mcp add: here it was
	// meant for the command (npx -y PKG), and cobra took it.
	if cmd.Flags().Changed("yes") {
		return usageError("-y/--yes means nothing to mcp add: if it is the command's (npx -y PKG), put the command after --: mcphost mcp add ID -- CMD ARGS...")
	}
	e.Command, e.Args = rest[0], append(rest[1:], e.Args...)
	return nil
}

// takeAuthFlags writes the auth or oauth block the --oauth-* and
// --bearer-token-env flags ask for. It returns a literal client secret to
// keep in the token store (never in the file).
func (e *addEntry) takeAuthFlags(oauthID, oauthSecret, bearerEnv string, oauthScopes []string) (string, error) {
	if e.Command != "" && (oauthID != "" || oauthSecret != "" || len(oauthScopes) > 0 || bearerEnv != "") {
		return "", usageError("--oauth-* and --bearer-token-env are for remote servers (a URL)")
	}
	if bearerEnv != "" {
		if oauthID != "" || oauthSecret != "" || len(oauthScopes) > 0 {
			return "", usageError("give either --bearer-token-env or the --oauth-* flags, not both")
		}
		if !envNamePattern.MatchString(bearerEnv) {
			return "", usageError("--bearer-token-env %q: give the name of an environment variable (letters, digits, _)", bearerEnv)
		}
		e.Auth = map[string]any{"type": "bearer", "token": "${" + bearerEnv + "}"}
	}
	if oauthSecret != "" && oauthID == "" {
		return "", usageError("--oauth-client-secret needs --oauth-client-id")
	}
	if oauthID == "" && len(oauthScopes) == 0 {
		return "", nil
	}
	e.OAuth = map[string]any{}
	if oauthID != "" {
		e.OAuth["client_id"] = oauthID
	}
	if len(oauthScopes) > 0 {
		var sc []any
		for _, s := range oauthScopes {
			for _, f := range strings.Fields(s) {
				sc = append(sc, f)
			}
		}
		e.OAuth["scopes"] = sc
	}
	if oauthSecret == "" {
		return "", nil
	}
	if config.IsSecretRef(oauthSecret) {
		e.OAuth["client_secret"] = oauthSecret
		return "", nil
	}
	return oauthSecret, nil
}

func (e addEntry) Validate() error { return config.ServerEntry(e).Validate() }

// scopeNote says, after a path, what a write to scope means for the user.
func scopeNote(scope config.Scope) string {
	switch scope {
	case config.ScopeLocal:
		return " (local: only you, in this directory)"
	case config.ScopeUser:
		return " (user: every project)"
	}
	return ""
}

var envNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkHealthReconnect checks the values of --health-interval and the
// --reconnect-* flags, each by the loader's own rule for its field (an entry
// holding only that field is validated), so that what passes here loads and
// what does not is refused naming the flag.
func checkHealthReconnect(health string, r config.ReconnectEntry) error {
	valid := func(e config.ServerEntry) bool {
		e.ID, e.Command = "flag-check", "flag-check"
		return e.Validate() == nil
	}
	const duration = "must be a positive duration like 500ms, 30s or 1m30s (or a number of seconds)"
	if health != "" && !valid(config.ServerEntry{HealthInterval: health}) {
		return usageError(`--health-interval %q: %s, or "off" for no health checks`, health, duration)
	}
	if r.InitialDelay != "" && !valid(config.ServerEntry{Reconnect: &config.ReconnectEntry{InitialDelay: r.InitialDelay}}) {
		return usageError("--reconnect-initial-delay %q: %s", r.InitialDelay, duration)
	}
	if r.MaxDelay != "" && !valid(config.ServerEntry{Reconnect: &config.ReconnectEntry{MaxDelay: r.MaxDelay}}) {
		return usageError("--reconnect-max-delay %q: %s", r.MaxDelay, duration)
	}
	if r.InitialDelay != "" && r.MaxDelay != "" && !valid(config.ServerEntry{Reconnect: &config.ReconnectEntry{InitialDelay: r.InitialDelay, MaxDelay: r.MaxDelay}}) {
		return usageError("--reconnect-max-delay %s is less than --reconnect-initial-delay %s: the wait only grows, so the maximum must be at least the initial delay", r.MaxDelay, r.InitialDelay)
	}
	if r.MaxAttempts != 0 && !valid(config.ServerEntry{Reconnect: &config.ReconnectEntry{MaxAttempts: r.MaxAttempts}}) {
		return usageError("--reconnect-max-attempts %d: must be a whole number from 0 (no limit, the default) to %d", r.MaxAttempts, math.MaxInt32)
	}
	return nil
}

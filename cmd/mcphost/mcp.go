package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/authn"
	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/termtext"
)

func (a *app) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Manage the configured servers (add, list, get, remove, enable, disable, test)",
		// cobra does not reject unknown subcommands of a command without Run.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError("unknown command %q for \"mcphost mcp\" (see \"mcphost mcp --help\")", args[0])
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(a.mcpAddCommand(), a.mcpListCommand(), a.mcpGetCommand(), a.mcpRemoveCommand(),
		a.mcpEnableCommand(true), a.mcpEnableCommand(false), a.mcpTestCommand())
	return cmd
}

func parseScope(s string, allowEffective bool) (config.Scope, error) {
	scope, err := config.ParseScope(s)
	if err != nil {
		return "", &exitError{code: exitUsage, err: err}
	}
	if scope == config.ScopeEffective && !allowEffective {
		return "", usageError("--scope effective is read only: write to project or global")
	}
	return scope, nil
}

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

func (a *app) mcpAddCommand() *cobra.Command {
	var (
		e                               config.ServerEntry
		envs, headers                   []string
		scopeName                       string
		replace, disabled               bool
		reconnect                       config.ReconnectEntry
		oauthID, oauthSecret, bearerEnv string
		oauthScopes                     []string
	)
	cmd := &cobra.Command{
		Use:   "add ID (--command CMD [--arg A]... | --url URL) [flags] [-- CMD ARGS...]",
		Short: "Add a server to the project or global config file",
		Long: `Add a server to a config file, after checking the entry.

A stdio server is given with --command and --arg, or as the words after --
(flags there belong to the server). A remote server is given with --url; its
transport is http (Streamable HTTP) unless --transport says sse or websocket.

--scope project (the default) writes .mcphost.yaml (or the existing
.mcphost.*) in the current directory; its servers start only after you run
"mcphost trust" (again after every change to the file). --scope global
writes the global config file. Values of --env and --header may hold
${VAR} references, expanded when the server starts; they are never printed.

--startup-timeout, --request-timeout, --health-interval and the
--reconnect-* flags set the entry's fields of the same names; a duration is
written as given (30s, 1m30s, or a number of seconds). Left out, the
defaults apply: health checks every 30s, reconnect waits from 500ms
doubling up to 30s, with no limit on attempts.

Authorization of a --url server: a server that asks for OAuth needs nothing
here — run "mcphost login ID" after adding it. --oauth-client-id (with
--oauth-client-secret and --oauth-scope) writes an oauth block for a client
registered with the server's authorization server in advance; the secret is
kept in the OS keychain (or mcp-auth.json), not in the config file, unless it
is given as a ${VAR} reference. --bearer-token-env NAME sends the token in the
environment variable NAME as "Authorization: Bearer ...".`,
		Example: `  mcphost mcp add everything -- npx -y @modelcontextprotocol/server-everything
  mcphost mcp add files --command npx --arg -y --arg @modelcontextprotocol/server-filesystem --arg .
  mcphost mcp add github --url https://api.githubcopilot.com/mcp/ --header 'Authorization=Bearer ${GITHUB_TOKEN}'
  mcphost mcp add linear --url https://mcp.linear.app/mcp && mcphost login linear
  mcphost mcp add corp --url https://mcp.corp.example/mcp --oauth-client-id mcphost --oauth-scope tools.read
  mcphost mcp add api --url https://api.example.com/mcp --bearer-token-env API_TOKEN
  mcphost mcp add local-ws --url ws://127.0.0.1:8080/mcp --transport websocket --scope global
  mcphost mcp add flaky --health-interval 1m --reconnect-max-delay 2m --reconnect-max-attempts 10 -- ./server`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			e.ID = args[0]
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if dash != 1 || len(args) < 2 {
					return usageError("write the command after --: mcphost mcp add ID -- CMD ARGS...")
				}
				if e.Command != "" {
					return usageError("give the command either with --command or after --, not both")
				}
				e.Command, e.Args = args[1], append(args[2:], e.Args...)
			} else if len(args) > 1 {
				return usageError("unexpected arguments %q: put a command after -- or use --arg", args[1:])
			}
			if (e.Command == "") == (e.URL == "") {
				return usageError("give exactly one of --command (or -- CMD) and --url")
			}
			if e.Command != "" && len(headers) > 0 {
				return usageError("--header is for servers with --url; a stdio server takes --env")
			}
			if e.URL != "" && (len(envs) > 0 || e.Cwd != "" || len(e.Args) > 0) {
				return usageError("--env, --cwd and --arg are for servers started with --command; a --url server takes --header")
			}
			var err error
			if e.Env, err = keyValues("env", "", envs); err != nil {
				return err
			}
			if e.Headers, err = keyValues("header", "", headers); err != nil {
				return err
			}
			var storeSecret string
			if e.Command != "" && (oauthID != "" || oauthSecret != "" || len(oauthScopes) > 0 || bearerEnv != "") {
				return usageError("--oauth-* and --bearer-token-env are for servers with --url")
			}
			if bearerEnv != "" {
				if oauthID != "" || oauthSecret != "" || len(oauthScopes) > 0 {
					return usageError("give either --bearer-token-env or the --oauth-* flags, not both")
				}
				if !envNamePattern.MatchString(bearerEnv) {
					return usageError("--bearer-token-env %q: give the name of an environment variable (letters, digits, _)", bearerEnv)
				}
				e.Auth = map[string]any{"type": "bearer", "token": "${" + bearerEnv + "}"}
			}
			if oauthSecret != "" && oauthID == "" {
				return usageError("--oauth-client-secret needs --oauth-client-id")
			}
			if oauthID != "" || len(oauthScopes) > 0 {
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
				if oauthSecret != "" {
					if config.IsSecretRef(oauthSecret) {
						e.OAuth["client_secret"] = oauthSecret
					} else {
						storeSecret = oauthSecret
					}
				}
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
			path, err := config.AddServer(a.loadOptions(), scope, e, replace)
			if errors.Is(err, config.ErrServerExists) {
				return usageError("%v\npass --replace to overwrite it", err)
			}
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "added server %q to %s\n", e.ID, path)
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
			a.trustHint(scope)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&e.Command, "command", "", "command that starts a stdio server")
	f.StringArrayVar(&e.Args, "arg", nil, "argument for the command (repeatable)")
	f.StringArrayVar(&envs, "env", nil, "environment variable KEY=VALUE for the command (repeatable; ${VAR} allowed)")
	f.StringVar(&e.Cwd, "cwd", "", "working directory for the command")
	f.StringVar(&e.URL, "url", "", "URL of an sse, http or websocket server")
	f.StringArrayVar(&headers, "header", nil, "HTTP header KEY=VALUE (repeatable; ${VAR} allowed)")
	f.StringVar(&e.Transport, "transport", "", "stdio, sse, http or websocket (default: stdio with a command, http with a url)")
	f.StringVar(&e.StartupTimeout, "startup-timeout", "", "how long connecting may take (e.g. 30s)")
	f.StringVar(&e.RequestTimeout, "request-timeout", "", "deadline of each request (e.g. 60s)")
	f.StringVar(&e.HealthInterval, "health-interval", "", `time between health checks of the ready server (e.g. 1m), or "off" (default 30s)`)
	f.StringVar(&reconnect.InitialDelay, "reconnect-initial-delay", "", "wait before the first reconnect attempt, doubled after each failure (default 500ms)")
	f.StringVar(&reconnect.MaxDelay, "reconnect-max-delay", "", "longest wait between reconnect attempts, at least the initial delay (default 30s)")
	f.IntVar(&reconnect.MaxAttempts, "reconnect-max-attempts", 0, "failed connects in a row after which the server is left in error (default 0: no limit)")
	f.StringVar(&scopeName, "scope", "project", "project (.mcphost.yaml in the current directory) or global (the global config file)")
	f.BoolVar(&replace, "replace", false, "replace an existing entry with the same id")
	f.BoolVar(&disabled, "disabled", false, "add it disabled")
	f.StringVar(&oauthID, "oauth-client-id", "", "OAuth client ID registered in advance with the server's authorization server")
	f.StringVar(&oauthSecret, "oauth-client-secret", "", "its client secret (kept in the OS keychain or mcp-auth.json; or a ${VAR} reference)")
	f.StringArrayVar(&oauthScopes, "oauth-scope", nil, "OAuth scope to ask for (repeatable)")
	f.StringVar(&bearerEnv, "bearer-token-env", "", `environment variable holding a bearer token (sent as "Authorization: Bearer ...")`)
	return cmd
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

// trustHint says, after a project file was written, that its servers start
// only once the (changed) project is trusted.
func (a *app) trustHint(scope config.Scope) {
	if scope != config.ScopeProject {
		return
	}
	cfg, err := config.Load(a.loadOptions())
	if err != nil {
		return
	}
	for _, s := range cfg.Servers {
		if s.Untrusted {
			fmt.Fprintf(a.stdout, "note: %s\n", config.UntrustedHint(cfg.ProjectDir))
			return
		}
	}
}

func (a *app) mcpListCommand() *cobra.Command {
	var (
		scopeName string
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List configured servers without connecting (with the file each comes from)",
		Long: `List the configured servers without connecting to them. SOURCE is the file
(or "env", "flags") that last set each one; NOTE says why a server would not
start (an invalid entry, or a project not trusted yet).

--scope effective (the default) is the merged result of every layer;
--scope project the servers of the project files (over the global file, so a
project override shows the server it overrides); --scope global the global
file alone. Secret values (env, headers) are masked in --json.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			scope, err := parseScope(scopeName, true)
			if err != nil {
				return err
			}
			var cfg *config.Config
			if scope == config.ScopeEffective {
				cfg, err = a.loadConfig()
			} else {
				cfg, err = config.LoadScope(a.loadOptions(), scope)
			}
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if asJSON {
				out := make([]map[string]any, 0, len(cfg.Servers))
				for _, s := range cfg.Servers {
					out = append(out, describeServer(s, a.showSecrets))
				}
				return printJSON(a.stdout, out)
			}
			tw := table(a.stdout)
			fmt.Fprintln(tw, "ID\tTRANSPORT\tTARGET\tENABLED\tSOURCE\tNOTE")
			for _, s := range cfg.Servers {
				note := ""
				switch {
				case s.Err != nil:
					note = "error: " + s.Err.Error()
				case s.Untrusted:
					note = "untrusted (mcphost trust)"
				}
				// One row per server: project files are outside text too.
				fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%s\t%s\n", s.ID, s.Transport, oneLine(target(s, a.showSecrets), 50), s.Enabled,
					termtext.Line(s.Source), termtext.Line(note))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&scopeName, "scope", "effective", "effective (merged), project or global")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// target is what a server runs or where it is, for listings; a URL's
// password and query values are redacted unless show.
func target(s *config.Server, show bool) string {
	if s.Command != "" {
		return strings.Join(append([]string{s.Command}, s.Args...), " ")
	}
	if show {
		return s.URL
	}
	return config.RedactURL(s.URL)
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
	set("command", s.Command, s.Command != "")
	set("args", s.Args, len(s.Args) > 0)
	set("cwd", s.Cwd, s.Cwd != "")
	set("url", target(&config.Server{URL: s.URL}, show), s.URL != "")
	set("env", masked(s.Env, show), len(s.Env) > 0)
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
	return d
}

func (a *app) mcpGetCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get ID",
		Short: "Show one server's effective configuration (secret values masked)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			for _, s := range cfg.Servers {
				if s.ID != args[0] {
					continue
				}
				d := describeServer(s, a.showSecrets)
				if asJSON {
					return printJSON(a.stdout, d)
				}
				keys := make([]string, 0, len(d))
				for k := range d {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				tw := table(a.stdout)
				for _, k := range keys {
					fmt.Fprintf(tw, "%s:\t%s\n", k, termtext.Line(fmt.Sprint(d[k])))
				}
				return tw.Flush()
			}
			return usageError("no server %q is configured (see \"mcphost mcp list\")", args[0])
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) mcpRemoveCommand() *cobra.Command {
	var scopeName string
	cmd := &cobra.Command{
		Use:   "remove ID",
		Short: "Remove a server from the project or global config file",
		Long: `Remove a server's entry from one file: the project file (--scope project, the
default) or the global file (--scope global). To switch off a server that
another file defines, use "mcphost mcp disable" instead.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := parseScope(scopeName, false)
			if err != nil {
				return err
			}
			path, err := config.RemoveServer(a.loadOptions(), scope, args[0])
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "removed server %q from %s\n", args[0], path)
			return nil
		},
	}
	cmd.Flags().StringVar(&scopeName, "scope", "project", "project (the current directory's .mcphost.*) or global")
	return cmd
}

func (a *app) mcpEnableCommand(enable bool) *cobra.Command {
	var scopeName string
	verb := map[bool]string{true: "enable", false: "disable"}[enable]
	cmd := &cobra.Command{
		Use:   verb + " ID",
		Short: strings.ToUpper(verb[:1]) + verb[1:] + " a server (writes an override if the server is defined in another file)",
		Long: `Set "enabled" on a server's entry in the project file (--scope project, the
default) or the global file (--scope global). A server that only the global
file (or .mcp.json) defines gets an override entry in the project file that
holds just "enabled", so a project can switch off a global server without
copying it. Such an override needs no "mcphost trust" when it disables.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := parseScope(scopeName, false)
			if err != nil {
				return err
			}
			path, err := config.SetEnabled(a.loadOptions(), scope, args[0], enable)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "%sd server %q in %s\n", verb, args[0], path)
			if enable {
				a.trustHint(scope)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&scopeName, "scope", "project", "project (the current directory's .mcphost.*) or global")
	return cmd
}

func (a *app) mcpTestCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "test ID",
		Short: "Connect to one server, initialize, list its tools and show timings",
		Long: `Connect to one configured server (even a disabled one), initialize, list its
tools and show how long it took, or why it failed with the last lines the
server wrote to stderr. Exit status 0 when it connected, 1 when it did not,
2 when the entry is invalid or the project is not trusted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			var sc *config.Server
			for _, s := range cfg.Servers {
				if s.ID == args[0] {
					c := *s
					sc = &c
				}
			}
			if sc == nil {
				return usageError("no server %q is configured (see \"mcphost mcp list\")", args[0])
			}
			if sc.Err != nil {
				return &exitError{code: exitUsage, err: sc.Err}
			}
			if sc.Untrusted {
				return &exitError{code: exitUsage, err: fmt.Errorf("%s", config.UntrustedHint(filepath.Dir(sc.Source)))}
			}
			if !sc.Enabled {
				fmt.Fprintf(a.stdout, "note: %s is disabled; testing it anyway\n", sc.ID)
				sc.Enabled = true
			}
			fmt.Fprintf(a.stdout, "testing %s (%s %s)\n", sc.ID, sc.Transport, oneLine(target(sc, a.showSecrets), 60))
			start := time.Now()
			h, err := a.startHostWith(cmd.Context(), &config.Config{Servers: []*config.Server{sc}, Names: cfg.Names})
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			st := h.Status()[0]
			if st.State != host.StateReady {
				fmt.Fprintf(a.stdout, "FAIL after %s: %s\n", time.Since(start).Round(time.Millisecond), serverError(st))
				printStderrTail(a.stdout, st, 0)
				return &exitError{code: exitFailure, err: fmt.Errorf("server %s did not connect (%s): %s", sc.ID, st.State, serverError(st))}
			}
			fmt.Fprintf(a.stdout, "connect + initialize + lists: %s\n", st.ConnectDuration.Round(time.Millisecond))
			fmt.Fprintf(a.stdout, "server: %s, protocol %s\n",
				termtext.Line(strings.TrimSpace(st.ServerName+" "+st.ServerVersion)), termtext.Line(st.ProtocolVersion))
			fmt.Fprintf(a.stdout, "tools: %d\n", st.Tools)
			for _, t := range h.Tools() {
				fmt.Fprintf(a.stdout, "  %s\n", termtext.Line(t.Name))
			}
			fmt.Fprintln(a.stdout, "OK")
			return nil
		},
	}
}

func (a *app) trustCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "trust [DIR]",
		Short: "Trust the project files (.mcphost.*, .mcp.json) of DIR (default: the current directory)",
		Long: `Project files can start arbitrary commands, so their servers start only once
you trust the project. The trust is recorded in the global config, keyed by
the directory and a hash of its project files: editing them asks again.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := a.workDir // "" in production: the current directory
			if dir == "" {
				dir = "."
			}
			if len(args) == 1 {
				dir = args[0]
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return usageError("trust %s: %v", dir, err)
			}
			if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
				return usageError("trust %s: not a directory (give the project directory that holds .mcphost.* or .mcp.json)", dir)
			}
			if err := config.Trust(a.loadOptions(), abs); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "trusted the project files in %s\n", abs)
			return nil
		},
	}
}

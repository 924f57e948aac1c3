package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/termtext"
)

func (a *app) mcpCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Manage the configured servers (add, list/ls, get, remove/rm, enable, disable, test)",
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
		a.mcpEnableCommand(true), a.mcpEnableCommand(false), a.mcpTestCommand(), a.mcpImportCommand(), a.mcpAddJSONCommand())
	return cmd
}

// parseScope parses a --scope flag; allowEffective is false for a
// command that writes.
func parseScope(s string, allowEffective bool) (config.Scope, error) {
	if strings.EqualFold(strings.TrimSpace(s), string(config.ScopeManaged)) {
		if allowEffective {
			return config.ScopeManaged, nil // read only, as effective
		}
		return "", usageError("--scope managed is the administrator's configuration, which mcphost does not edit: write to local, project or user (\"mcphost mcp disable ID\" switches a managed server off for you)")
	}
	scope, err := config.ParseScope(s)
	if err != nil {
		return "", &exitError{code: exitUsage, err: err}
	}
	if scope == config.ScopeEffective && !allowEffective {
		return "", usageError("--scope effective is read only: write to local, project or user")
	}
	return scope, nil
}

// scopeFlagHelp is the help of the --scope flag of the commands that write.
const scopeFlagHelp = "local (yours, in this directory), project (the current directory's .mcphost.*, shared) or user (your config file, every project; formerly global)"

// trustHint says, after the project file was written (or a local override
// switched on a project server), that its servers start only once the
// (changed) project is trusted.
func (a *app) trustHint(scope config.Scope, id string) {
	if scope != config.ScopeProject && scope != config.ScopeLocal {
		return
	}
	opts := a.loadOptions()
	cfg, err := config.Load(opts)
	if err != nil {
		return
	}
	untrusted := false
	if scope == config.ScopeProject {
		trusted, err := config.IsTrusted(opts, "")
		untrusted = err == nil && !trusted
	}
	for _, s := range cfg.Servers {
		untrusted = untrusted || (s.ID == id && s.Untrusted)
	}
	if untrusted {
		fmt.Fprintf(a.stdout, "note: %s\n", cfg.UntrustedHint())
	}
}

func (a *app) mcpListCommand() *cobra.Command {
	var (
		scopeName string
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List configured servers without connecting (with the scope and file each comes from)",
		Long: `List the configured servers without connecting to them. SCOPE and SOURCE say
where each one is defined (the file, or "env", "flags"; "managed": the
administrator's managed configuration); NOTE says, on one line, why a
server would not start (a rule of the managed configuration blocks it, an
invalid entry, or a project not trusted yet): "mcphost mcp get ID" shows
the whole of it.

-s/--scope effective (the default) is the merged result of every layer;
local the servers of your local file for this directory (over the project
and user files, so an override shows the server it overrides); project the
servers of the project files (over the user file, for the same reason);
user your config file alone ("global" still works); managed the
administrator's managed configuration alone (read only). Secret values
(env, headers) are masked in --json too.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			scope, err := parseScope(scopeName, true)
			if err != nil {
				return err
			}
			var cfg *config.Config
			if scope == config.ScopeEffective {
				cfg, err = a.loadConfig()
			} else if cfg, err = config.LoadScope(a.loadOptions(), scope); err == nil {
				a.redactSecrets(cfg)
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
			fmt.Fprintln(tw, "ID\tTRANSPORT\tTARGET\tENABLED\tSCOPE\tSOURCE\tNOTE")
			for _, s := range cfg.Servers {
				scope := string(s.Scope)
				if scope == "" {
					scope = "-"
				}
				// One row per server: project files are outside text too.
				fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%s\t%s\t%s\n", termtext.Line(s.ID), s.Transport, oneLine(target(s, a.showSecrets), 50), s.Enabled,
					scope, termtext.Line(s.Source), listNote(s))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVarP(&scopeName, "scope", "s", "effective", "effective (merged), local, project, user or managed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func (a *app) mcpGetCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "get ID",
		Short: "Show one server's effective configuration (secret values masked)",
		Long: `Show one server's effective configuration: where it is defined (scope and
file), what it runs or where it connects, and every setting with the default
it gets. Lists are shown as you would type them (args: -y 'two words'), env
as KEY=VALUE and headers as "Name: value" lines, with secret values masked
(unless --show-secrets).`,
		Args: cobra.ExactArgs(1),
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
				writeServerText(a.stdout, d)
				return nil
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
		Use:     "remove ID [-s local|project|user]",
		Aliases: []string{"rm"},
		Short:   "Remove a server from your local, the project's or your user config",
		Long: `Remove a server's entry from one file. Without -s/--scope, from the one scope
whose file has it (local, project or user); when several have it, say which
with --scope. To switch off a server that a file you do not want to edit
defines (the project's, .mcp.json), use "mcphost mcp disable ID": that
writes an override in your local file.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var (
				path  string
				scope config.Scope
				err   error
			)
			if scopeName == "" {
				path, scope, err = config.RemoveServerAnyScope(a.loadOptions(), args[0])
				if errors.Is(err, config.ErrSeveralScopes) {
					err = fmt.Errorf("%w (--scope local, project or user)", err)
				}
			} else if scope, err = parseScope(scopeName, false); err == nil {
				path, err = config.RemoveServer(a.loadOptions(), scope, args[0])
			}
			if err != nil {
				var ee *exitError
				if errors.As(err, &ee) {
					return err
				}
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "removed server %q from %s (%s scope)\n", args[0], path, scope)
			return nil
		},
	}
	cmd.Flags().StringVarP(&scopeName, "scope", "s", "", scopeFlagHelp+" (default: the one that has it)")
	return cmd
}

func (a *app) mcpEnableCommand(enable bool) *cobra.Command {
	var scopeName string
	verb := map[bool]string{true: "enable", false: "disable"}[enable]
	cmd := &cobra.Command{
		Use:   verb + " ID [-s local|project|user]",
		Short: strings.ToUpper(verb[:1]) + verb[1:] + " a server (writes an override if the server is defined in another file)",
		Long: `Set "enabled" on a server's entry in your local file (-s local, the default:
only you, in this directory), the project file (-s project) or your user
file (-s user). A server that another file defines (the project's, the user
file, .mcp.json) gets an override entry that holds just "enabled", so you
can switch a server off here without copying or editing its definition. A
project override needs no "mcphost trust" when it disables; the user file
takes no overrides (they would reach every project).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := parseScope(scopeName, false)
			if err != nil {
				return err
			}
			if enable {
				if err := a.refuseBlocked("mcp enable", args[0]); err != nil {
					return err
				}
			}
			path, err := config.SetEnabled(a.loadOptions(), scope, args[0], enable)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "%sd server %q in %s%s\n", verb, args[0], path, scopeNote(scope))
			if enable {
				a.trustHint(scope, args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&scopeName, "scope", "s", string(config.ScopeLocal), scopeFlagHelp)
	return cmd
}

func (a *app) mcpTestCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "test ID",
		Short: "Connect to one server, initialize, list its tools and show timings",
		Long: `Connect to one configured server (even a disabled one), initialize, list its
tools and show how long it took, or why it failed with the lines of the
server's stderr that say why. Exit status 0 when it connected, 1 when it did not,
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
			if sc.Blocked != "" {
				return usageError("server %s is %s", sc.ID, sc.Blocked)
			}
			if sc.Untrusted {
				return &exitError{code: exitUsage, err: errors.New(sc.UntrustedHint())}
			}
			if !sc.Enabled {
				fmt.Fprintf(a.stdout, "note: %s is disabled; testing it anyway\n", sc.ID)
				sc.Enabled = true
			}
			fmt.Fprintf(a.stdout, "testing %s (%s %s)\n", sc.ID, sc.Transport, oneLine(target(sc, a.showSecrets), 60))
			start := time.Now()
			h, err := a.startHostWith(cmd.Context(), &config.Config{Servers: []*config.Server{sc}, Names: cfg.Names, Pinning: cfg.Pinning})
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			st := h.Status()[0]
			if st.State != host.StateReady {
				fmt.Fprintf(a.stdout, "FAIL after %s: %s\n", time.Since(start).Round(time.Millisecond), serverFailure(st))
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
you trust the project. The trust is recorded in your user config file, keyed by
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

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/clientconf"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/internal/userdirs"
)

// projectCommand is what a project's entry runs unless --command: the
// project's file is shared, and this executable's path exists only here.
const projectCommand = "mcphost"

// clientTitles names the clients as their users know them.
var clientTitles = map[clientconf.Kind]string{
	clientconf.ClaudeDesktop: "Claude Desktop",
	clientconf.ClaudeCode:    "Claude Code",
	clientconf.Cursor:        "Cursor",
	clientconf.Windsurf:      "Windsurf",
	clientconf.VSCode:        "VS Code",
	clientconf.Codex:         "Codex",
	clientconf.Gemini:        "Gemini CLI",
	clientconf.Zed:           "Zed",
}

func (a *app) clientCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "client",
		Short: "Hook other MCP clients (Claude, Cursor, VS Code, Codex, ...) to mcphost",
		Long: `Add to (or remove from) another MCP client's configuration one entry that
runs "mcphost serve" over stdio, so that the client gets every configured
server through mcphost's policies, name mapping and transforms.

Clients: ` + strings.Join(installKindNames(), ", ") + `.`,
		// cobra does not reject unknown subcommands of a command without Run.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError("unknown command %q for \"mcphost client\" (see \"mcphost client --help\")", args[0])
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(a.clientEditCommand(true), a.clientEditCommand(false), a.clientListCommand())
	return cmd
}

func installKindNames() []string {
	names := make([]string, len(clientconf.InstallKinds))
	for i, k := range clientconf.InstallKinds {
		names[i] = string(k)
	}
	return names
}

type clientFlags struct {
	scope, name, command, file string
	force, dryRun              bool
}

// clientEditCommand is "client install" or "client uninstall".
func (a *app) clientEditCommand(install bool) *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "install CLIENT",
		Short: "Add an entry that runs \"mcphost serve\" to a client's configuration",
		Long: `Add one entry (named mcphost, or --name) that runs "mcphost serve" over stdio
to CLIENT's configuration file: the user's file (--scope user, the default) or
the project's (--scope project, in the current directory).

In the user's file the entry runs this mcphost executable by its absolute path
(clients started from a desktop do not see the shell's PATH); in a project's
file, which others share, it runs "mcphost" from PATH. --command PATH runs
another. With --config FILE, the entry runs "mcphost serve --config FILE".

The change is shown first, then asked for on a terminal; --yes writes without
asking, --dry-run only shows it. The rest of the file is kept as it is
(comments, order, formatting); the previous file is kept in the user's state
directory ($XDG_STATE_HOME/mcphost/backups, else ~/.local/state/mcphost/backups)
as FILE-HASH.DATE (the path is printed), never in the project. A symbolic link
is written at its target (shown); a project's file that leads out of the
project is refused. An entry of that name that runs something else is
replaced only with --force.

Clients and files (user / project):
  claude-desktop  claude_desktop_config.json (mcpServers) / -
  claude-code     ~/.claude.json (mcpServers) / .mcp.json
  cursor          ~/.cursor/mcp.json / .cursor/mcp.json
  windsurf        ~/.codeium/windsurf/mcp_config.json / -
  vscode          the user's mcp.json (servers) / .vscode/mcp.json
  codex           ~/.codex/config.toml ([mcp_servers.mcphost]) / -
  gemini          ~/.gemini/settings.json / .gemini/settings.json
  zed             the user's settings.json (context_servers) / .zed/settings.json`,
		Example: `  mcphost client install claude-desktop
  mcphost client install cursor --scope project --dry-run
  mcphost client install vscode --yes
  mcphost client uninstall claude-desktop`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.clientEdit(cmd.Context(), install, args[0], f)
		},
	}
	if !install {
		cmd.Use = "uninstall CLIENT"
		cmd.Aliases = []string{"remove", "rm"}
		cmd.Short = "Remove the entry that runs \"mcphost serve\" from a client's configuration"
		cmd.Long = `Remove the entry named mcphost (or --name) from CLIENT's configuration file,
and nothing else. An entry that does not run "mcphost ... serve" is left
alone unless --force (--command PATH: an entry running PATH counts as
mcphost). The change is shown first and asked for on a terminal (--yes,
--dry-run as for install); the previous file is kept as a backup.`
		cmd.Example = `  mcphost client uninstall claude-desktop
  mcphost client uninstall vscode --scope project --yes`
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.scope, "scope", "s", "user", "whose file: user (every project) or project (the current directory's)")
	fl.StringVar(&f.name, "name", clientconf.DefaultEntryName, "the entry's name in the client's file")
	fl.StringVar(&f.file, "file", "", "edit this file instead of the client's standard one (in the client's format)")
	fl.BoolVar(&f.dryRun, "dry-run", false, "show the change, write nothing")
	if install {
		fl.StringVar(&f.command, "command", "", "the mcphost executable the client runs (default: this one, symlinks resolved)")
		fl.BoolVar(&f.force, "force", false, "replace an entry of the same name that differs")
	} else {
		fl.StringVar(&f.command, "command", "", "an entry running this executable counts as mcphost")
		fl.BoolVar(&f.force, "force", false, "remove the entry even if it does not run \"mcphost serve\"")
	}
	return cmd
}

func (a *app) clientEdit(ctx context.Context, install bool, arg string, f clientFlags) error {
	kind, err := parseInstallKind(arg)
	if err != nil {
		return err
	}
	if f.scope != string(clientconf.ScopeUser) && f.scope != string(clientconf.ScopeProject) {
		return usageError("--scope %q: use user or project", f.scope)
	}
	env, err := a.clientInstallEnv()
	if err != nil {
		return err
	}
	o := clientconf.InstallOptions{Scope: clientconf.Scope(f.scope), File: f.file, Name: f.name, Force: f.force, Command: f.command}
	var c *clientconf.Change
	fromPath := install && f.command == "" && o.Scope == clientconf.ScopeProject
	if install {
		if fromPath {
			o.Command = projectCommand
		} else if o.Command, err = a.mcphostExecutable(f.command); err != nil {
			return err
		}
		if o.Args, err = a.serveArgs(); err != nil {
			return err
		}
		c, err = clientconf.PlanInstall(kind, env, o)
	} else {
		c, err = clientconf.PlanUninstall(kind, env, o)
	}
	if err != nil {
		return err
	}
	// Paths are shown escaped: a project's symbolic link may name anything.
	file := termtext.Line(c.Target)
	fmt.Fprintf(a.stdout, "%s (%s scope): %s\n", clientTitles[kind], c.Scope, termtext.Line(c.Path))
	if c.Target != c.Path {
		fmt.Fprintf(a.stdout, "(a symbolic link: the file edited is %s)\n", file)
	}
	if c.Action == clientconf.ActionNone {
		fmt.Fprintf(a.stdout, "%q is %s: nothing to do\n", c.Name, c.Note)
		return nil
	}
	fmt.Fprintf(a.stdout, "%s:\n%s", c.Summary(), c.Diff())
	if fromPath {
		fmt.Fprintf(a.stdout, "(a project's file is shared: the entry runs %q found on PATH, not this executable's path; --command PATH writes another)\n", projectCommand)
	}
	if c.Created {
		if _, err := os.Stat(filepath.Dir(c.Target)); err != nil {
			fmt.Fprintf(a.stdout, "(neither the file nor its directory exists yet: is %s installed? both will be created)\n", clientTitles[kind])
		} else {
			fmt.Fprintln(a.stdout, "(the file does not exist yet: it will be created)")
		}
	}
	if install {
		a.hintDirectServers(c, env)
	}
	if f.dryRun {
		fmt.Fprintf(a.stdout, "dry run: %s not changed\n", file)
		return nil
	}
	if !a.yes {
		ok, err := a.askWrite(ctx, file)
		if err != nil {
			return err
		}
		if !ok {
			return &exitError{code: exitFailure, err: fmt.Errorf("not confirmed: %s unchanged", file)}
		}
	}
	backup, err := c.Apply()
	if err != nil {
		return err
	}
	verb := "wrote"
	if c.Created {
		verb = "created"
	}
	fmt.Fprintf(a.stdout, "%s %s\n", verb, file)
	if backup != "" {
		fmt.Fprintf(a.stdout, "the previous version is kept in %s\n", termtext.Line(backup))
	}
	fmt.Fprintf(a.stdout, "restart %s (or start a new session) for it to take effect\n", clientTitles[kind])
	return nil
}

func parseInstallKind(arg string) (clientconf.Kind, error) {
	kind, err := clientconf.ParseKind(arg)
	if err == nil {
		for _, k := range clientconf.InstallKinds {
			if k == kind {
				return kind, nil
			}
		}
	}
	return "", usageError("unknown client %q: use one of %s", arg, strings.Join(installKindNames(), ", "))
}

// askWrite asks the person at the terminal whether to write path (escaped
// by the caller). Without a terminal nobody can answer: the command
// refuses, saying what to pass.
func (a *app) askWrite(ctx context.Context, path string) (bool, error) {
	if !a.isTerminal(a.stdin) || !a.isTerminal(a.stderr) {
		return false, usageError("no terminal to confirm on: pass --yes to write %s, or --dry-run to only show the change", path)
	}
	fmt.Fprintf(a.stderr, "write %s? [y/N] ", path)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(io.LimitReader(a.stdin, maxAnswerBytes)).ReadString('\n')
		answer <- line
	}()
	select {
	case line := <-answer:
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		}
		return false, nil
	case <-ctx.Done():
		fmt.Fprintln(a.stderr)
		return false, ctx.Err()
	}
}

// clientInstallEnv says where the clients' files are. With an environment
// given to the app (tests), only that one is read: HOME from it, never the
// process's, so that nothing reaches the real home directory.
func (a *app) clientInstallEnv() (clientconf.Env, error) {
	env := clientconf.Env{GOOS: runtime.GOOS, WorkDir: a.workDir, StateDir: a.stateDir}
	if env.StateDir == "" {
		// The state directory of the config edits' locks, so that one
		// place holds what mcphost keeps about the files it edits.
		env.StateDir, _ = userdirs.ProcessState()
	}
	if env.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return env, fmt.Errorf("the current directory: %w", err)
		}
		env.WorkDir = wd
	}
	if abs, err := filepath.Abs(env.WorkDir); err == nil {
		env.WorkDir = abs
	}
	if a.environ == nil {
		env.Getenv = os.Getenv
		env.Home, _ = os.UserHomeDir()
		return env, nil
	}
	vars := map[string]string{}
	for _, kv := range a.environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	env.Getenv = func(k string) string { return vars[k] }
	env.Home = vars["HOME"]
	if env.Home == "" && runtime.GOOS == "windows" {
		env.Home = vars["USERPROFILE"]
	}
	return env, nil
}

// mcphostExecutable is the command a client's entry runs: --command, else
// this executable with symlinks resolved (a GUI client has no shell PATH).
func (a *app) mcphostExecutable(flag string) (string, error) {
	if flag != "" {
		if !filepath.IsAbs(flag) {
			fmt.Fprintf(a.stderr, "warning: --command %s is not an absolute path: clients started from a desktop (Claude Desktop) may not find it\n", flag)
		} else if _, err := os.Stat(flag); err != nil {
			fmt.Fprintf(a.stderr, "warning: --command %s: %v\n", flag, errors.Unwrap(err))
		}
		return flag, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot tell where this mcphost executable is (%v): pass --command PATH", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		fmt.Fprintf(a.stderr, "warning: this mcphost is a temporary build (go run) at %s, which will disappear: install it (go install ./cmd/mcphost) and run this again, or pass --command PATH\n", exe)
	}
	return exe, nil
}

// serveArgs are the entry's arguments: serve, with the --config file this
// command was given (absolute: the client starts it from elsewhere).
func (a *app) serveArgs() ([]string, error) {
	if a.configFile == "" {
		return []string{"serve"}, nil
	}
	abs, err := filepath.Abs(a.configFile)
	if err != nil {
		return nil, fmt.Errorf("--config %s: %w", a.configFile, err)
	}
	return []string{"serve", "--config", abs}, nil
}

func (a *app) clientListCommand() *cobra.Command {
	var name, command string
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "Show which clients' files run mcphost",
		Long: `Show, for every client and scope, whether its file has the entry that
"mcphost client install" would write: installed, different (an entry of that
name runs something else), not installed, or no file. A project's entry
should run "mcphost" from PATH, a user's this executable (--command: both).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			env, err := a.clientInstallEnv()
			if err != nil {
				return err
			}
			o := clientconf.InstallOptions{Name: name}
			if o.Command, err = a.mcphostExecutable(command); err != nil {
				return err
			}
			if command == "" {
				o.ProjectCommand = projectCommand
			}
			if o.Args, err = a.serveArgs(); err != nil {
				return err
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CLIENT\tSCOPE\tSTATE\tFILE")
			var problems []clientconf.InstallState
			// The command, paths and errors come from the clients' files (and
			// a project's links): escaped, so that none adds a row.
			for _, st := range clientconf.InstallStates(env, o) {
				state := st.State
				if st.State == "different" {
					state = "different: runs " + termtext.Line(st.Command)
				}
				if st.Err != nil {
					problems = append(problems, st)
				}
				file := termtext.Line(st.Path)
				if st.Target != "" && st.Target != st.Path {
					file += " -> " + termtext.Line(st.Target)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", st.Kind, st.Scope, state, file)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, st := range problems {
				fmt.Fprintf(a.stderr, "warning: %s (%s): %s\n", st.Kind, st.Scope, termtext.Line(st.Err.Error()))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", clientconf.DefaultEntryName, "the entry's name in the clients' files")
	cmd.Flags().StringVar(&command, "command", "", "the mcphost executable the entry should run (default: this one)")
	return cmd
}

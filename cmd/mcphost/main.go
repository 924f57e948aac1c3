// Command mcphost connects to MCP servers, lists and calls their tools, and
// manages the server list. Every behaviour lives in the host, config and
// transports packages; this command parses flags and prints.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/redact"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/transports"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // a tool reported an error, or a call failed
	exitUsage   = 2 // bad flags, arguments or configuration
	// exitInterrupted: Ctrl-C or SIGTERM, as shells report SIGINT (128+2).
	exitInterrupted = 130
	closeDeadline   = 5 * time.Second
)

// exitError carries an exit status through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// app holds what every command shares: streams, global flags, the logger.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	configFile    string
	logLevel      string
	nameScheme    string
	maxNameLength int
	yes           bool   // approve every "confirm" decision without asking
	showSecrets   bool   // print secret values instead of ****
	secretStore   string // --secret-store: auto, keychain or file ("": MCPHOST_SECRET_STORE)

	// secrets is the store ${secret:NAME} and "secret set" use, opened on
	// first use (see openSecrets).
	secretsOnce sync.Once
	secrets     authn.SecretStore
	secretsErr  error

	resultsDirOverride string          // tests: where full results are kept
	warned             map[string]bool // configuration warnings already printed

	// redactors replace the configuration's secret values in stdout and
	// stderr (see loadConfig).
	redactors []*redact.Writer

	pipelines []hostPipeline

	log hclog.Logger
	// termMu serialises what is written to the terminal by concurrent
	// callbacks (progress, elicitation forms).
	termMu sync.Mutex

	// started is set once cobra has accepted the command line: an error
	// before that is a usage error.
	started bool

	// Test hooks. main leaves them zero, which means what config.LoadOptions
	// and the host default to: the user's global config directory, the
	// current directory, the process environment, no extra host options.
	globalDir string
	stateDir  string // locks of edits, backups ("": the user's state directory)
	pinStore  string // tools diff/approve/pins --pin-store ("": pins.json in stateDir)
	// managedDir is the administrator's managed layer ("": the system
	// directory, config.SystemManagedDir). Only tests set it: no flag or
	// variable lets a user step out of the managed layer.
	managedDir  string
	cacheDir    string // the completion cache ("": the user cache directory's mcphost)
	workDir     string
	environ     []string      // nil: os.Environ()
	hostOptions []host.Option // added to every host the command starts
	// isTerminal reports whether a stream is an interactive terminal.
	isTerminal func(any) bool
	// watchInterval is how often "servers --watch" looks at the config
	// files (0: config.DefaultWatchInterval).
	watchInterval time.Duration
}

func main() {
	// What a stdio server daemonizes is adopted by mcphost and ended with
	// the server (Linux).
	transports.BecomeSubreaper()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newApp(stdin, stdout, stderr).execute(ctx, args)
}

// newApp returns an app with production defaults; tests set its hooks
// before calling execute.
//
// Everything written to stdout and stderr passes through a termtext.Writer:
// server text (tool names, descriptions, results, errors) shows control
// characters escaped, so a server cannot move the cursor, rewrite the
// screen or set the clipboard (OSC 52). JSON output and mcphost's own
// terminal control go to the writer underneath (termtext.RawOf).
func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	rOut, rErr := redact.NewWriter(stdout), redact.NewWriter(stderr)
	return &app{
		stdin: stdin, stdout: termtext.NewWriter(rOut), stderr: termtext.NewWriter(rErr),
		redactors:  []*redact.Writer{rOut, rErr},
		log:        hclog.NewNullLogger(),
		isTerminal: isTerminal,
	}
}

// redactSecrets makes every later line of output replace cfg's secret
// values with ****, unless --show-secrets was given. Whatever prints a
// secret (an HTTP error quoting a URL, a log line, a server echoing a
// token), it does not reach the terminal, a pipe or a log file.
func (a *app) redactSecrets(cfg *config.Config) {
	if a.showSecrets {
		return
	}
	secrets := cfg.SecretValues()
	for _, r := range a.redactors {
		r.SetSecrets(secrets)
	}
}

// resultsDir is where the full results of truncated calls are kept, so
// that "mcphost read mcphost://results/<id>" works after the "mcphost call"
// that printed it: the user cache directory (on Linux
// $XDG_CACHE_HOME/mcphost/results). "" (no cache directory) keeps them in
// memory.
func (a *app) resultsDir() string {
	if a.resultsDirOverride != "" {
		return a.resultsDirOverride
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "mcphost", "results")
}

// flush writes out what the escaping writers held back (an incomplete
// character at the very end).
func (a *app) flush() {
	for _, w := range []io.Writer{a.stdout, a.stderr} {
		if tw, ok := w.(*termtext.Writer); ok {
			_ = tw.Flush()
		}
	}
}

// execute runs one command line and returns the exit status.
func (a *app) execute(ctx context.Context, args []string) int {
	stdin, stdout, stderr := a.stdin, a.stdout, a.stderr
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	defer a.flush()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		fmt.Fprintf(stderr, "mcphost: %v\n", err)
		return ee.code
	case !a.started:
		// cobra refused the command line (unknown command or flag, wrong
		// number of arguments) before the command ran.
		path := "mcphost"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(stderr, "mcphost: %v\nRun \"%s --help\" for usage.\n", err, path)
		return exitUsage
	case ctx.Err() != nil:
		// The error of an interrupted request only says so again
		// ("...: context canceled"): name what was interrupted instead.
		path := "mcphost"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(stderr, "mcphost: interrupted while running %q\n", path)
		return exitInterrupted
	}
	fmt.Fprintf(stderr, "mcphost: %v\n", err)
	return exitFailure
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "mcphost",
		Short: "Connect to MCP servers, list and call their tools",
		Long: `mcphost is an MCP host: it connects to the MCP servers in your configuration
(stdio, SSE, Streamable HTTP, WebSocket), gives every tool a safe public name
and calls tools for you or for an agent.

Configuration is read from the user file (config.yaml in the user config
directory, e.g. ~/.config/mcphost), the project's .mcphost.* and .mcp.json
files (once you run "mcphost trust"), your private servers for this directory
(the local scope, kept in the user config directory), --config, MCPHOST_*
variables and flags. "mcphost mcp add" writes it ("mcphost mcp import" brings
in another client's servers); "mcphost demo" shows everything without any.

Logs go to standard error; standard output carries only results.
Exit status: 0 success; 1 a tool reported an error, a call failed, or (servers,
tools) a server that should run is in state error, reconnecting or needs-auth;
2 usage or configuration error; 130 interrupted (Ctrl-C or SIGTERM).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.started = true
			level := hclog.LevelFromString(a.logLevel)
			if level == hclog.NoLevel {
				return usageError("--log-level %q: use trace, debug, info, warn, error or off", a.logLevel)
			}
			a.log = hclog.New(&hclog.LoggerOptions{Name: "mcphost", Output: a.stderr, Level: level})
			return a.checkSecretStoreFlag()
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.configFile, "config", "", "read this config file too (above the user, project and local files; trusted)")
	pf.StringVar(&a.logLevel, "log-level", "warn", "log level on stderr: trace, debug, info, warn, error, off")
	pf.StringVar(&a.nameScheme, "name-scheme", "", `public tool names: "mcp" (mcp__server__tool), "server" (server_tool) or "tool"`)
	pf.IntVar(&a.maxNameLength, "max-name-length", 0, "longest public tool name (default 64)")
	pf.BoolVarP(&a.yes, "yes", "y", false, `approve calls that a policy wants confirmed, without asking`)
	pf.BoolVar(&a.showSecrets, "show-secrets", false, "show secret values (headers, env, URL passwords and query values) instead of ****")
	pf.StringVar(&a.secretStore, "secret-store", "", `where "mcphost secret set" keeps secrets and ${secret:NAME} reads them: auto (the OS keychain, or a private file where there is none), keychain or file (default $MCPHOST_SECRET_STORE, else auto)`)

	root.AddCommand(
		a.serversCommand(),
		a.toolsCommand(),
		a.callCommand(),
		a.resourcesCommand(),
		a.readCommand(),
		a.promptsCommand(),
		a.promptCommand(),
		a.mcpCommand(),
		a.trustCommand(),
		a.demoCommand(),
		a.pluginCommand(),
		a.loginCommand(),
		a.logoutCommand(),
		a.authCommand(),
		a.serveCommand(),
		a.clientCommand(),
		a.secretCommand(),
		a.doctorCommand(),
		a.versionCommand(root),
	)
	a.registerCompletions(root)
	return root
}

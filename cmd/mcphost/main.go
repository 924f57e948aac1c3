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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/chain"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/elicitform"
	"github.com/mcphost/mcphost/internal/redact"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/plugins"
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
	yes           bool // approve every "confirm" decision without asking
	showSecrets   bool // print secret values instead of ****

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
	globalDir   string
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
			return nil
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.configFile, "config", "", "read this config file too (above the user, project and local files; trusted)")
	pf.StringVar(&a.logLevel, "log-level", "warn", "log level on stderr: trace, debug, info, warn, error, off")
	pf.StringVar(&a.nameScheme, "name-scheme", "", `public tool names: "mcp" (mcp__server__tool), "server" (server_tool) or "tool"`)
	pf.IntVar(&a.maxNameLength, "max-name-length", 0, "longest public tool name (default 64)")
	pf.BoolVarP(&a.yes, "yes", "y", false, `approve calls that a policy wants confirmed, without asking`)
	pf.BoolVar(&a.showSecrets, "show-secrets", false, "show secret values (headers, env, URL passwords and query values) instead of ****")

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
	return root
}

// loadOptions turns the global flags into config load options.
func (a *app) loadOptions() config.LoadOptions {
	o := config.LoadOptions{
		GlobalDir:  a.globalDir,
		WorkDir:    a.workDir,
		ConfigFile: a.configFile,
		Environ:    a.environ,
		Secret:     keychainSecret, // ${secret:NAME}
	}
	over := map[string]any{}
	if a.nameScheme != "" {
		over["names.scheme"] = a.nameScheme
	}
	if a.maxNameLength != 0 {
		over["names.max_length"] = a.maxNameLength
	}
	if len(over) > 0 {
		o.Overrides = over
	}
	return o
}

func (a *app) loadConfig() (*config.Config, error) {
	cfg, err := config.Load(a.loadOptions())
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	a.redactSecrets(cfg)
	for _, w := range cfg.Warnings {
		if a.warned[w] {
			continue // a command may load the configuration twice
		}
		if a.warned == nil {
			a.warned = map[string]bool{}
		}
		a.warned[w] = true
		fmt.Fprintf(a.stderr, "warning: %s\n", termtext.Line(w))
	}
	return cfg, nil
}

// startHost loads the configuration (only the server `only` when it is not
// empty), connects and returns a host the caller must close with closeHost.
func (a *app) startHost(ctx context.Context, only string) (*host.Host, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	if only != "" {
		var keep []*config.Server
		for _, s := range cfg.Servers {
			if s.ID == only {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 {
			return nil, usageError("no server %q is configured (see \"mcphost mcp list\")", only)
		}
		cfg.Servers = keep
	}
	return a.startHostWith(ctx, cfg)
}

func (a *app) startHostWith(ctx context.Context, cfg *config.Config, extra ...host.Option) (*host.Host, error) {
	pl, err := chain.New(ctx, cfg, chain.Options{Plugins: plugins.Options{Logger: a.log, Cache: pluginCache}, ResultsDir: a.resultsDir()})
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	for _, st := range pl.Set.Status() {
		switch {
		case st.Err != nil:
			fmt.Fprintf(a.stderr, "warning: plugin %s did not load; its hooks fail (on_error decides): %v\n", st.Name, st.Err)
		case st.Untrusted:
			fmt.Fprintf(a.stderr, "warning: plugin %s is from an untrusted project file and is not used (mcphost trust)\n", st.Name)
		}
	}
	// The line "connecting to 3 servers…" (see withStartProgress).
	progress := a.newStartProgress(ctx)
	opts := []host.Option{
		// One attempt per server: a command that runs once reports a
		// server that does not start instead of restarting it (npx, say)
		// over and over. servers --watch passes WithConnectAttempts(0).
		host.WithConnectAttempts(1),
		host.WithLogger(a.log),
		host.WithElicitationHandler(progress.elicit(a.elicit)),
		host.WithConfirmer(a.confirm),
	}
	opts = append(opts, progress.options()...)
	opts = append(opts, a.authOptions()...)
	opts = append(opts, pl.HostOptions()...)
	opts = append(opts, a.hostOptions...)
	opts = append(opts, extra...)
	h, err := host.New(cfg, opts...)
	if err != nil {
		a.closePipeline(pl)
		return nil, &exitError{code: exitUsage, err: err}
	}
	a.pipelines = append(a.pipelines, hostPipeline{h, pl})
	progress.begin(h)
	err = h.Start(ctx)
	progress.end() // erased before anything else is printed
	if err != nil {
		if ctx.Err() != nil {
			err = interruptedStarting(h)
		}
		a.closeHost(h)
		return nil, err
	}
	return h, nil
}

// interruptedStarting says which servers were still connecting when the
// user interrupted.
func interruptedStarting(h *host.Host) error {
	var slow []string
	for _, st := range h.Status() {
		if st.State == host.StateConnecting || st.State == host.StateReconnecting {
			slow = append(slow, st.ID)
		}
	}
	if len(slow) == 0 {
		return &exitError{code: exitInterrupted, err: errors.New("interrupted while connecting")}
	}
	return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted while connecting to %s", strings.Join(slow, ", "))}
}

// hostPipeline remembers which plugins a host uses, to close them with it.
type hostPipeline struct {
	h  *host.Host
	pl *chain.Chain
}

func (a *app) closeHost(h *host.Host) {
	ctx, cancel := context.WithTimeout(context.Background(), closeDeadline)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		a.log.Warn("closing servers", "error", err)
	}
	for i, hp := range a.pipelines {
		if hp.h == h {
			a.closePipeline(hp.pl)
			a.pipelines = append(a.pipelines[:i], a.pipelines[i+1:]...)
			break
		}
	}
}

func (a *app) closePipeline(pl *chain.Chain) {
	ctx, cancel := context.WithTimeout(context.Background(), closeDeadline)
	defer cancel()
	if err := pl.Close(ctx); err != nil {
		a.log.Warn("closing plugins", "error", err)
	}
}

// warnUnavailable prints one line per server that could not be used, so a
// listing that lacks a server's tools says why.
func (a *app) warnUnavailable(h *host.Host) {
	for _, st := range h.Status() {
		switch st.State {
		case host.StateError, host.StateNeedsAuth, host.StateUntrusted:
			fmt.Fprintf(a.stderr, "warning: server %s is not available (%s): %s\n", st.ID, st.State, serverError(st))
		case host.StateReconnecting:
			// Its first connect failed; the host would retry, but a
			// one-shot command does not wait for that.
			fmt.Fprintf(a.stderr, "warning: server %s is not available (connect failed): %s\n", st.ID, serverError(st))
		}
	}
}

// isTerminal reports whether f is an interactive terminal.
func isTerminal(v any) bool {
	for unwrapped := false; !unwrapped; {
		switch w := v.(type) {
		case *termtext.Writer:
			v = w.Raw()
		case *redact.Writer:
			v = w.Unwrap()
		default:
			unwrapped = true
		}
	}
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// elicit answers a server's request for input: a small form on a terminal,
// a decline without one (nobody could answer).
func (a *app) elicit(_ context.Context, server string, req *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	if req == nil {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	if req.Mode == "url" || req.URL != "" {
		a.termMu.Lock()
		fmt.Fprintf(a.stderr, "server %s asks you to open %s: %s\n", server, req.URL, req.Message)
		a.termMu.Unlock()
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	if !a.isTerminal(a.stdin) || !a.isTerminal(a.stderr) {
		a.log.Warn("declined an elicitation request: no terminal to ask on", "server", server)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	a.termMu.Lock()
	defer a.termMu.Unlock()
	fmt.Fprintf(a.stderr, "[%s]", server)
	return elicitform.Ask(a.stdin, a.stderr, req.Message, req.RequestedSchema)
}

package main

import (
	"context"
	"fmt"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/argcheck"
	"github.com/mcphost/mcphost/internal/suggest"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/pdk/abi"
)

func (a *app) callCommand() *cobra.Command {
	var (
		argsFlag string
		timeout  time.Duration
		asJSON   bool
		noCheck  bool
		server   adhocFlags
	)
	cmd := &cobra.Command{
		Use:   "call NAME [KEY=VALUE...] [-- CMD ARGS...]",
		Short: "Call a tool by its public name (or server:tool)",
		Long: `Call a tool by its public name (see "mcphost tools") or as server:tool.

Arguments are KEY=VALUE words after the name, a JSON object with --args, or
both (KEY=VALUE then sets or replaces that key of --args). A KEY=VALUE is
typed by the tool's input schema: a number for "number" and "integer",
true/false for "boolean", null for "null", JSON for "object" and "array",
text otherwise; KEY:=JSON takes JSON as it is (a=1 is the number 1 when a
is a number, a:='"1"' the text "1"). --args takes '{"text":"hi"}',
@file.json, or - to read standard input.

The arguments are checked against the tool's input schema before they are
sent: a missing required argument, a value of the wrong type, a value
outside an enum or a bound, or an unknown argument is reported at once, by
name. An argument the schema does not declare is refused when it is close
to one it does ("haed" for "head"), when a required argument is missing, or
when the schema allows no others; any other one is sent, with a warning.
--no-check sends them as they are.

The text content of the result is printed; other content is summarised (use
--json for the whole result). Progress notifications are shown on standard
error when it is a terminal.
` + adhocHelp + `

Exit status: 0 success, 1 the tool reported an error, the call failed or
the name is unknown while a server did not start, 2 usage or configuration
error (bad arguments, unknown tool).`,
		Example: `  mcphost call mcp__everything__get-sum a=1 b=2
  mcphost call everything:echo message="hello world"
  mcphost call github:search_issues q=mcp --timeout 2m --json
  mcphost call mcp__everything__echo --args '{"message":"hi"}'
  echo '{"message":"hi"}' | mcphost call everything:echo --args -
  mcphost call get-sum a=1 b=2 -- npx -y @modelcontextprotocol/server-everything
  mcphost call --url http://127.0.0.1:3001/mcp -H "Authorization: Bearer $TOKEN" echo message=hi`,
		Args: callArgs,
		RunE: func(cmd *cobra.Command, posArgs []string) error {
			own := server.take(cmd, posArgs)
			name, items := own[0], own[1:]
			base, err := argcheck.ReadArgs(cmd.Context(), argsFlag, a.stdin)
			if err != nil {
				if cmd.Context().Err() != nil {
					return &exitError{code: exitInterrupted, err: err}
				}
				return &exitError{code: exitUsage, err: err}
			}
			// KEY=VALUE mistakes that need no schema are reported before
			// any server starts.
			if _, err := argcheck.Assign(nil, items, nil); err != nil {
				return usageError("%v", err)
			}
			h, tool, err := a.startForTool(withStartProgress(cmd.Context(), !asJSON), &server, name)
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			args, err := argcheck.Assign(base, items, tool.InputSchema)
			if err != nil {
				return usageError("%v", err)
			}
			if !noCheck {
				if err := a.checkArgs(tool, name, args); err != nil {
					return err
				}
			}
			res, err := a.callWithProgress(cmd.Context(), h, tool.Name, name, args, timeout)
			if err != nil {
				return err
			}
			if asJSON {
				if err := printJSON(a.stdout, res); err != nil {
					return err
				}
			} else {
				printResult(a.stdout, res)
			}
			if res.IsError {
				return &exitError{code: exitFailure, err: fmt.Errorf("tool %s reported an error (its message is on standard output)", termtext.Line(name))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&argsFlag, "args", "", "arguments as a JSON object, @FILE, or - for stdin")
	f.DurationVar(&timeout, "timeout", 0, "deadline for this call (default: the server's request_timeout)")
	f.BoolVar(&asJSON, "json", false, "print the whole result as JSON")
	f.BoolVar(&noCheck, "no-check", false, "send the arguments without checking them against the tool's input schema")
	server.register(f)
	return cmd
}

// callArgs accepts the tool's name and KEY=VALUE words, before any "--".
// An argument is named by position, not shown: it may hold a secret.
func callArgs(cmd *cobra.Command, args []string) error {
	own := beforeDash(cmd, args)
	if len(own) == 0 {
		return fmt.Errorf("accepts 1 arg(s), received 0: give the tool's name (see \"mcphost tools\"), then KEY=VALUE arguments")
	}
	for i, arg := range own[1:] {
		if !strings.Contains(arg, "=") {
			return fmt.Errorf("accepts 1 arg(s) (the tool's name), then KEY=VALUE arguments: argument %d has no \"=\"", i+1)
		}
	}
	return nil
}

// checkArgs checks args against the tool's input schema: a usage error
// listing each problem, or nil. Arguments the schema does not declare but
// allows are sent, with a warning on standard error.
func (a *app) checkArgs(tool host.Tool, name string, args map[string]any) error {
	warnings, err := argcheck.Review(tool.InputSchema, args)
	return a.argsVerdict("tool", name, "tools show "+tool.Name, warnings, err)
}

// argsVerdict prints the warnings of an argument check of the tool or
// prompt name, and makes its problems one usage error that says where to
// see what it takes (a "mcphost" command) and how to send them anyway.
func (a *app) argsVerdict(what, name, see string, warnings []string, err error) error {
	e, refused := argcheck.AsError(err)
	if !refused {
		for _, w := range warnings {
			fmt.Fprintf(a.stderr, "warning: %s %s: %s\n", what, termtext.Line(name), termtext.Line(w))
		}
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the arguments of %s do not fit ", termtext.Line(name))
	if what == "prompt" {
		b.WriteString("the arguments it declares:")
	} else {
		b.WriteString("its input schema:")
	}
	for _, p := range e.Problems {
		b.WriteString("\n  " + termtext.Line(p))
	}
	fmt.Fprintf(&b, "\nsee \"mcphost %s\" for what it takes, or pass --no-check to send them as they are", termtext.Line(see))
	return usageError("%s", b.String())
}

// callWithProgress calls the tool (public name), drawing its progress
// notifications on standard error when that is a terminal. typed is the
// name as the person wrote it, for messages.
func (a *app) callWithProgress(ctx context.Context, h *host.Host, name, typed string, args map[string]any, timeout time.Duration) (*mcp.CallToolResult, error) {
	opts := []host.CallOption{host.WithCaller(cliCaller())}
	if timeout > 0 {
		opts = append(opts, host.WithTimeout(timeout))
	}
	// Progress redraws one line with \r and an escape sequence: only on a
	// terminal, never into a file or a pipe.
	showProgress := a.isTerminal(a.stderr)
	callDone := false // under termMu: late progress must not redraw
	if showProgress {
		opts = append(opts, host.WithProgress(func(p host.Progress) {
			a.termMu.Lock()
			defer a.termMu.Unlock()
			if !callDone {
				// Own terminal control, raw; the line itself is server
				// text, escaped by progressLine.
				fmt.Fprintf(termtext.RawOf(a.stderr), "\r\033[K%s", progressLine(p))
			}
		}))
	}
	res, err := h.CallTool(ctx, name, args, opts...)
	if showProgress {
		a.termMu.Lock()
		callDone = true
		fmt.Fprint(termtext.RawOf(a.stderr), "\r\033[K")
		a.termMu.Unlock()
	}
	if err != nil && ctx.Err() != nil {
		// Ctrl-C: the cause is the interruption, said plainly.
		return nil, &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted while calling %s", termtext.Line(typed))}
	}
	return res, err
}

// unknownTool is the error for a name that resolves to no tool of h: the
// server it names does not exist, or the names that come close. When a
// server did not start, the tool may be one of its: a failure (exit 1),
// not a usage error.
func (a *app) unknownTool(h *host.Host, name string) error {
	if srv, ok := suggest.ServerOf(name); ok {
		for _, st := range h.Status() {
			if st.ID == srv && (st.State == host.StateDisabled || st.State == host.StateUntrusted || st.State == host.StateBlocked) {
				// Its tools are not listed: say why, not "unknown".
				return usageError("tool %s: %v", termtext.Line(strconv.Quote(name)), serverReady(h, srv))
			}
		}
	}
	a.warnUnavailable(h)
	tools := h.Tools()
	listed := make([]suggest.Tool, len(tools))
	for i, t := range tools {
		listed[i] = suggest.Tool{Public: t.Name, Display: t.Display, Server: t.Server, Tool: t.Tool}
	}
	msg := termtext.Line(suggest.UnknownTool(name, listed, h.ServerIDs()))
	if failed := failedServers(h.Status()); failed != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("%s, while %v (see the warnings above)", msg, failed)}
	}
	return usageError("%s (see \"mcphost tools\")", msg)
}

// progressLine is one line of progress: server, percentage or count, message.
func progressLine(p host.Progress) string {
	line := fmt.Sprintf("%s: %g", p.Server, p.Progress)
	if p.Total > 0 {
		line = fmt.Sprintf("%s: %3.0f%%", p.Server, 100*p.Progress/p.Total)
	}
	if p.Message != "" {
		line += " " + p.Message
	}
	return oneLine(line, 100)
}

// startHostFor starts what a call of the tool name needs: the one server
// the name belongs to when that is known without listing, else every
// server. "server:tool" names its server, and so does "mcp__server__tool"
// under the default naming scheme (server ids cannot contain "__"). A
// name that surely names no configured server is refused before any
// server starts.
func (a *app) startHostFor(ctx context.Context, name string) (*host.Host, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	srv := cfg.ServerOfTool(name)
	for _, s := range cfg.Servers {
		if s.ID == srv {
			cfg.Servers = []*config.Server{s}
			return a.startHostWith(ctx, cfg)
		}
	}
	// Options of the embedding (tests) may bring in-process servers that
	// the configuration does not list: then only the listing can tell.
	if srv != "" && len(a.hostOptions) == 0 && cfg.SurelyNamesServer(name, srv) {
		ids := make([]string, len(cfg.Servers))
		for i, s := range cfg.Servers {
			ids[i] = s.ID
		}
		return nil, usageError("tool %s: %s (see \"mcphost mcp list\")", termtext.Line(strconv.Quote(name)), termtext.Line(suggest.UnknownServer(srv, ids)))
	}
	return a.startHostWith(ctx, cfg)
}

// cliCaller tells policies that a person on the command line is calling.
func cliCaller() abi.Caller {
	c := abi.Caller{Kind: "cli"}
	if u, err := user.Current(); err == nil {
		c.ID = u.Username
	}
	return c
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/providers"
	"github.com/mcphost/mcphost/internal/termtext"
)

// printJSON writes v exactly (the encoder escapes control characters in
// strings itself), past the terminal escaping of the app's writers.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(termtext.RawOf(w))
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func table(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}

// oneLine shortens s to its first line and at most n runes, for tables,
// with control characters escaped (server text).
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s = termtext.Line(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func (a *app) serversCommand() *cobra.Command {
	var (
		asJSON, watch bool
		server        adhocFlags
	)
	cmd := &cobra.Command{
		Use:   "servers",
		Short: "Connect to every configured server and show its status",
		Long: `Connect to every configured server and show its state: ready, error,
needs-auth, untrusted (a project file not trusted yet: run "mcphost trust"),
disabled, or blocked (a rule of the administrator's managed configuration
blocks it: the error names the rule and its file; it never starts). A
server that fails shows its error and the lines of its stderr that say why
(those naming an error, not npm's log footer); it never stops the others.
Use "mcphost mcp list" to see the configuration without connecting.

Below the servers come the plugins of the configuration: their hooks, state
(loaded; error: it did not load, and its hooks fail as its on_error says;
untrusted: from a project file not trusted yet, not used; blocked: the
managed configuration's plugins setting keeps it out, not used), mode
(enforce or shadow), the servers they apply to and the file they come from. With --json
each server's object has a "plugins" array: the plugins that take part in
its calls, in chain order, each {"name", "hooks", "state", "mode"}.

With --watch the command keeps running until Ctrl-C (or SIGTERM) and shows
what happens: servers that lose their connection (reconnecting, with the
attempt number and the time of the next retry), their last errors, and
servers that come back. On a terminal it redraws a table every second and
on every change; otherwise it prints the table once, then one line per
change:

  2025-01-02T15:04:05+01:00 github reconnecting attempt 3: server "github": connect: ...
  2025-01-02T15:04:07+01:00 github ready
  2025-01-02T15:04:09+01:00 github tools updated

With --watch --json it prints one JSON object per line instead: first
{"time", "servers": [...]} (the objects of "servers --json"), then
{"time", "server", "kind", "state", "attempt", "error"} per change, kind
being state, tools, resources or prompts. The attempt is the number of the
connect attempt under way or next, as in "servers --json".

While it runs, edits of the configuration files are applied (they are
looked at every second): added servers connect, removed ones disconnect,
changed ones reconnect, the others are left alone. Each reload prints
"config: added a; removed b; changed c" (in JSON {"time", "config":
{"added", "removed", "changed", "errors", ...}}); a file that does not load
is reported and changes nothing. Changes to plugins, policy, results and
names apply at the next start.
` + adhocHelp,
		Args: noArgsBeforeDash,
		RunE: func(cmd *cobra.Command, args []string) error {
			server.take(cmd, args)
			if watch {
				if server.set() {
					return usageError("--watch follows the configured servers; it does not take an ad-hoc server")
				}
				return a.watchServers(cmd.Context(), asJSON)
			}
			h, _, err := a.startListing(withStartProgress(cmd.Context(), !asJSON), &server, "")
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			st := h.Status()
			reports := a.pluginReports(h)
			if asJSON {
				list, err := serversWithPlugins(st, reports)
				if err != nil {
					return err
				}
				if err := printJSON(a.stdout, list); err != nil {
					return err
				}
			} else {
				if err := printServers(a.stdout, st); err != nil {
					return err
				}
				if err := printPlugins(a.stdout, reports); err != nil {
					return err
				}
			}
			return failedServers(st)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array (with --watch: one JSON object per line)")
	cmd.Flags().BoolVar(&watch, "watch", false, "keep running: show state changes, reconnects and errors live, and apply config file edits")
	server.register(cmd.Flags())
	return cmd
}

// failedServers is the exit status of servers and tools: 1 (with the
// failed servers named) when a server that should run is in state error,
// reconnecting or needs-auth after its connect; disabled and untrusted
// servers do not count. The output above it is complete either way.
func failedServers(st []host.ServerStatus) error {
	var failed []string
	for _, s := range st {
		switch s.State {
		case host.StateError, host.StateReconnecting, host.StateNeedsAuth:
			failed = append(failed, s.ID)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return &exitError{code: exitFailure, err: fmt.Errorf("%d of %d servers did not start: %s", len(failed), len(st), strings.Join(failed, ", "))}
}

// printServers prints the table of "mcphost servers", then the errors.
func printServers(w io.Writer, st []host.ServerStatus) error {
	tw := table(w)
	fmt.Fprintln(tw, "ID\tTRANSPORT\tSTATE\tTOOLS\tSERVER\tPROTOCOL\tCONNECT\tSOURCE")
	for _, s := range st {
		server := strings.TrimSpace(s.ServerName + " " + s.ServerVersion)
		connect := ""
		if s.ConnectDuration > 0 {
			connect = s.ConnectDuration.Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", s.ID, s.Transport, s.State, s.Tools,
			termtext.Line(server), termtext.Line(s.ProtocolVersion), connect, termtext.Line(s.Source))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printServerErrors(w, st)
	return nil
}

// printServerErrors prints each server's error and the stderr lines that
// say why it failed.
func printServerErrors(w io.Writer, st []host.ServerStatus) {
	for _, s := range st {
		for _, warning := range s.Warnings {
			fmt.Fprintf(w, "\n%s: warning: %s\n", s.ID, termtext.Line(warning))
		}
		if s.Error == "" {
			continue
		}
		fmt.Fprintf(w, "\n%s: %s\n", s.ID, serverFailure(s))
	}
}

func (a *app) toolsCommand() *cobra.Command {
	var (
		asJSON    bool
		serverID  string
		server    adhocFlags
		format    string
		nonStrict bool
	)
	cmd := &cobra.Command{
		Use:   "tools [-- CMD ARGS...]",
		Short: "List the tools of every ready server with their public names",
		Long: `List the tools of every ready server. NAME is the public name that agents
see and "mcphost call" takes; SERVER:TOOL is accepted by "mcphost call" too.
Servers that could not be used are named on standard error.
"mcphost tools show NAME" prints one tool's description and schemas.

--format prints the tools as a model provider's API takes them, ready to put
in a request: openai (Chat Completions), openai-responses, anthropic, gemini
(function declarations) or mcp. Schemas are converted to what the provider
accepts (OpenAI strict mode where possible; Gemini's OpenAPI subset) and
names fit its limits; every lossy conversion is a warning on standard error.
` + adhocHelp,
		Example: `  mcphost tools
  mcphost tools --server github --json
  mcphost tools -- npx -y @modelcontextprotocol/server-everything
  mcphost tools --url http://127.0.0.1:3001/sse -t sse
  mcphost tools show mcp__everything__get-sum
  mcphost tools --format openai > tools.json
  mcphost tools --format gemini -- npx -y @modelcontextprotocol/server-everything`,
		Args: noArgsBeforeDash,
		RunE: func(cmd *cobra.Command, args []string) error {
			server.take(cmd, args)
			var pf providers.Format
			if format != "" {
				if asJSON {
					return usageError("--format prints JSON already; leave out --json")
				}
				f, err := providers.ParseFormat(format)
				if err != nil {
					return usageError("--format: %v", err)
				}
				pf = f
			} else if nonStrict {
				return usageError("--no-strict goes with --format openai or openai-responses")
			}
			h, serverID, err := a.startListing(withStartProgress(cmd.Context(), !asJSON && pf == ""), &server, serverID)
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			if serverID != "" {
				if err := serverReady(h, serverID); err != nil {
					return err
				}
			} else {
				a.warnUnavailable(h)
			}
			if pf != "" {
				// What a model is offered: without the tools the policy
				// always denies.
				return a.printProviderTools(pf, h.Tools(), nonStrict, h)
			}
			// People see every tool, the denied ones marked, and why
			// pinning hides some.
			warnPins(a.stderr, h)
			tools := h.AllTools()
			if asJSON {
				if tools == nil {
					tools = []host.Tool{}
				}
				if err := printJSON(a.stdout, tools); err != nil {
					return err
				}
				return failedServers(h.Status())
			}
			if err := printTools(a.stdout, tools); err != nil {
				return err
			}
			return failedServers(h.Status())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	cmd.Flags().StringVar(&format, "format", "", "print the tools in a model provider's format: "+formatNames())
	cmd.Flags().BoolVar(&nonStrict, "no-strict", false, "with --format openai or openai-responses: send the schemas as written (strict: false) instead of rewriting them for strict mode")
	cmd.Flags().StringVar(&serverID, "server", "", "only the tools of this server (an id from \"mcphost mcp list\")")
	server.register(cmd.Flags())
	cmd.AddCommand(a.toolsShowCommand(), a.toolsDiffCommand(), a.toolsApproveCommand(), a.toolsPinsCommand())
	return cmd
}

// printProviderTools prints tools as format's tool list, and each warning
// of the conversion on stderr.
func (a *app) printProviderTools(format providers.Format, tools []host.Tool, nonStrict bool, h *host.Host) error {
	ts, err := providers.Convert(format, tools, &providers.Options{NonStrict: nonStrict})
	if err != nil {
		return err
	}
	for _, w := range ts.Warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", termtext.Line(w.String()))
	}
	if err := printJSON(a.stdout, ts.Tools); err != nil {
		return err
	}
	return failedServers(h.Status())
}

func formatNames() string {
	var names []string
	for _, f := range providers.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// printTools prints the table of "mcphost tools".
func printTools(w io.Writer, tools []host.Tool) error {
	tw := table(w)
	fmt.Fprintln(tw, "NAME\tSERVER:TOOL\tDESCRIPTION")
	for _, t := range tools {
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		if t.Denied != "" {
			desc = "DENIED (" + t.Denied + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", termtext.Line(t.Name), termtext.Line(t.Display), oneLine(desc, 70))
	}
	return tw.Flush()
}

// serverReady returns an error saying why server id is not ready, or nil.
func serverReady(h *host.Host, id string) error {
	for _, st := range h.Status() {
		if st.ID != id || st.State == host.StateReady {
			continue
		}
		switch {
		case st.State == host.StateBlocked:
			// The administrator's words: the rule and its file.
			return fmt.Errorf("server %s is %s", id, termtext.Line(st.Error))
		case st.State == host.StateDisabled:
			return fmt.Errorf("server %s is disabled (enable it with \"mcphost mcp enable %s\")", id, id)
		case st.Error != "":
			return fmt.Errorf("server %s is not available (%s): %s", id, st.State, serverFailure(st))
		}
		return fmt.Errorf("server %s is not available (%s)", id, st.State)
	}
	return nil
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}

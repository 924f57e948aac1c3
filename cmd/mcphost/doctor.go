package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/doctor"
	"github.com/mcphost/mcphost/internal/termtext"
)

func (a *app) doctorCommand() *cobra.Command {
	var (
		asJSON  bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the configuration, trust, commands, plugins, servers, logins and tool pins, and say what to fix",
		Long: `Check everything mcphost needs and print one line per check, ok, warn, fail
or skip, each problem with its fix:

  config   every configuration file found loads (and its warnings)
  managed  the administrator's managed configuration: its directory, the
           files read (or none), its rules in short, the servers and
           plugins of yours it blocks, and a warning for each managed file
           or directory that someone other than root can change (not
           tamper-proof)
  trust    the project's files (.mcphost.*, .mcp.json) are trusted, or
           which servers and plugins wait for "mcphost trust"
  command  the program of each stdio server (npx, uvx, docker...) is
           installed, with how to install it when it is not
  plugin   each plugin loads and describes itself, its file matches its
           sha256 pin, and the hooks it serves
  server   each enabled server connects, initializes and lists its tools
           (how long that took), or why not, with the stderr lines that say why
  auth     each remote server's login: logged in, static credentials, or
           "mcphost login ID"
  pins     the tool pin store (pins.json in the state directory) and the
           managed pin files: readable, what they pin, and the tools that
           changed since they were approved ("mcphost tools diff")

Servers are started at the same time, each within its startup_timeout, all
within --timeout, and stopped again; nothing is written.

--json prints {"ok", "summary": {"ok", "warn", "fail", "skip"}, "checks":
[{"kind", "subject", "status", "message", "fix", "details", "latency_ms"}],
"managed": {"dir", "files", "allowed_servers", "denied_servers",
"allow_user_servers", "allow_project_servers", "plugins",
"require_signed_plugins", "lock_settings", "servers", "blocked_servers",
"blocked_plugins", "writable"}}.

Exit status: 0 nothing failed (warnings allowed), 1 a check failed, 130
interrupted.`,
		Example: `  mcphost doctor
  mcphost doctor --json | jq '.checks[] | select(.status == "fail")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if timeout <= 0 {
				return usageError("--timeout %s: give a positive duration, like 2m", timeout)
			}
			ctx := cmd.Context()
			pinStore, err := a.pinStoreFile()
			if err != nil {
				return err
			}
			plugLog := a.log
			if !cmd.Flags().Changed("log-level") {
				// The report says why a plugin did not load; the runtime's
				// error line would say it again.
				plugLog = hclog.NewNullLogger()
			}
			rep := doctor.Run(ctx, doctor.Options{
				Load: a.loadOptions(),
				// Secrets of the configuration never reach the output,
				// whatever a server's error quotes.
				Configured: a.redactSecrets,
				TokenStore: func() (authn.Store, error) { return a.tokenStore() },
				Plugins:    a.pluginOptions(plugLog),
				// The client servers see is the one of tools and call
				// (elicitation declared): a server that offers tools by
				// the client's capabilities offers doctor the same.
				HostOptions: append([]host.Option{identity(), host.WithElicitationHandler(a.elicit)}, a.hostOptions...),
				Logger:      a.log,
				Timeout:     timeout,
				PinStore:    pinStore,
			})
			if ctx.Err() != nil {
				return &exitError{code: exitInterrupted, err: errors.New("interrupted while checking")}
			}
			if asJSON {
				if err := printJSON(a.stdout, rep); err != nil {
					return err
				}
			} else {
				printDoctor(a.stdout, rep)
			}
			if !rep.OK {
				return &exitError{code: exitFailure, err: fmt.Errorf("doctor: %s failed", plural(rep.Summary.Fail, "check"))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object with the list of checks")
	cmd.Flags().DurationVar(&timeout, "timeout", doctor.DefaultTimeout, "bound on loading the plugins and on starting the servers")
	return cmd
}

// printDoctor writes one line per check, its details and fix indented
// under it, then the summary. Everything from outside (server errors,
// stderr lines, file contents quoted in errors) is escaped as one line.
func printDoctor(w io.Writer, rep *doctor.Report) {
	const indent = "               " // under the message: 4 + 2 + 7 + 2
	for _, c := range rep.Checks {
		line := c.Message
		if c.Subject != "" {
			line = c.Subject + ": " + line
		}
		fmt.Fprintf(w, "%-4s  %-7s  %s\n", c.Status, c.Kind, termtext.Line(line))
		for _, d := range c.Details {
			fmt.Fprintf(w, "%s| %s\n", indent, termtext.Line(d))
		}
		if c.Fix != "" && c.Status != doctor.OK {
			fmt.Fprintf(w, "%sfix: %s\n", indent, termtext.Line(c.Fix))
		}
	}
	s := rep.Summary
	parts := []string{fmt.Sprintf("%d ok", s.OK), plural(s.Warn, "warning"), plural(s.Fail, "failure")}
	if s.Skip > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", s.Skip))
	}
	fmt.Fprintf(w, "\n%s\n", strings.Join(parts, ", "))
}

// plural is "1 check", "2 checks".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

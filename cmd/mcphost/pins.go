package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/pinstore"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/internal/userdirs"
)

// Tool pinning from the command line: tools diff, tools approve, tools pins.

// pinStoreFile is where the command keeps its pins: pins.json in the
// user's state directory (the gateway has its own, see serve --pin-store),
// or the store the tools subcommands were pointed at.
func (a *app) pinStoreFile() (string, error) {
	if a.pinStore != "" {
		return a.pinStore, nil
	}
	return a.stateFile("pins.json")
}

// gatewayPinStore is the gateway's pin store: flag, else
// gateway-pins.json in the user's state directory.
func (a *app) gatewayPinStore(flag string) (string, error) {
	if flag != "" {
		return filepath.Abs(flag)
	}
	return a.stateFile("gateway-pins.json")
}

// pinStoreFlags points tools diff, approve and pins at another store.
func (a *app) pinStoreFlags(cmd *cobra.Command) {
	var gw bool
	cmd.Flags().StringVar(&a.pinStore, "pin-store", "", "use the pin store FILE (e.g. a gateway's --pin-store)")
	cmd.Flags().BoolVar(&gw, "gateway", false, "use the store of \"mcphost serve\" (gateway-pins.json in the user's state directory)")
	cmd.PreRunE = func(*cobra.Command, []string) error {
		if !gw {
			return nil
		}
		if a.pinStore != "" {
			return usageError("--gateway and --pin-store name two stores: give one")
		}
		p, err := a.gatewayPinStore("")
		a.pinStore = p
		return err
	}
}

func (a *app) stateFile(name string) (string, error) {
	dir := a.stateDir
	if dir == "" {
		d, err := userdirs.ProcessState()
		if err != nil {
			return "", fmt.Errorf("the pin store: %w", err)
		}
		dir = d
	}
	return filepath.Join(dir, name), nil
}

// warnPins prints pinning's warnings (tools hidden or confirmed because
// they changed since they were approved) on w.
func warnPins(w io.Writer, h *host.Host) {
	for _, st := range h.Status() {
		for _, pw := range st.PinWarnings {
			fmt.Fprintf(w, "warning: server %s: %s\n", termtext.Line(st.ID), termtext.Line(pw))
		}
	}
}

// splitServerTool splits SERVER[:TOOL].
func splitServerTool(arg string) (server, tool string) {
	server, tool, _ = strings.Cut(arg, ":")
	return server, tool
}

func (a *app) toolsDiffCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff [SERVER[:TOOL]]",
		Short: "Show the tools that changed since they were approved, or are new",
		Long: `Connect to the servers (one server, or one tool, when named) and show each tool
whose definition differs from what was approved (pinned): a line diff of its
title, description, input and output schemas and annotations against what
was approved, and each new tool in full. Text from servers is escaped.

Exit status: 0 when nothing is pending, 1 when changes are shown (as diff
does), 2 for a bad argument. "mcphost tools approve SERVER[:TOOL]" accepts
a change; --fingerprint makes sure it accepts what was shown.`,
		Example: `  mcphost tools diff
  mcphost tools diff everything:echo
  mcphost tools diff --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			server, tool := "", ""
			if len(args) == 1 {
				server, tool = splitServerTool(args[0])
			}
			h, err := a.startHost(withStartProgress(cmd.Context(), !asJSON), server)
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			if server != "" {
				if err := serverReady(h, server); err != nil {
					return err
				}
			} else {
				a.warnUnavailable(h)
			}
			changes, err := h.PinChanges(server)
			if err != nil {
				return err
			}
			changes = onlyTool(changes, tool)
			if asJSON {
				if changes == nil {
					changes = []host.PinChange{}
				}
				if err := printJSON(a.stdout, changes); err != nil {
					return err
				}
			} else if len(changes) == 0 {
				fmt.Fprintln(a.stdout, "No changes: every tool is as it was approved.")
			} else {
				printPinChanges(a.stdout, changes)
			}
			if len(changes) > 0 {
				return &exitError{code: exitFailure, err: fmt.Errorf("%s changed or new since approved (see above; approve with \"mcphost tools approve SERVER[:TOOL]\")", plural(len(changes), "tool"))}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of the changes")
	a.pinStoreFlags(cmd)
	return cmd
}

func onlyTool(changes []host.PinChange, tool string) []host.PinChange {
	if tool == "" {
		return changes
	}
	var out []host.PinChange
	for _, c := range changes {
		if c.Tool == tool {
			out = append(out, c)
		}
	}
	return out
}

func printPinChanges(w io.Writer, changes []host.PinChange) {
	for i, c := range changes {
		if i > 0 {
			fmt.Fprintln(w)
		}
		display := termtext.Line(c.Server + ":" + c.Tool)
		fp, _ := pinstore.Fingerprint(c.Current)
		switch {
		case c.State == host.PinNew:
			fmt.Fprintf(w, "%s is new (the server did not have it when its tools were approved)\n", display)
		case c.ApprovedAt.IsZero():
			fmt.Fprintf(w, "%s changed since it was approved\n", display)
		default:
			fmt.Fprintf(w, "%s changed since it was approved on %s\n", display, c.ApprovedAt.UTC().Format(time.DateTime+" UTC"))
		}
		if c.State == host.PinChanged && c.Approved == nil {
			fmt.Fprintln(w, "  (what was approved was too large to keep: only its fingerprint was; shown whole, as now)")
		}
		fmt.Fprint(w, c.Diff())
		fmt.Fprintf(w, "  now: %s\n", fp)
		if c.Managed != "" {
			fmt.Fprintf(w, "  pinned by the managed pin file %s: it cannot be approved here\n", termtext.Line(c.Managed))
			continue
		}
		fmt.Fprintf(w, "  approve: mcphost tools approve %s --fingerprint %s\n", display, fp)
	}
}

func (a *app) toolsApproveCommand() *cobra.Command {
	var (
		asJSON      bool
		fingerprint string
	)
	cmd := &cobra.Command{
		Use:   "approve SERVER[:TOOL]",
		Short: "Approve the changed and new tools of a server, or one tool",
		Long: `Connect to the server, take its tools as it lists them now, and record the
changed and new ones (or the one named) as approved in the pin store: they
are offered and callable again, here and in a gateway using the same store.
What is approved is printed, as "mcphost tools diff" shows it.

--fingerprint (with SERVER:TOOL) approves only if the tool is still what
"mcphost tools diff" showed: a server that changed it again in between is
refused. A tool pinned by a managed pin file cannot be approved here.`,
		Example: `  mcphost tools approve everything:echo
  mcphost tools approve everything:echo --fingerprint sha256:…
  mcphost tools approve everything`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			server, tool := splitServerTool(args[0])
			if fingerprint != "" && tool == "" {
				return usageError("--fingerprint needs one tool: SERVER:TOOL")
			}
			h, err := a.startHost(withStartProgress(cmd.Context(), !asJSON), server)
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			if err := serverReady(h, server); err != nil {
				return err
			}
			approved, err := h.ApprovePins(server, tool, fingerprint)
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			if asJSON {
				if approved == nil {
					approved = []host.PinChange{}
				}
				return printJSON(a.stdout, approved)
			}
			if len(approved) == 0 {
				fmt.Fprintf(a.stdout, "Nothing to approve: every tool of %s is as it was approved.\n", termtext.Line(server))
				return nil
			}
			for i, c := range approved {
				if i > 0 {
					fmt.Fprintln(a.stdout)
				}
				fmt.Fprintf(a.stdout, "Approved %s (%s):\n", termtext.Line(c.Server+":"+c.Tool), c.State)
				fmt.Fprint(a.stdout, c.Diff())
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what was approved as a JSON array")
	cmd.Flags().StringVar(&fingerprint, "fingerprint", "", "approve only if the tool's fingerprint is this one (as \"mcphost tools diff\" printed it)")
	a.pinStoreFlags(cmd)
	return cmd
}

// pinRow is one pinned tool, for tools pins.
type pinRow struct {
	Server      string    `json:"server"`
	Transport   string    `json:"transport,omitempty"`
	Target      string    `json:"target,omitempty"`
	Tool        string    `json:"tool"`
	Fingerprint string    `json:"fingerprint"`
	ApprovedAt  time.Time `json:"approved_at"`
	// Managed is the managed pin file the pin comes from ("": the store).
	Managed string `json:"managed,omitempty"`
}

func (a *app) toolsPinsCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "pins",
		Short: "List the pinned tools: the store's and the managed pin files'",
		Long: `List what is pinned, without connecting to any server: for each server (by id,
transport and command or URL) and tool, its fingerprint and when it was
approved, from the pin store (pins.json in the user's state directory) and
the managed pin files.`,
		Example: `  mcphost tools pins
  mcphost tools pins --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := a.pinStoreFile()
			if err != nil {
				return err
			}
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			var rows []pinRow
			add := func(f *pinstore.File, managed string) {
				for _, sp := range f.SortedServers() {
					for _, name := range sortedKeys(sp.Tools) {
						p := sp.Tools[name]
						rows = append(rows, pinRow{Server: sp.ID, Transport: sp.Transport, Target: sp.Target, Tool: name, Fingerprint: p.Fingerprint, ApprovedAt: p.ApprovedAt, Managed: managed})
					}
				}
			}
			store := &pinstore.Store{Path: path}
			f, _, err := store.Load()
			if err != nil {
				return err
			}
			add(f, "")
			for _, mf := range cfg.Pinning.ManagedFiles {
				f, err := pinstore.ReadFile(mf)
				if errors.Is(err, fs.ErrNotExist) {
					fmt.Fprintf(a.stderr, "warning: the managed pin file %s does not exist\n", termtext.Line(mf))
					continue
				}
				if err != nil {
					return err
				}
				add(f, mf)
			}
			if asJSON {
				if rows == nil {
					rows = []pinRow{}
				}
				return printJSON(a.stdout, rows)
			}
			fmt.Fprintf(a.stdout, "Pin store: %s\n", termtext.Line(path))
			if len(rows) == 0 {
				fmt.Fprintln(a.stdout, "Nothing is pinned yet: a server's tools are pinned when it is first listed.")
				return nil
			}
			tw := table(a.stdout)
			fmt.Fprintln(tw, "SERVER\tTOOL\tAPPROVED\tFINGERPRINT\tFROM")
			for _, r := range rows {
				from := termtext.Line(r.Transport + " " + r.Target)
				if r.Managed != "" {
					from = "managed: " + termtext.Line(r.Managed)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termtext.Line(r.Server), termtext.Line(r.Tool), r.ApprovedAt.UTC().Format(time.DateTime), shortFingerprint(r.Fingerprint), from)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	a.pinStoreFlags(cmd)
	return cmd
}

// shortFingerprint is enough of a fingerprint to tell two apart at a
// glance; --json has it whole.
func shortFingerprint(fp string) string {
	if len(fp) > len("sha256:")+12 {
		return fp[:len("sha256:")+12]
	}
	return fp
}

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func table(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
}

// oneLine shortens s to its first line and at most n runes, for tables.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func (a *app) serversCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "servers",
		Short: "Connect to every configured server and show its status",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.startHost(cmd.Context(), "")
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			st := h.Status()
			if asJSON {
				return printJSON(a.stdout, st)
			}
			tw := table(a.stdout)
			fmt.Fprintln(tw, "ID\tTRANSPORT\tSTATE\tTOOLS\tSERVER\tPROTOCOL\tCONNECT\tSOURCE")
			for _, s := range st {
				server := strings.TrimSpace(s.ServerName + " " + s.ServerVersion)
				connect := ""
				if s.ConnectDuration > 0 {
					connect = s.ConnectDuration.Round(time.Millisecond).String()
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", s.ID, s.Transport, s.State, s.Tools, server, s.ProtocolVersion, connect, s.Source)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, s := range st {
				if s.Error != "" {
					fmt.Fprintf(a.stdout, "\n%s: %s\n", s.ID, s.Error)
					for _, line := range s.Stderr {
						fmt.Fprintf(a.stdout, "  stderr| %s\n", line)
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func (a *app) toolsCommand() *cobra.Command {
	var (
		asJSON bool
		server string
	)
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the tools of every ready server with their public names",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.startHost(cmd.Context(), server)
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			a.warnUnavailable(h)
			tools := h.Tools()
			if asJSON {
				return printJSON(a.stdout, tools)
			}
			tw := table(a.stdout)
			fmt.Fprintln(tw, "NAME\tSERVER:TOOL\tDESCRIPTION")
			for _, t := range tools {
				desc := t.Description
				if desc == "" {
					desc = t.Title
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.Display, oneLine(desc, 70))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	cmd.Flags().StringVar(&server, "server", "", "only this server")
	return cmd
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(b)
}

package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/buildinfo"
)

// Set by release builds:
//
//	go build -ldflags "-X main.version=1.2.0 -X main.commit=$(git rev-parse HEAD) -X main.date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
//
// Empty, they are taken from the build information the Go toolchain keeps
// in the binary (internal/buildinfo).
var (
	version string
	commit  string
	date    string
)

// releaseVersion is the version "mcphost version" shows: what servers, the
// gateway's clients and traces are told.
func releaseVersion() string { return buildinfo.Read(version, commit, date).Version }

// identity is how servers know this mcphost.
func identity() host.Option { return host.WithClientInfo("mcphost", releaseVersion()) }

// versionCommand is "mcphost version". It also gives root its --version
// flag, which prints the same on one line: both need the same values, and
// wiring them in one place keeps root's definition to its AddCommand list.
func (a *app) versionCommand(root *cobra.Command) *cobra.Command {
	info := buildinfo.Read(version, commit, date)
	root.Version = oneLineVersion(info)
	root.SetVersionTemplate("mcphost {{.Version}}\n")
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Show the version, commit, date, Go version, platform and plugin ABI",
		Long: `Show which mcphost this is: its version (a release's, the module version of
"go install ...@VERSION", or "dev"), the commit it was built from
("(modified)" when the clone had uncommitted changes), the date (a release's
build date, else the commit's), the Go version, the platform and the plugin
ABI version it loads (a plugin whose describe says another ABI version is
refused). "mcphost --version" prints it on one line.
--json prints an object with the fields version, commit, date, modified,
go_version, os, arch and plugin_abi.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				return printJSON(a.stdout, info)
			}
			tw := table(a.stdout)
			fmt.Fprintf(tw, "version\t%s\n", info.Version)
			fmt.Fprintf(tw, "commit\t%s\n", orNone(commitText(info)))
			fmt.Fprintf(tw, "date\t%s\n", orNone(info.Date))
			fmt.Fprintf(tw, "go\t%s\n", info.GoVersion)
			fmt.Fprintf(tw, "platform\t%s/%s\n", info.OS, info.Arch)
			fmt.Fprintf(tw, "plugin abi\tv%d\n", info.PluginABI)
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	return cmd
}

// oneLineVersion is what --version prints after "mcphost ":
// "1.2.0 (commit 0123456789ab, date 2025-01-02T03:04:05Z, go1.26.8 linux/amd64, plugin ABI v1)".
func oneLineVersion(info buildinfo.Info) string {
	var parts []string
	if c := commitText(info); c != "" {
		parts = append(parts, "commit "+c)
	}
	if info.Date != "" {
		parts = append(parts, "date "+info.Date)
	}
	parts = append(parts, info.GoVersion+" "+info.OS+"/"+info.Arch, fmt.Sprintf("plugin ABI v%d", info.PluginABI))
	return info.Version + " (" + strings.Join(parts, ", ") + ")"
}

func commitText(info buildinfo.Info) string {
	c := info.ShortCommit()
	if c != "" && info.Modified {
		c += " (modified)"
	}
	return c
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

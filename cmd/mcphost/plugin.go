package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/plugins"
)

// The plugin commands: add, list and remove edit the plugins section of the
// configuration (pluginconf.go); inspect, test and bench are tooling for
// plugin authors and operators that run a .wasm file on its own, with the
// same runtime, sandbox and limits as the host, and read no configuration
// file.

// pluginCache, when set (tests), is the compilation cache of every plugin
// command instead of the on-disk one in the user's cache directory.
var pluginCache *plugins.Cache

const (
	// maxPluginInput bounds what --input reads; the runtime refuses inputs
	// over half of memory_mb anyway.
	maxPluginInput = 64 << 20
	// maxBenchConcurrency bounds --concurrency (each worker gets an
	// instance of its own).
	maxBenchConcurrency = 256
	// maxOutputShown bounds the text of an output that is not JSON.
	maxOutputShown = 64 << 10
)

// secretNamePattern is what the configuration accepts as a secret name
// (host/config).
var secretNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,64}$`)

// envVarPattern is a variable name for --secret NAME=ENVVAR.
var envVarPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (a *app) pluginCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Add, list and remove plugins; inspect, test and benchmark a .wasm file",
		Long: `Manage the plugins section of the configuration, and try plugin files.

  add      load a .wasm file, and write an entry for it, pinned by its
           SHA-256, to the plugins list of a config file
  list     the configured plugins: hooks, pin check, scope and file
  remove   take an entry out of its config file

The commands below take a .wasm file and run it on its own, with the same
runtime, sandbox and limits as the host (see plugins/README.md), without
reading any configuration file:

  inspect  what the file is: hash, description, hooks, exports, imports, and
           whether mcphost would load it
  test     call one hook once, print the output, its duration and memory
  bench    call one hook many times, print calls/s and latency percentiles

Compiled modules are cached in the user cache directory (mcphost/wazero), as
for the host: the first run of a Go plugin compiles for about a second.`,
		Example: `  mcphost plugin add policy.wasm
  mcphost plugin list
  mcphost plugin remove policy
  mcphost plugin inspect policy.wasm
  mcphost plugin test policy.wasm --input request.json
  mcphost plugin bench policy.wasm --hook policy --input request.json --n 5000`,
		// cobra does not reject unknown subcommands of a command without Run.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError("unknown command %q for \"mcphost plugin\" (see \"mcphost plugin --help\")", args[0])
			}
			return cmd.Help()
		},
	}
	cmd.AddCommand(a.pluginAddCommand(), a.pluginListCommand(), a.pluginRemoveCommand(),
		a.pluginInspectCommand(), a.pluginTestCommand(), a.pluginBenchCommand())
	return cmd
}

// pluginOptions are the runtime options of the plugin commands.
func (a *app) pluginOptions(log hclog.Logger) plugins.Options {
	return plugins.Options{Logger: quietLogger{log}, Cache: pluginCache}
}

// discardedWarning is the runtime's warning after a fault. The plugin
// commands report every failure themselves: the warning would repeat it
// (once per call in a benchmark). --log-level debug still shows the fault's
// detail.
const discardedWarning = "instance discarded after a fault"

// quietLogger drops discardedWarning.
type quietLogger struct{ hclog.Logger }

func (l quietLogger) Warn(msg string, args ...any) {
	if msg == discardedWarning {
		return
	}
	l.Logger.Warn(msg, args...)
}

func (l quietLogger) Named(name string) hclog.Logger {
	return quietLogger{l.Logger.Named(name)}
}

func (l quietLogger) ResetNamed(name string) hclog.Logger {
	return quietLogger{l.Logger.ResetNamed(name)}
}

func (l quietLogger) With(args ...any) hclog.Logger {
	return quietLogger{l.Logger.With(args...)}
}

// checkPluginFile makes a missing or unreadable FILE a usage error (exit
// 2), before anything loads it.
func checkPluginFile(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageError("plugin file %s: no such file (give the path of a .wasm file)", path)
	case err != nil:
		return usageError("plugin file %s: %v", path, unwrapPathError(err))
	case st.IsDir():
		return usageError("plugin file %s: is a directory (give the path of a .wasm file)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return usageError("plugin file %s: %v", path, unwrapPathError(err))
	}
	f.Close()
	return nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ---- inspect ----

// inspectReport is `plugin inspect --json`.
type inspectReport struct {
	*plugins.Info
	Load loadVerdict `json:"load"`
}

type loadVerdict struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

func (a *app) pluginInspectCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Show a plugin's hash, description, hooks, exports and imports, and whether it loads",
		Long: `Show what a plugin file is: its size and SHA-256 (the value to pin with
"sha256:" in a plugins entry), what mcphost_describe says (name, version, ABI
version, hooks), the hooks it exports, every export and import with its
signature, and the load verdict: "ok", or why mcphost would refuse the
plugin. The plugin is loaded as an entry with default limits and no config
would be, so its start function and initialiser run (in the sandbox).

Exit status: 0 the plugin loads, 1 mcphost would refuse it (the reason is on
standard output and standard error), 2 usage error or no such file.`,
		Example: `  mcphost plugin inspect deny-destructive.wasm
  mcphost plugin inspect deny-destructive.wasm --json | jq -r .sha256`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if err := checkPluginFile(path); err != nil {
				return err
			}
			info, err := plugins.Inspect(cmd.Context(), path, a.pluginOptions(a.log))
			if err != nil {
				// Readable, but not a module mcphost can parse.
				return &exitError{code: exitFailure, err: fmt.Errorf("%v (mcphost would refuse it: is it a WebAssembly plugin built for wasip1/wasm32?)", err)}
			}
			rep := inspectReport{Info: info, Load: loadVerdict{OK: info.Err == nil}}
			if info.Err != nil {
				rep.Load.Error = info.Err.Error()
			}
			if asJSON {
				if err := printJSON(a.stdout, rep); err != nil {
					return err
				}
			} else if err := printInspect(a.stdout, rep); err != nil {
				return err
			}
			if info.Err != nil {
				return &exitError{code: exitFailure, err: fmt.Errorf("%s would be refused at load: %w", path, info.Err)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object (the load verdict is \"load\": {\"ok\", \"error\"})")
	return cmd
}

func printInspect(w io.Writer, rep inspectReport) error {
	info := rep.Info
	tw := table(w)
	fmt.Fprintf(tw, "path\t%s\n", info.Path)
	if info.Size < 1<<10 {
		fmt.Fprintf(tw, "size\t%d bytes\n", info.Size)
	} else {
		fmt.Fprintf(tw, "size\t%s (%d bytes)\n", formatBytes(uint64(info.Size)), info.Size)
	}
	fmt.Fprintf(tw, "sha256\t%s\n", info.SHA256)
	if d := info.Description; d != nil {
		fmt.Fprintf(tw, "name\t%s\n", d.Name)
		ver := d.Version
		if ver == "" {
			ver = "(none)"
		}
		fmt.Fprintf(tw, "version\t%s\n", ver)
		fmt.Fprintf(tw, "abi\t%d\n", d.ABI)
		fmt.Fprintf(tw, "hooks\t%s (described)\n", plugins.HookList(d.Hooks))
	} else {
		fmt.Fprintf(tw, "describe\tnot available: the plugin does not load\n")
	}
	exported := make([]string, len(info.Hooks))
	for i, h := range info.Hooks {
		exported[i] = fmt.Sprintf("%s (%s)", h, h.Export())
	}
	if len(exported) == 0 {
		exported = []string{"none (no mcphost_<hook>_v1 export)"}
	}
	fmt.Fprintf(tw, "exported\t%s\n", strings.Join(exported, ", "))
	if rep.Load.OK {
		fmt.Fprintf(tw, "load\tok\n")
	} else {
		fmt.Fprintf(tw, "load\trefused: %s\n", rep.Load.Error)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	fmt.Fprintf(w, "\nexports (%d):\n", len(info.Exports))
	tw = table(w)
	for _, e := range info.Exports {
		fmt.Fprintf(tw, "  %s\t%s\n", e.Name, externType(e.Kind, e.Type))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nimports (%d):\n", len(info.Imports))
	tw = table(w)
	for _, i := range info.Imports {
		fmt.Fprintf(tw, "  %s.%s\t%s\n", i.Module, i.Name, externType(i.Kind, i.Type))
	}
	return tw.Flush()
}

// externType is a function's signature, or the kind of another extern.
func externType(kind string, f *plugins.Func) string {
	if kind == "func" {
		return f.String()
	}
	return kind
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return strconv.FormatInt(d.Nanoseconds(), 10) + "ns"
	case d < time.Millisecond:
		return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 1, 64) + "µs"
	case d < time.Second:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) + "s"
}

func formatBytes(n uint64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// The plugin commands: tooling for plugin authors and operators. They run a
// .wasm file on its own, with the same runtime, sandbox and limits as the
// host, and read no configuration file.

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
		Short: "Inspect, test and benchmark WebAssembly plugins (inspect, test, bench)",
		Long: `Tools for plugin authors and operators. Each command takes a .wasm file and
runs it on its own, with the same runtime, sandbox and limits as the host
(see plugins/README.md), without reading any configuration file:

  inspect  what the file is: hash, description, hooks, exports, imports, and
           whether mcphost would load it
  test     call one hook once, print the output, its duration and memory
  bench    call one hook many times, print calls/s and latency percentiles

Compiled modules are cached in the user cache directory (mcphost/wazero), as
for the host: the first run of a Go plugin compiles for about a second.`,
		Example: `  mcphost plugin inspect policy.wasm
  mcphost plugin test policy.wasm --hook policy --input request.json
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
	cmd.AddCommand(a.pluginInspectCommand(), a.pluginTestCommand(), a.pluginBenchCommand())
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
		version := d.Version
		if version == "" {
			version = "(none)"
		}
		fmt.Fprintf(tw, "version\t%s\n", version)
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

// ---- what test and bench share ----

// callFlags are the flags that say how to call a hook.
type callFlags struct {
	hook      string
	input     string
	config    []string
	secrets   []string
	timeoutMS int
	memoryMB  int
	asJSON    bool
	// allowedHosts and allowPrivate are the entry's allowed_hosts and
	// allow_private (mcphost_http, auth plugins only).
	allowedHosts []string
	allowPrivate bool
}

func (f *callFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.hook, "hook", "", "hook to call: policy, filter_tools, map_names, transform_result or auth (required)")
	fl.StringVar(&f.input, "input", "", "the hook's request: a JSON file, - for standard input, or inline JSON starting with { (required)")
	fl.StringArrayVar(&f.config, "config", nil, "plugin config entry KEY=VALUE, as in the entry's config: map (repeatable; not a config file here)")
	fl.StringArrayVar(&f.secrets, "secret", nil, "grant secret NAME with the value of environment variable ENVVAR: NAME=ENVVAR or NAME=${ENVVAR} (repeatable; the value is never printed)")
	fl.StringArrayVar(&f.allowedHosts, "allowed-host", nil, "allowed_hosts entry: a host-name glob mcphost_http may reach, like auth.example.com or *.example.com; no scheme, port or path (repeatable; auth plugins only)")
	fl.BoolVar(&f.allowPrivate, "allow-private", false, "allow_private: let mcphost_http reach loopback, private and reserved addresses, and plain http:// URLs")
	fl.IntVar(&f.timeoutMS, "timeout-ms", int(config.DefaultPluginTimeout.Milliseconds()), "limits.timeout_ms: wall-clock time of one call, 1 to 60000")
	fl.IntVar(&f.memoryMB, "memory-mb", config.DefaultPluginMemoryMB, "limits.memory_mb: cap of each linear memory, 1 to 4096")
	fl.BoolVar(&f.asJSON, "json", false, "print a JSON object")
}

// preparedCall is a validated command line: what to load and what to send.
type preparedCall struct {
	path  string
	spec  *config.Plugin
	hook  abi.Hook
	input []byte
}

// prepare checks the flags and reads the input: every problem here is a
// usage error (exit 2), found before the plugin is loaded.
func (a *app) prepare(cmdPath, path string, f *callFlags) (*preparedCall, error) {
	if err := checkPluginFile(path); err != nil {
		return nil, err
	}
	if f.hook == "" {
		return nil, usageError("--hook is required: one of %s (see \"mcphost plugin inspect %s\" for the plugin's hooks)", plugins.HookList(abi.Hooks), path)
	}
	hook, err := abi.ParseHook(f.hook)
	if err != nil {
		return nil, usageError("--hook %q: not a hook of ABI v%d: use one of %s", f.hook, abi.Version, plugins.HookList(abi.Hooks))
	}
	if f.input == "" {
		return nil, usageError("--input is required: a JSON file with the %s request, - for standard input, or inline JSON (examples: \"%s --help\")", hook, cmdPath)
	}
	if f.timeoutMS < 1 || time.Duration(f.timeoutMS)*time.Millisecond > config.MaxPluginTimeout {
		return nil, usageError("--timeout-ms %d: give a whole number of milliseconds from 1 to %d", f.timeoutMS, config.MaxPluginTimeout.Milliseconds())
	}
	if f.memoryMB < 1 || f.memoryMB > config.MaxPluginMemoryMB {
		return nil, usageError("--memory-mb %d: give a whole number of MiB from 1 to %d", f.memoryMB, config.MaxPluginMemoryMB)
	}
	cfg, err := keyValues("config", ", one entry of the plugin's config; the plugin commands read no config file", f.config)
	if err != nil {
		return nil, err
	}
	secrets, err := a.secretFlags(f.secrets)
	if err != nil {
		return nil, err
	}
	hosts, err := allowedHostFlags(f.allowedHosts)
	if err != nil {
		return nil, err
	}
	input, err := a.readInput(f.input)
	if err != nil {
		return nil, err
	}
	spec := plugins.SpecForFile(path)
	spec.Config = cfg
	spec.Secrets = secrets
	spec.AllowedHosts = hosts
	spec.AllowPrivate = f.allowPrivate
	spec.Limits.Timeout = time.Duration(f.timeoutMS) * time.Millisecond
	spec.Limits.MemoryMB = f.memoryMB
	return &preparedCall{path: path, spec: spec, hook: hook, input: input}, nil
}

// secretFlags reads --secret NAME=ENVVAR entries from the environment. No
// message quotes a value.
func (a *app) secretFlags(items []string) (config.Secrets, error) {
	if len(items) == 0 {
		return nil, nil
	}
	env := a.environ
	if env == nil {
		env = os.Environ()
	}
	lookup := func(name string) string {
		v := ""
		for _, kv := range env {
			if k, val, ok := strings.Cut(kv, "="); ok && k == name {
				v = val
			}
		}
		return v
	}
	out := config.Secrets{}
	for _, it := range items {
		name, ref, ok := strings.Cut(it, "=")
		if !ok || name == "" || ref == "" {
			return nil, usageError("--secret %q: write NAME=ENVVAR, the secret's name and the environment variable that holds its value (e.g. --secret token=GITHUB_TOKEN)", it)
		}
		if !secretNamePattern.MatchString(name) {
			return nil, usageError("--secret %s: bad secret name %q (letters, digits, _ . and -, at most 64)", it, name)
		}
		// ${VAR}, as in a config file, is accepted too.
		if strings.HasPrefix(ref, "${") && strings.HasSuffix(ref, "}") {
			ref = ref[2 : len(ref)-1]
		}
		if !envVarPattern.MatchString(ref) {
			return nil, usageError("--secret %s: %q is not an environment variable name: write NAME=ENVVAR (values are never given on the command line)", name, ref)
		}
		v := lookup(ref)
		if v == "" {
			return nil, usageError("--secret %s=%s: environment variable %s is not set or empty (export it first)", name, ref, ref)
		}
		out[name] = v
	}
	return out, nil
}

// allowedHostFlags checks --allowed-host entries as the configuration checks
// allowed_hosts: each is trimmed and lower-cased and must be a host-name glob
// (pdk/glob syntax) with no scheme, port or path.
func allowedHostFlags(items []string) ([]string, error) {
	var out []string
	for _, h := range items {
		g, ok := config.AllowedHost(h)
		if ok {
			out = append(out, g)
			continue
		}
		hint := ""
		if name := hostOf(g); name != "" {
			hint = fmt.Sprintf(": give the host name alone, --allowed-host %s (it may be reached on any port)", name)
		} else if strings.Contains(g, ",") {
			hint = ": give one host per --allowed-host (repeat the flag)"
		}
		return nil, usageError("--allowed-host %q: not a host-name glob (like auth.example.com or *.example.com; no scheme, port or path, as in allowed_hosts)%s", h, hint)
	}
	return out, nil
}

// hostOf is the host name of a URL or HOST:PORT written where a host-name
// glob was expected, if that name is a valid glob; "" otherwise.
func hostOf(s string) string {
	var host string
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		host = u.Hostname()
	} else if h, _, err := net.SplitHostPort(s); err == nil && !strings.Contains(s, "/") {
		host = h
	}
	if g, ok := config.AllowedHost(host); ok {
		return g
	}
	return ""
}

// readInput reads --input: a file, - (stdin) or inline JSON. It must be
// JSON, as every hook's input is.
func (a *app) readInput(v string) ([]byte, error) {
	var (
		data []byte
		src  = "--input " + v
	)
	switch {
	case v == "-":
		stdin := a.stdin
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		b, err := io.ReadAll(io.LimitReader(stdin, maxPluginInput+1))
		if err != nil {
			return nil, usageError("--input -: reading standard input: %v", err)
		}
		data, src = b, "--input - (standard input)"
	case strings.HasPrefix(strings.TrimSpace(v), "{"):
		data, src = []byte(v), "--input"
	default:
		f, err := os.Open(v)
		if err != nil {
			return nil, usageError("--input %s: %v (give a JSON file, - for standard input, or inline JSON)", v, unwrapPathError(err))
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxPluginInput+1))
		if err != nil {
			return nil, usageError("--input %s: %v", v, unwrapPathError(err))
		}
		data = b
	}
	if len(data) > maxPluginInput {
		return nil, usageError("%s: larger than %d MiB", src, maxPluginInput>>20)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, usageError("%s: empty: the hook's input is a JSON object (see the examples in --help)", src)
	}
	if !json.Valid(data) {
		var x any
		err := json.Unmarshal(data, &x)
		return nil, usageError("%s: not JSON (%s): the hook's input is a JSON object (see the examples in --help)", src, strings.TrimPrefix(fmt.Sprint(err), "json: "))
	}
	return data, nil
}

// checkRequest reports whether input decodes strictly as hook's request:
// a misspelt field is worth a warning, not a refusal (a plugin may be
// tested with anything).
func checkRequest(hook abi.Hook, input []byte) error {
	var v any
	switch hook {
	case abi.HookPolicy:
		v = &abi.PolicyRequest{}
	case abi.HookFilterTools:
		v = &abi.FilterToolsRequest{}
	case abi.HookMapNames:
		v = &abi.MapNamesRequest{}
	case abi.HookTransformResult:
		v = &abi.TransformResultRequest{}
	case abi.HookAuth:
		v = &abi.AuthRequest{}
	default:
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// open loads the plugin of pc and checks that it serves the hook: a load
// failure is the plugin's (exit 1), a hook it does not have is a usage
// error.
func (a *app) open(ctx context.Context, pc *preparedCall, opts plugins.Options) (*plugins.Plugin, error) {
	p, err := plugins.Open(ctx, pc.spec, opts)
	if err != nil {
		if uerr := a.checkAllowedHosts(ctx, pc, opts); uerr != nil {
			return nil, uerr
		}
		return nil, pluginFailure(err)
	}
	for _, h := range p.Hooks() {
		if h == pc.hook {
			if err := checkRequest(pc.hook, pc.input); err != nil {
				fmt.Fprintf(a.stderr, "warning: --input does not decode as a %s request (%v); the plugin gets it as it is\n", pc.hook, err)
			}
			return p, nil
		}
	}
	err = noHookError(pc.hook, p)
	p.Close(context.Background())
	return nil, err
}

// noHookError is the usage error of a --hook that plugin p does not have.
func noHookError(hook abi.Hook, p *plugins.Plugin) error {
	hooks := p.Hooks()
	return usageError("--hook %s: plugin %s has no %s hook (it describes %s): use --hook %s", hook, pluginName(p), hook, plugins.HookList(hooks), hooks[0])
}

// pluginName is the name a plugin describes itself with, or its spec's.
func pluginName(p *plugins.Plugin) string {
	if d := p.Description(); d != nil {
		return d.Name
	}
	return p.Name()
}

// checkAllowedHosts is called when the plugin of pc did not load. The
// loader refuses allowed_hosts on a plugin without an auth hook; when
// --allowed-host is what made the load fail (the plugin loads without it and
// has no auth hook), that is a usage error that names the flag. Otherwise it
// returns nil and the load error stands.
func (a *app) checkAllowedHosts(ctx context.Context, pc *preparedCall, opts plugins.Options) error {
	if len(pc.spec.AllowedHosts) == 0 {
		return nil
	}
	spec := *pc.spec
	spec.AllowedHosts, spec.AllowPrivate = nil, false
	opts.Logger = nil // the first load has said what there is to say
	opts.PoolSize = 1
	p, err := plugins.Open(ctx, &spec, opts)
	if err != nil {
		return nil
	}
	defer p.Close(context.Background())
	hooks := p.Hooks()
	for _, h := range hooks {
		if h == abi.HookAuth {
			return nil
		}
	}
	// --hook auth on such a plugin is the first thing to fix.
	if pc.hook == abi.HookAuth {
		return noHookError(pc.hook, p)
	}
	return usageError("--allowed-host: plugin %s has no auth hook (it describes %s): only auth plugins may make HTTP requests (allowed_hosts); drop --allowed-host", pluginName(p), plugins.HookList(hooks))
}

// pluginFailure is the exit-1 error of a plugin failure: its kind first,
// then the runtime's message (which names the plugin and hook), then what
// to do about it.
func pluginFailure(err error) error {
	kind := plugins.KindOf(err)
	msg := err.Error()
	if kind != 0 {
		msg = kind.String() + ": " + msg
	}
	if hint := kindHint(kind); hint != "" {
		msg += " (" + hint + ")"
	}
	return &exitError{code: exitFailure, err: errors.New(msg)}
}

func kindHint(k plugins.Kind) string {
	switch k {
	case plugins.KindLoad:
		return `"mcphost plugin inspect FILE" shows the plugin's exports and imports`
	case plugins.KindTimeout:
		return "raise --timeout-ms if the hook needs longer"
	case plugins.KindMemory:
		return "raise --memory-mb if the hook needs more memory"
	case plugins.KindTrap:
		return "the guest crashed; --log-level debug shows its wasm stack trace"
	case plugins.KindExit:
		return "the guest exited (WASI proc_exit); a plugin must return from its hooks"
	case plugins.KindOutput:
		return "a hook must return one JSON answer of its type (pdk/abi/ABI.md), within max_output_bytes"
	case plugins.KindInput:
		return "the input must fit in half of --memory-mb"
	}
	return ""
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

// ---- test ----

// testReport is `plugin test --json`.
type testReport struct {
	Plugin string   `json:"plugin"`
	Path   string   `json:"path"`
	Hook   abi.Hook `json:"hook"`
	OK     bool     `json:"ok"`
	// Output is the output when it is JSON; OutputText when it is not.
	Output     json.RawMessage `json:"output,omitempty"`
	OutputText *string         `json:"output_text,omitempty"`
	// Valid: the output decodes as the hook's answer (plugins.DecodeOutput);
	// Invalid says why not.
	Valid             bool             `json:"valid"`
	Invalid           string           `json:"invalid,omitempty"`
	Summary           string           `json:"summary,omitempty"`
	DurationNS        int64            `json:"duration_ns"`
	Duration          string           `json:"duration"`
	MemoryBytes       uint64           `json:"memory_bytes"`
	KernelMemoryBytes uint64           `json:"kernel_memory_bytes"`
	FreshInstance     bool             `json:"fresh_instance"`
	Limits            reportLimits     `json:"limits"`
	Error             *testReportError `json:"error,omitempty"`
	// allowed_hosts and allow_private, when set.
	reportHTTP
}

type reportLimits struct {
	TimeoutMS      int64 `json:"timeout_ms"`
	MemoryMB       int   `json:"memory_mb"`
	MaxOutputBytes int64 `json:"max_output_bytes"`
}

func newReportLimits(p *plugins.Plugin) reportLimits {
	l := p.Limits()
	return reportLimits{TimeoutMS: l.Timeout.Milliseconds(), MemoryMB: l.MemoryMB, MaxOutputBytes: l.MaxOutputBytes}
}

// reportHTTP is what --allowed-host and --allow-private set.
type reportHTTP struct {
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
	AllowPrivate bool     `json:"allow_private,omitempty"`
}

func newReportHTTP(spec *config.Plugin) reportHTTP {
	return reportHTTP{AllowedHosts: spec.AllowedHosts, AllowPrivate: spec.AllowPrivate}
}

// print writes the "http" line of a report, when there is something to say.
func (h reportHTTP) print(w io.Writer) {
	if len(h.AllowedHosts) == 0 && !h.AllowPrivate {
		return
	}
	hosts := "none"
	if len(h.AllowedHosts) > 0 {
		hosts = strings.Join(h.AllowedHosts, ", ")
	}
	line := "allowed_hosts " + hosts
	if h.AllowPrivate {
		line += "; allow_private"
	}
	fmt.Fprintf(w, "http\t%s\n", line)
}

type testReportError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (a *app) pluginTestCommand() *cobra.Command {
	var (
		f        callFlags
		showCred bool
	)
	cmd := &cobra.Command{
		Use:   "test FILE --hook HOOK --input FILE.json|- [flags]",
		Short: "Call one hook of a plugin once and show the output, duration and memory",
		Long: `Load a plugin as a plugins entry would be (with the --config, --secret,
--allowed-host, --allow-private and limits given here), call one hook once on
a fresh instance with --input, and print the output (pretty JSON), whether it
is a valid answer for the hook (as the host checks it: a policy decision of
allow, deny or confirm, a CallToolResult...), how long the call took and the
memory the instance used (the guest's linear memory and Extism's kernel
memory, where input and output live). The plugin's log lines (mcphost_log)
are shown on standard error at info level and above, or as --log-level says.

The input is the hook's request (pdk/abi/ABI.md), for example:
  policy            {"server":"github","tool":"delete_repo","name":"github_delete_repo","arguments":{"repo":"x"},"annotations":{"destructiveHint":true}}
  filter_tools      {"server":"github","tools":[{"name":"create_issue"},{"name":"delete_repo"}]}
  map_names         {"tools":[{"server":"github","tool":"create_issue"}],"constraints":{"max_length":64,"pattern":"^[a-zA-Z0-9_-]{1,64}$"}}
  transform_result  {"server":"fs","tool":"read","name":"fs_read","result":{"content":[{"type":"text","text":"hi"}]}}
  auth              {"server":"corp","url":"https://mcp.corp.example/mcp"}

Here --config sets the plugin's config entries (KEY=VALUE), not a config
file. --secret NAME=ENVVAR (or NAME='${ENVVAR}') is one entry of secrets:
its value comes from the environment, never from the command line, and is
never printed. --allowed-host is one entry of
allowed_hosts (a host-name glob, no scheme, port or path) and
--allow-private is allow_private: without --allowed-host an auth plugin's
mcphost_http reaches no host, and without --allow-private no loopback or
private address and no plain http:// URL, as in the host. Only a plugin with
an auth hook may have allowed hosts. An auth answer's header values are
shown redacted unless --show-credentials is given.

Exit status: 0 the call returned a valid answer; 1 the plugin did not load,
the call failed (the error names its kind: error, trap, timeout, memory,
exit, output, input) or the output is not a valid answer; 2 usage error.`,
		Example: `  mcphost plugin test deny-destructive.wasm --hook policy --input request.json
  mcphost plugin test deny-destructive.wasm --hook policy --config allow='github:delete_*' --input - < request.json
  mcphost plugin test header-auth.wasm --hook auth --secret token=GITHUB_TOKEN \
      --input '{"server":"gh","url":"https://api.example.com/mcp"}'
  mcphost plugin test corp-auth.wasm --hook auth --secret client_secret='${CORP_SECRET}' \
      --allowed-host login.corp.example --input '{"server":"corp","url":"https://mcp.corp.example/mcp"}'
  mcphost plugin test corp-auth.wasm --hook auth --allowed-host 127.0.0.1 --allow-private \
      --input '{"server":"corp","url":"http://127.0.0.1:8080/mcp"}'
  mcphost plugin test slow.wasm --hook policy --input request.json --timeout-ms 500 --memory-mb 128 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pc, err := a.prepare(cmd.CommandPath(), args[0], &f)
			if err != nil {
				return err
			}
			log := a.log
			if !cmd.Flags().Changed("log-level") {
				// A plugin author wants the plugin's own info lines.
				log = hclog.New(&hclog.LoggerOptions{Name: "mcphost", Output: a.stderr, Level: hclog.Info})
			}
			ctx := cmd.Context()
			p, err := a.open(ctx, pc, a.pluginOptions(log))
			if err != nil {
				return err
			}
			defer p.Close(context.Background())
			res, callErr := p.Invoke(ctx, pc.hook, pc.input)
			rep := testReport{
				Plugin:     pluginName(p),
				Path:       pc.path,
				Hook:       pc.hook,
				Limits:     newReportLimits(p),
				reportHTTP: newReportHTTP(pc.spec),
			}
			if res != nil {
				rep.DurationNS = res.Duration.Nanoseconds()
				rep.Duration = formatDuration(res.Duration)
				rep.MemoryBytes, rep.KernelMemoryBytes = res.MemoryBytes, res.KernelMemoryBytes
				rep.FreshInstance = res.FreshInstance
			}
			var failure error
			if callErr != nil {
				rep.Error = &testReportError{Kind: plugins.KindOf(callErr).String(), Message: callErr.Error()}
				failure = pluginFailure(callErr)
			} else {
				out := res.Output
				decoded, derr := plugins.DecodeOutput(pc.hook, out)
				if derr != nil {
					rep.Invalid = derr.Error()
					failure = &exitError{code: exitFailure, err: fmt.Errorf("plugin %s: hook %s: the output is not a valid %s answer: %v (the host would treat the call as failed; see pdk/abi/ABI.md)", rep.Plugin, pc.hook, pc.hook, derr)}
				} else {
					rep.Valid = true
					rep.Summary = summarize(decoded, showCred)
				}
				if pc.hook == abi.HookAuth && !showCred {
					out = redactAuth(out)
				}
				if json.Valid(out) {
					rep.Output = json.RawMessage(out)
				} else {
					s := displayText(out)
					rep.OutputText = &s
				}
			}
			rep.OK = failure == nil
			if f.asJSON {
				if err := printJSON(a.stdout, rep); err != nil {
					return err
				}
			} else if err := printTest(a.stdout, rep); err != nil {
				return err
			}
			return failure
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&showCred, "show-credentials", false, "print an auth answer's header values instead of redacting them")
	return cmd
}

func printTest(w io.Writer, rep testReport) error {
	switch {
	case rep.Output != nil:
		var buf bytes.Buffer
		if err := json.Indent(&buf, rep.Output, "", "  "); err != nil {
			buf.Reset()
			buf.Write(rep.Output)
		}
		fmt.Fprintf(w, "%s\n\n", buf.Bytes())
	case rep.OutputText != nil:
		fmt.Fprintf(w, "output (not JSON): %s\n\n", *rep.OutputText)
	}
	tw := table(w)
	fmt.Fprintf(tw, "plugin\t%s (%s)\n", rep.Plugin, rep.Path)
	fmt.Fprintf(tw, "hook\t%s\n", rep.Hook)
	switch {
	case rep.Error != nil:
		fmt.Fprintf(tw, "error\t%s: %s\n", rep.Error.Kind, rep.Error.Message)
	case rep.Valid:
		fmt.Fprintf(tw, "valid\tyes: %s\n", rep.Summary)
	default:
		fmt.Fprintf(tw, "valid\tno: %s\n", rep.Invalid)
	}
	if rep.Duration != "" {
		fmt.Fprintf(tw, "duration\t%s\n", rep.Duration)
		fresh := "a fresh instance"
		if !rep.FreshInstance {
			fresh = "a reused instance"
		}
		fmt.Fprintf(tw, "memory\t%s guest, %s kernel (%s)\n", formatBytes(rep.MemoryBytes), formatBytes(rep.KernelMemoryBytes), fresh)
	}
	fmt.Fprintf(tw, "limits\ttimeout_ms %d, memory_mb %d, max_output_bytes %d\n", rep.Limits.TimeoutMS, rep.Limits.MemoryMB, rep.Limits.MaxOutputBytes)
	rep.reportHTTP.print(tw)
	return tw.Flush()
}

// summarize says in a few words what a decoded answer means.
func summarize(v any, showCred bool) string {
	switch r := v.(type) {
	case *abi.PolicyDecision:
		s := "decision " + string(r.Decision)
		if r.Reason != "" {
			s += " (" + oneLine(r.Reason, 120) + ")"
		}
		if r.Arguments != nil {
			s += ", arguments rewritten"
		}
		return s
	case *abi.FilterToolsResponse:
		if len(r.Tools) == 0 {
			return "keeps no tool"
		}
		return fmt.Sprintf("keeps %d tool(s): %s", len(r.Tools), oneLine(strings.Join(r.Tools, ", "), 120))
	case *abi.MapNamesResponse:
		return fmt.Sprintf("%d name(s): %s", len(r.Names), oneLine(strings.Join(r.Names, ", "), 120))
	case *abi.TransformResultResponse:
		return fmt.Sprintf("a CallToolResult of %d bytes", len(r.Result))
	case *abi.AuthResponse:
		names := make([]string, 0, len(r.Headers))
		for k := range r.Headers {
			names = append(names, k)
		}
		sort.Strings(names)
		s := fmt.Sprintf("%d header(s)", len(names))
		if len(names) > 0 {
			s += ": " + strings.Join(names, ", ")
		}
		if !showCred && len(names) > 0 {
			s += " (values redacted)"
		}
		if r.ExpiresIn > 0 {
			s += fmt.Sprintf(", expires in %ds", r.ExpiresIn)
		}
		return s
	}
	return "a valid answer"
}

// redactAuth replaces the header values of an auth answer: they are
// credentials.
func redactAuth(out []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(out, &m) != nil {
		return out
	}
	var headers map[string]json.RawMessage
	if json.Unmarshal(m["headers"], &headers) != nil || headers == nil {
		return out
	}
	for k, v := range headers {
		var s string
		n := len(v)
		if json.Unmarshal(v, &s) == nil {
			n = len(s)
		}
		headers[k], _ = json.Marshal(fmt.Sprintf("[redacted: %d bytes]", n))
	}
	m["headers"], _ = json.Marshal(headers)
	b, err := json.Marshal(m)
	if err != nil {
		return out
	}
	return b
}

// displayText is output that is not JSON, fit for a terminal: bounded and
// quoted (control characters escaped).
func displayText(b []byte) string {
	more := ""
	if len(b) > maxOutputShown {
		b, more = b[:maxOutputShown], fmt.Sprintf(" (first %d of %d bytes)", maxOutputShown, len(b))
	}
	if !utf8.Valid(b) {
		return fmt.Sprintf("%q%s", b, more)
	}
	return strconv.Quote(string(b)) + more
}

// ---- bench ----

// benchReport is `plugin bench --json`. Times are in nanoseconds.
type benchReport struct {
	Plugin      string       `json:"plugin"`
	Path        string       `json:"path"`
	Hook        abi.Hook     `json:"hook"`
	Calls       int          `json:"calls"`
	Errors      int          `json:"errors"`
	FirstError  string       `json:"first_error,omitempty"`
	Concurrency int          `json:"concurrency"`
	Warmup      int          `json:"warmup"`
	ElapsedNS   int64        `json:"elapsed_ns"`
	CallsPerSec float64      `json:"calls_per_sec"`
	MedianNS    int64        `json:"median_ns"`
	P90NS       int64        `json:"p90_ns"`
	P99NS       int64        `json:"p99_ns"`
	MaxNS       int64        `json:"max_ns"`
	Instances   int64        `json:"instances_created"`
	Discarded   int64        `json:"instances_discarded"`
	Limits      reportLimits `json:"limits"`
	reportHTTP
}

func (a *app) pluginBenchCommand() *cobra.Command {
	var (
		f           callFlags
		n           int
		concurrency int
		duration    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "bench FILE --hook HOOK --input FILE.json|- [flags]",
		Short: "Call one hook of a plugin many times and show calls/s and latency percentiles",
		Long: `Load a plugin once (one instance pool, as the host does), warm it up, then
call one hook --n times (or for --duration) from --concurrency callers, and
print the calls per second, the median, p90, p99 and maximum latency of a
call as the host sees it (waiting for an instance included), the number of
failed calls and the instances made and thrown away.

The first warm-up call must succeed (use "mcphost plugin test" to see why it
does not); later failures are counted, timed like the others, and make the
exit status 1. Limits, --config, --secret, --allowed-host and
--allow-private are as for "plugin test"; note that timeout_ms (default 100)
applies to every call, HTTP requests of an auth plugin included (they are
made on every call: point --allowed-host at a test server).

Figures depend on the machine and its load: compare runs on one machine.

Exit status: 0 every call succeeded, 1 the plugin did not load or a call
failed, 2 usage error.`,
		Example: `  mcphost plugin bench deny-destructive.wasm --hook policy --input request.json
  mcphost plugin bench deny-destructive.wasm --hook policy --input request.json --n 20000 --concurrency 8
  mcphost plugin bench redact.wasm --hook transform_result --input result.json --duration 10s --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if n < 1 {
				return usageError("--n %d: give the number of calls, 1 or more", n)
			}
			if concurrency < 1 || concurrency > maxBenchConcurrency {
				return usageError("--concurrency %d: give the number of concurrent callers, 1 to %d", concurrency, maxBenchConcurrency)
			}
			if duration < 0 {
				return usageError("--duration %s: give a positive duration like 10s, or 0 to make --n calls", duration)
			}
			if duration > 0 && cmd.Flags().Changed("n") {
				return usageError("--n and --duration: give one of them (calls are counted, or timed)")
			}
			pc, err := a.prepare(cmd.CommandPath(), args[0], &f)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			opts := a.pluginOptions(a.log)
			// One instance per caller, made during the warm-up.
			opts.PoolSize = concurrency
			p, err := a.open(ctx, pc, opts)
			if err != nil {
				return err
			}
			defer p.Close(context.Background())

			res, err := p.Invoke(ctx, pc.hook, pc.input)
			if err != nil {
				fe := pluginFailure(err)
				return &exitError{code: exitFailure, err: fmt.Errorf("the first call failed, nothing to measure: %v (\"mcphost plugin test\" with the same flags shows the call)", fe)}
			}
			if _, derr := plugins.DecodeOutput(pc.hook, res.Output); derr != nil {
				fmt.Fprintf(a.stderr, "warning: the output is not a valid %s answer (%v): the host would treat every call as failed\n", pc.hook, derr)
			}
			warmup := max(concurrency, min(n/10, 100))
			runBench(ctx, p, pc.hook, pc.input, concurrency, warmup-1, 0)
			if err := ctx.Err(); err != nil {
				return err
			}
			st := runBench(ctx, p, pc.hook, pc.input, concurrency, n, duration)
			if err := ctx.Err(); err != nil {
				return err
			}
			stats := p.Stats()
			rep := benchReport{
				Plugin:      pluginName(p),
				Path:        pc.path,
				Hook:        pc.hook,
				Calls:       len(st.latencies),
				Errors:      st.errors,
				Concurrency: concurrency,
				Warmup:      warmup,
				ElapsedNS:   st.elapsed.Nanoseconds(),
				Instances:   stats.InstancesCreated,
				Discarded:   stats.InstancesDiscarded,
				Limits:      newReportLimits(p),
				reportHTTP:  newReportHTTP(pc.spec),
			}
			if st.firstErr != nil {
				rep.FirstError = st.firstErr.Error()
			}
			if st.elapsed > 0 {
				rep.CallsPerSec = float64(rep.Calls) / st.elapsed.Seconds()
			}
			lat := st.latencies
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			rep.MedianNS = percentile(lat, 0.50).Nanoseconds()
			rep.P90NS = percentile(lat, 0.90).Nanoseconds()
			rep.P99NS = percentile(lat, 0.99).Nanoseconds()
			rep.MaxNS = percentile(lat, 1).Nanoseconds()
			if f.asJSON {
				if err := printJSON(a.stdout, rep); err != nil {
					return err
				}
			} else if err := printBench(a.stdout, rep); err != nil {
				return err
			}
			if rep.Errors > 0 {
				return &exitError{code: exitFailure, err: fmt.Errorf("%d of %d calls failed; the first: %v", rep.Errors, rep.Calls, pluginFailure(st.firstErr))}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().IntVar(&n, "n", 2000, "number of measured calls")
	cmd.Flags().IntVar(&concurrency, "concurrency", 1, fmt.Sprintf("concurrent callers, each with an instance of its own (1 to %d)", maxBenchConcurrency))
	cmd.Flags().DurationVar(&duration, "duration", 0, "call for this long (e.g. 10s) instead of --n times")
	return cmd
}

// benchStats is what one run measured: the latency of every call (failed
// ones included), failures and the wall time of the run.
type benchStats struct {
	latencies []time.Duration
	errors    int
	firstErr  error
	elapsed   time.Duration
}

// runBench calls hook n times (or, when d > 0, for d) from conc
// goroutines. It stops early when ctx ends.
func runBench(ctx context.Context, p *plugins.Plugin, hook abi.Hook, input []byte, conc, n int, d time.Duration) benchStats {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		st       benchStats
		deadline time.Time
	)
	start := time.Now()
	if d > 0 {
		deadline = start.Add(d)
	} else if n <= 0 {
		return st
	}
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var (
				lat      []time.Duration
				errs     int
				firstErr error
			)
			for ctx.Err() == nil {
				if d > 0 {
					if !time.Now().Before(deadline) {
						break
					}
				} else if next.Add(1) > int64(n) {
					break
				}
				t0 := time.Now()
				_, err := p.Invoke(ctx, hook, input)
				lat = append(lat, time.Since(t0))
				if err != nil {
					if ctx.Err() != nil {
						break
					}
					errs++
					if firstErr == nil {
						firstErr = err
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			st.latencies = append(st.latencies, lat...)
			st.errors += errs
			if st.firstErr == nil {
				st.firstErr = firstErr
			}
		}()
	}
	wg.Wait()
	st.elapsed = time.Since(start)
	return st
}

// percentile is the nearest-rank percentile of sorted durations (0 for
// none).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	i = min(max(i, 0), len(sorted)-1)
	return sorted[i]
}

func printBench(w io.Writer, rep benchReport) error {
	tw := table(w)
	fmt.Fprintf(tw, "plugin\t%s (%s)\n", rep.Plugin, rep.Path)
	fmt.Fprintf(tw, "hook\t%s\n", rep.Hook)
	fmt.Fprintf(tw, "calls\t%d in %s, concurrency %d, after %d warm-up calls\n", rep.Calls, formatDuration(time.Duration(rep.ElapsedNS)), rep.Concurrency, rep.Warmup)
	errs := strconv.Itoa(rep.Errors)
	if rep.FirstError != "" {
		errs += " (first: " + oneLine(rep.FirstError, 200) + ")"
	}
	fmt.Fprintf(tw, "errors\t%s\n", errs)
	fmt.Fprintf(tw, "calls/s\t%.0f\n", rep.CallsPerSec)
	fmt.Fprintf(tw, "median\t%s\n", formatDuration(time.Duration(rep.MedianNS)))
	fmt.Fprintf(tw, "p90\t%s\n", formatDuration(time.Duration(rep.P90NS)))
	fmt.Fprintf(tw, "p99\t%s\n", formatDuration(time.Duration(rep.P99NS)))
	fmt.Fprintf(tw, "max\t%s\n", formatDuration(time.Duration(rep.MaxNS)))
	fmt.Fprintf(tw, "instances\t%d created, %d discarded\n", rep.Instances, rep.Discarded)
	fmt.Fprintf(tw, "limits\ttimeout_ms %d, memory_mb %d, max_output_bytes %d\n", rep.Limits.TimeoutMS, rep.Limits.MemoryMB, rep.Limits.MaxOutputBytes)
	rep.reportHTTP.print(tw)
	return tw.Flush()
}

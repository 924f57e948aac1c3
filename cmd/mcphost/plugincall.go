package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// What "plugin test" and "plugin bench" share: the flags that stand for a
// plugins entry, the input, loading and choosing the hook.

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
	// req builds the input from --tool and its flags instead of --input.
	req requestFlags
}

func (f *callFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.hook, "hook", "", "hook to call: policy, filter_tools, map_names, transform_result or auth (default: the plugin's only hook, if it has one)")
	fl.StringVar(&f.input, "input", "", "the hook's request: a JSON file, - for standard input, or inline JSON starting with { (or build one with --tool)")
	fl.StringArrayVar(&f.config, "config", nil, "plugin config entry KEY=VALUE, as in the entry's config: map (repeatable; not a config file here)")
	fl.StringArrayVar(&f.secrets, "secret", nil, "grant secret NAME with the value of environment variable ENVVAR: NAME=ENVVAR or NAME=${ENVVAR} (repeatable; the value is never printed)")
	fl.StringArrayVar(&f.allowedHosts, "allowed-host", nil, "allowed_hosts entry: a host-name glob mcphost_http may reach, like auth.example.com or *.example.com; no scheme, port or path (repeatable; auth plugins only)")
	fl.BoolVar(&f.allowPrivate, "allow-private", false, "allow_private: let mcphost_http reach loopback, private and reserved addresses, and plain http:// URLs")
	fl.IntVar(&f.timeoutMS, "timeout-ms", int(config.DefaultPluginTimeout.Milliseconds()), "limits.timeout_ms: wall-clock time of one call, 1 to 60000")
	fl.IntVar(&f.memoryMB, "memory-mb", config.DefaultPluginMemoryMB, "limits.memory_mb: cap of each linear memory, 1 to 4096")
	fl.BoolVar(&f.asJSON, "json", false, "print a JSON object")
	f.req.register(fl)
}

// preparedCall is a validated command line: what to load and what to send.
type preparedCall struct {
	path string
	spec *plugins.Spec
	// hook is "" when --hook was not given: open takes the plugin's only
	// hook.
	hook  abi.Hook
	input []byte
	// built: the input was built from --tool and its flags.
	built bool
}

// prepare checks the flags and reads the input: every problem here is a
// usage error (exit 2), found before the plugin is loaded.
func (a *app) prepare(ctx context.Context, cmdPath, path string, f *callFlags) (*preparedCall, error) {
	if err := checkPluginFile(path); err != nil {
		return nil, err
	}
	var hook abi.Hook
	if f.hook != "" {
		h, err := abi.ParseHook(f.hook)
		if err != nil {
			return nil, usageError("--hook %q: not a hook of ABI v%d: use one of %s", f.hook, abi.Version, plugins.HookList(abi.Hooks))
		}
		hook = h
	}
	built := f.req.tool != ""
	switch {
	case built && f.input != "":
		return nil, usageError("--input and --tool: give one; --tool builds the request that --input would give")
	case !built && len(f.req.given()) > 0:
		return nil, usageError("%s: only with --tool NAME, which builds a policy request (or a transform_result one with --result)", f.req.given()[0])
	case built:
		h, err := f.req.requestHook(hook)
		if err != nil {
			return nil, err
		}
		hook = h
	case f.input == "":
		what := "the hook's request"
		if hook != "" {
			what = "the " + string(hook) + " request"
		}
		return nil, usageError("--input is required, or --tool NAME to build a policy request: --input takes a JSON file with %s, - for standard input, or inline JSON (\"%s --sample HOOK\" prints one)", what, strings.Fields(cmdPath)[0]+" plugin test")
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
	var input []byte
	if built {
		input, err = f.req.build(ctx, a, hook)
	} else {
		input, err = a.readInput(f.input)
	}
	if err != nil {
		return nil, err
	}
	spec := plugins.SpecForFile(path)
	spec.Config = cfg
	spec.Secrets = plugins.Secrets(secrets)
	spec.AllowedHosts = hosts
	spec.AllowPrivate = f.allowPrivate
	spec.Limits.Timeout = time.Duration(f.timeoutMS) * time.Millisecond
	spec.Limits.MemoryMB = f.memoryMB
	return &preparedCall{path: path, spec: spec, hook: hook, input: input, built: built}, nil
}

// splitSecretFlag splits a --secret NAME=ENVVAR entry and checks the
// name; holds says when the variable holds the value ("holds", "will
// hold"), for the message that shows the form.
func splitSecretFlag(it, holds string) (name, ref string, err error) {
	name, ref, ok := strings.Cut(it, "=")
	if !ok || name == "" || ref == "" {
		return "", "", usageError("--secret %q: write NAME=ENVVAR, the secret's name and the environment variable that %s its value (e.g. --secret token=GITHUB_TOKEN)", it, holds)
	}
	if !secretNamePattern.MatchString(name) {
		return "", "", usageError("--secret %s: bad secret name %q (letters, digits, _ . and -, at most 64)", it, name)
	}
	return name, ref, nil
}

// secretFlags reads --secret NAME=ENVVAR entries from the environment. No
// message quotes a value.
func (a *app) secretFlags(items []string) (config.Secrets, error) {
	if len(items) == 0 {
		return nil, nil
	}
	out := config.Secrets{}
	for _, it := range items {
		name, ref, err := splitSecretFlag(it, "holds")
		if err != nil {
			return nil, err
		}
		// ${VAR}, as in a config file, is accepted too.
		if strings.HasPrefix(ref, "${") && strings.HasSuffix(ref, "}") {
			ref = ref[2 : len(ref)-1]
		}
		if !envVarPattern.MatchString(ref) {
			return nil, usageError("--secret %s: %q is not an environment variable name: write NAME=ENVVAR (values are never given on the command line)", name, ref)
		}
		v := a.getenv(ref)
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
	return a.readJSONFlag("--input", v, "the hook's input is a JSON object (see the examples in --help)")
}

// readJSONFlag reads the JSON value of flag: a file, - (stdin) or inline
// JSON starting with "{" or "["; want says what to give, for the errors.
func (a *app) readJSONFlag(flag, v, want string) ([]byte, error) {
	var (
		data []byte
		src  = flag + " " + v
	)
	switch {
	case v == "-":
		stdin := a.stdin
		if stdin == nil {
			stdin = strings.NewReader("")
		}
		b, err := io.ReadAll(io.LimitReader(stdin, maxPluginInput+1))
		if err != nil {
			return nil, usageError("%s -: reading standard input: %v", flag, err)
		}
		data, src = b, flag+" - (standard input)"
	case strings.HasPrefix(strings.TrimSpace(v), "{") || strings.HasPrefix(strings.TrimSpace(v), "["):
		data, src = []byte(v), flag
	default:
		path := strings.TrimPrefix(v, "@")
		f, err := os.Open(path)
		if err != nil {
			return nil, usageError("%s %s: %v (give a JSON file, - for standard input, or inline JSON)", flag, v, unwrapPathError(err))
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxPluginInput+1))
		if err != nil {
			return nil, usageError("%s %s: %v", flag, v, unwrapPathError(err))
		}
		data = b
	}
	if len(data) > maxPluginInput {
		return nil, usageError("%s: larger than %d MiB", src, maxPluginInput>>20)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, usageError("%s: empty: %s", src, want)
	}
	if !json.Valid(data) {
		var x any
		err := json.Unmarshal(data, &x)
		return nil, usageError("%s: not JSON (%s): %s", src, strings.TrimPrefix(fmt.Sprint(err), "json: "), want)
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
	if pc.hook == "" {
		hooks := p.Hooks()
		if len(hooks) != 1 {
			p.Close(context.Background())
			return nil, hookRequiredError(pc.path, hooks)
		}
		pc.hook = hooks[0]
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

// hookRequiredError is the usage error of a call without --hook to a plugin
// that does not have exactly one hook.
func hookRequiredError(path string, hooks []abi.Hook) error {
	if len(hooks) == 0 {
		return usageError("--hook is required: the plugin describes no hook (\"mcphost plugin inspect %s\" shows its exports)", path)
	}
	alts := make([]string, len(hooks))
	for i, h := range hooks {
		alts[i] = "--hook " + string(h)
	}
	return usageError("--hook is required: the plugin has %d hooks (%s): give one of %s", len(hooks), plugins.HookList(hooks), strings.Join(alts, ", "))
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

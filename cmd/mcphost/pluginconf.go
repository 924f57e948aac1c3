package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/doctor"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// The plugins section from the command line: plugin add, list and remove.
// The writing is host/config's (AddPlugin, RemovePlugin), the pin check
// host/doctor's; this file parses flags and prints.

// defaultPluginScope is where "plugin add" writes without --scope: the
// user's file, which every project uses. A project file's plugins only run
// once the project is trusted.
const defaultPluginScope = "user"

func (a *app) pluginAddCommand() *cobra.Command {
	var (
		name, scopeName, onError, mode string
		hooks, servers, cfgs, secrets  []string
		allowedHosts                   []string
		allowPrivate, replace          bool
		timeoutMS, memoryMB            int
	)
	cmd := &cobra.Command{
		Use:   "add FILE.wasm [--name NAME] [--hook HOOK]... [--scope user|project|local] [flags]",
		Short: "Add a plugin to the plugins section, pinned by its sha256",
		Long: `Load a plugin file as mcphost would (in the sandbox, with the entry's
limits), ask it to describe itself, and write an entry for it at the end of
the plugins list of a config file, with the file's SHA-256 as its pin
(sha256:): a changed file is refused at load until it is pinned again.

A file that does not load is refused, and nothing is written. Without
--hook the entry lists the hooks the plugin describes; without --name it is
named as the plugin describes itself. --scope user (the default) is your
config file, used in every project; project is the project's .mcphost.*
(its plugins run once the project is trusted; a plugin file inside the
project is written relative to it); local is your file for this directory
only. An entry of the same name is an error unless --replace is given, and
a name another file uses is always one. The file is locked while it is
edited and written atomically; YAML comments are kept.

--secret NAME=ENVVAR grants the plugin a secret whose value is read from
that environment variable when the plugin loads (it is written as
NAME: "${ENVVAR}", never as a value).`,
		Example: `  mcphost plugin add deny-destructive.wasm
  mcphost plugin add deny-destructive.wasm --name org-policy --config allow='fs:read_*' --server 'github' --server 'fs-*'
  mcphost plugin add header-auth.wasm --hook auth --secret token=GITHUB_TOKEN --allowed-host login.corp.example
  mcphost plugin add ./plugins/policy.wasm --scope project --mode shadow
  mcphost plugin add deny-destructive.wasm --name org-policy --replace   # pin a new build`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			if err := checkPluginFile(path); err != nil {
				return err
			}
			scope, err := parseScope(scopeName, false)
			if err != nil {
				return err
			}
			if name != "" && !config.ValidID(name) {
				return usageError("--name %q: a plugin name is 1 to 64 letters, digits, _ and - (^[a-zA-Z0-9_-]{1,64}$)", name)
			}
			var hookList []abi.Hook
			for _, h := range hooks {
				hook, err := abi.ParseHook(h)
				if err != nil {
					return usageError("--hook %q: not a hook of ABI v%d: use one of %s", h, abi.Version, plugins.HookList(abi.Hooks))
				}
				hookList = append(hookList, hook)
			}
			configMap, err := keyValues("config", ", one entry of the plugin's config", cfgs)
			if err != nil {
				return err
			}
			secretRefs, err := secretRefFlags(secrets)
			if err != nil {
				return err
			}
			hosts, err := allowedHostFlags(allowedHosts)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("timeout-ms") && (timeoutMS < 1 || time.Duration(timeoutMS)*time.Millisecond > config.MaxPluginTimeout) {
				return usageError("--timeout-ms %d: give a whole number of milliseconds from 1 to %d", timeoutMS, config.MaxPluginTimeout.Milliseconds())
			}
			if cmd.Flags().Changed("memory-mb") && (memoryMB < 1 || memoryMB > config.MaxPluginMemoryMB) {
				return usageError("--memory-mb %d: give a whole number of MiB from 1 to %d", memoryMB, config.MaxPluginMemoryMB)
			}

			// Load it as the entry would be, so that what is pinned is a
			// plugin that works.
			spec := plugins.SpecForFile(path)
			spec.Hooks, spec.Config, spec.AllowedHosts, spec.AllowPrivate = hookList, configMap, hosts, allowPrivate
			if cmd.Flags().Changed("timeout-ms") {
				spec.Limits.Timeout = time.Duration(timeoutMS) * time.Millisecond
			}
			if cmd.Flags().Changed("memory-mb") {
				spec.Limits.MemoryMB = memoryMB
			}
			p, err := plugins.Open(cmd.Context(), spec, a.pluginOptions(a.log))
			if err != nil {
				return &exitError{code: exitFailure, err: fmt.Errorf("%v\nnot added: %s does not load (\"mcphost plugin inspect %s\" shows its exports and imports)", pluginFailure(err), path, path)}
			}
			defer p.Close(cmd.Context())
			if name == "" {
				name = spec.Name
				if d := p.Description(); d != nil && config.ValidID(d.Name) {
					name = d.Name
				}
			}
			entry := config.PluginEntry{
				Name: name, Path: spec.Path, SHA256: p.SHA256(), Servers: servers, Config: configMap,
				Secrets: secretRefs, AllowedHosts: hosts, AllowPrivate: allowPrivate, OnError: onError, Mode: mode,
			}
			for _, h := range p.Hooks() {
				entry.Hooks = append(entry.Hooks, string(h))
			}
			if cmd.Flags().Changed("timeout-ms") {
				entry.TimeoutMS = int64(timeoutMS)
			}
			if cmd.Flags().Changed("memory-mb") {
				entry.MemoryMB = int64(memoryMB)
			}
			file, err := config.AddPlugin(a.loadOptions(), scope, entry, replace)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			verb := "added"
			if replace {
				verb = "wrote"
			}
			fmt.Fprintf(a.stdout, "%s plugin %s to %s: hooks %s, sha256 %s\n", verb, name, file, strings.Join(entry.Hooks, ", "), entry.SHA256)
			a.pluginTrustHint(name)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&name, "name", "", "the entry's name (default: the name the plugin describes itself with)")
	fl.StringArrayVar(&hooks, "hook", nil, "a hook the entry uses (repeatable; default: every hook the plugin describes)")
	fl.StringVarP(&scopeName, "scope", "s", defaultPluginScope, "the file to write: user (your config file), project (the project's .mcphost.*) or local (yours, for this directory)")
	fl.StringArrayVar(&cfgs, "config", nil, "an entry of the plugin's config: map, KEY=VALUE (repeatable)")
	fl.StringArrayVar(&servers, "server", nil, "a glob of the server ids the plugin applies to (repeatable; default: every server)")
	fl.StringArrayVar(&secrets, "secret", nil, "grant secret NAME from environment variable ENVVAR: NAME=ENVVAR (repeatable; written as a reference, never a value)")
	fl.StringArrayVar(&allowedHosts, "allowed-host", nil, "a host-name glob the plugin's mcphost_http may reach (repeatable; auth plugins only)")
	fl.BoolVar(&allowPrivate, "allow-private", false, "let mcphost_http reach loopback and private addresses and plain http:// URLs")
	fl.StringVar(&onError, "on-error", "", "what a failed call means: deny (the default), allow, or fallback (map_names only)")
	fl.StringVar(&mode, "mode", "", "enforce (the default) or shadow (evaluate and log, change nothing)")
	fl.IntVar(&timeoutMS, "timeout-ms", int(config.DefaultPluginTimeout.Milliseconds()), "limits.timeout_ms, written only when given")
	fl.IntVar(&memoryMB, "memory-mb", config.DefaultPluginMemoryMB, "limits.memory_mb, written only when given")
	fl.BoolVar(&replace, "replace", false, "replace an entry of the same name in that file (keeps its place in the chain)")
	return cmd
}

// secretRefFlags turns --secret NAME=ENVVAR (or NAME=${REF}) into the
// references the entry's secrets map holds. Nothing is read: the value is
// taken from the environment each time the plugin loads.
func secretRefFlags(items []string) (map[string]string, error) {
	if len(items) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, it := range items {
		name, ref, err := splitSecretFlag(it, "will hold")
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(ref, "${") {
			if !envVarPattern.MatchString(ref) {
				return nil, usageError("--secret %s: %q is not an environment variable name: write NAME=ENVVAR (values are never written in config files)", name, ref)
			}
			ref = "${" + ref + "}"
		}
		out[name] = ref
	}
	return out, nil
}

// pluginTrustHint says, after an add, when the plugin will not run: the
// administrator's managed configuration blocks it, or (not yet) it is in a
// project file that is not trusted.
func (a *app) pluginTrustHint(name string) {
	cfg, err := config.Load(a.loadOptions())
	if err != nil {
		return
	}
	for _, p := range cfg.Plugins {
		if p.Name == name && p.Blocked != "" {
			fmt.Fprintf(a.stdout, "note: plugin %s is not used: %s\n", name, termtext.Line(p.Blocked))
			continue
		}
		if p.Name == name && p.Untrusted {
			fmt.Fprintf(a.stdout, "note: plugin %s is not loaded until you trust the project: mcphost trust %s\n", name, shellQuote(cfg.ProjectDir))
		}
	}
}

// pluginListEntry is one line of "plugin list"; its JSON form is stable.
type pluginListEntry struct {
	Name   string `json:"name"`
	Path   string `json:"path"`
	Source string `json:"source"`
	// Scope is the source's scope: user, project or local; "config" for a
	// --config file.
	Scope string `json:"scope"`
	// Hooks are the hooks the entry lists; empty means every hook the
	// plugin describes.
	Hooks   []abi.Hook `json:"hooks"`
	Servers []string   `json:"servers,omitempty"`
	Mode    string     `json:"mode"`
	OnError string     `json:"on_error,omitempty"`
	// SHA256 is the pin ("" for none); FileSHA256 the file's hash now.
	SHA256     string `json:"sha256,omitempty"`
	FileSHA256 string `json:"file_sha256,omitempty"`
	// Pin is ok, mismatch, none, missing or unreadable.
	Pin       string   `json:"pin"`
	Secrets   []string `json:"secrets,omitempty"`
	Untrusted bool     `json:"untrusted,omitempty"`
	// Blocked is the administrator's rule that keeps the plugin out of
	// the chain (managed plugins: managed_only or pinned).
	Blocked string `json:"blocked,omitempty"`
	Error   string `json:"error,omitempty"`
}

func (a *app) pluginListCommand() *cobra.Command {
	var (
		scopeName string
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the configured plugins: name, pin check, hooks, scope and file",
		Long: `List the plugins of the configuration in chain order, without loading them:
the name, the hooks the entry lists (all: every hook the plugin describes),
the pin check (the file's SHA-256 against the entry's sha256: ok, MISMATCH
— the plugin will not load —, none, missing or unreadable), where the entry
comes from and the plugin file. Problems follow the table.
"mcphost doctor" also loads each plugin.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			scope, err := parseScope(scopeName, true)
			if err != nil {
				return err
			}
			opts := a.loadOptions()
			cfg, err := config.LoadScope(opts, scope)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			a.redactSecrets(cfg)
			list := make([]pluginListEntry, 0, len(cfg.Plugins))
			for _, p := range cfg.Plugins {
				e := a.listEntry(opts, p)
				if cfg.Managed != nil && slices.Contains(cfg.Managed.Files, p.Source) {
					e.Scope = string(config.ScopeManaged)
				}
				list = append(list, e)
			}
			if asJSON {
				return printJSON(a.stdout, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(a.stdout, "no plugins are configured (add one: mcphost plugin add FILE.wasm)")
				return nil
			}
			return printPluginList(a, list)
		},
	}
	cmd.Flags().StringVarP(&scopeName, "scope", "s", "effective", "effective (every file), user, project, local or managed")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	return cmd
}

func (a *app) listEntry(opts config.LoadOptions, p *config.Plugin) pluginListEntry {
	e := pluginListEntry{
		Name: p.Name, Path: p.Path, Source: p.Source, Scope: scopeOfFile(opts, p.Source),
		Hooks: p.Hooks, Servers: p.Servers, Mode: p.Mode, OnError: p.OnError, SHA256: p.SHA256,
		Secrets: p.Secrets.Names(), Untrusted: p.Untrusted, Blocked: p.Blocked,
	}
	if e.Hooks == nil {
		e.Hooks = []abi.Hook{}
	}
	if p.Err != nil {
		e.Error = p.Err.Error()
	}
	pin := doctor.PinOf(p)
	e.Pin, e.FileSHA256 = pin.State, pin.SHA256
	if pin.Err != nil && e.Error == "" {
		e.Error = fmt.Sprintf("plugin file %s: %v", p.Path, unwrapPathError(pin.Err))
	}
	return e
}

// scopeOfFile names the scope a config file belongs to.
func scopeOfFile(opts config.LoadOptions, file string) string {
	for _, s := range []config.Scope{config.ScopeUser, config.ScopeProject, config.ScopeLocal} {
		if p, _, err := config.ScopeFile(opts, s); err == nil && p == file {
			return string(s)
		}
	}
	return "config"
}

func printPluginList(a *app, list []pluginListEntry) error {
	tw := table(a.stdout)
	fmt.Fprintln(tw, "NAME\tHOOKS\tPIN\tMODE\tSCOPE\tFILE")
	var problems []string
	for _, e := range list {
		hooks := "all"
		if len(e.Hooks) > 0 {
			hooks = plugins.HookList(e.Hooks)
		}
		pin := e.Pin
		switch e.Pin {
		case doctor.PinMismatch:
			pin = "MISMATCH"
			problems = append(problems, fmt.Sprintf("%s: the file's sha256 is %s, the entry pins %s: it will not load (if the file was changed on purpose: mcphost plugin add %s --name %s --replace)",
				e.Name, e.FileSHA256, e.SHA256, e.Path, e.Name))
		case doctor.PinMissing, doctor.PinUnreadable:
			problems = append(problems, e.Name+": "+e.Error)
		}
		switch {
		case e.Blocked != "":
			pin += " (blocked)"
			problems = append(problems, e.Name+": not used: "+e.Blocked)
		case e.Untrusted:
			pin += " (untrusted)"
		}
		if e.Error != "" && e.Pin != doctor.PinMissing && e.Pin != doctor.PinUnreadable {
			problems = append(problems, e.Name+": "+e.Error)
		}
		name := e.Name
		if name == "" {
			name = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", termtext.Line(name), hooks, pin, e.Mode, e.Scope, termtext.Line(e.Path))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(a.stdout, "\n%s\n", termtext.Line(p))
	}
	return nil
}

func (a *app) pluginRemoveCommand() *cobra.Command {
	var scopeName string
	cmd := &cobra.Command{
		Use:     "remove NAME [--scope user|project|local]",
		Aliases: []string{"rm"},
		Short:   "Remove a plugin from the plugins section of its config file",
		Long: `Remove the entry NAME from the plugins list of the file that defines it
(without --scope: the user, project or local file it is found in), keeping
the rest of the file (YAML comments too). The plugin file itself is left
alone.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			opts := a.loadOptions()
			var scope config.Scope
			if cmd.Flags().Changed("scope") {
				s, err := parseScope(scopeName, false)
				if err != nil {
					return err
				}
				scope = s
			} else {
				s, err := a.scopeOfPlugin(opts, name)
				if err != nil {
					return err
				}
				scope = s
			}
			file, err := config.RemovePlugin(opts, scope, name)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "removed plugin %s from %s\n", name, file)
			return nil
		},
	}
	cmd.Flags().StringVarP(&scopeName, "scope", "s", "", "the file to remove it from: user, project or local (default: where it is defined)")
	return cmd
}

// scopeOfPlugin finds the scope whose file defines plugin name.
func (a *app) scopeOfPlugin(opts config.LoadOptions, name string) (config.Scope, error) {
	cfg, err := config.Load(opts)
	if err != nil {
		return "", &exitError{code: exitUsage, err: err}
	}
	for _, p := range cfg.Plugins {
		if p.Name != name {
			continue
		}
		switch s := scopeOfFile(opts, p.Source); s {
		case string(config.ScopeUser), string(config.ScopeProject), string(config.ScopeLocal):
			return config.Scope(s), nil
		}
		return "", usageError("plugin %s is defined in %s, a file given with --config: edit that file", name, p.Source)
	}
	return "", &exitError{code: exitUsage, err: fmt.Errorf("no plugin %q is configured (see \"mcphost plugin list\"): %w", name, config.ErrNoSuchPlugin)}
}

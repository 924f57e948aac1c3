package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcphost/mcphost/host/clientconf"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/providers"
	"github.com/mcphost/mcphost/pdk/abi"
)

// Shell completion of values. Cobra completes commands and flags by
// itself; what follows tells it the values: tool names from the cache of
// the last listing (completecache.go), server ids and plugin names from the
// configuration, and the fixed words of some flags. Nothing here starts a
// server, asks the keychain or prints a warning: a TAB must be quick and
// quiet.

const noFiles = cobra.ShellCompDirectiveNoFileComp

// serverIDCommands take a configured server's id as their argument.
var serverIDCommands = map[string]bool{
	"mcphost mcp get": true, "mcphost mcp remove": true, "mcphost mcp disable": true,
}

// startServerCommands take the id of a server they would start: a server
// the administrator blocks is not offered (the command would refuse it).
var startServerCommands = map[string]bool{"mcphost mcp enable": true, "mcphost mcp test": true}

// loginCommands take the id of a server reached over the network (a stdio
// server has no login).
var loginCommands = map[string]bool{"mcphost login": true, "mcphost logout": true}

// toolNameCommands take a tool's public name as their first argument.
var toolNameCommands = map[string]bool{"mcphost call": true, "mcphost tools show": true}

// registerCompletions sets the value completions of every command under
// root (flags are found by name, so a new command's --scope or --server
// completes without being listed here).
func (a *app) registerCompletions(root *cobra.Command) {
	var walk func(*cobra.Command)
	walk = func(cmd *cobra.Command) {
		path := cmd.CommandPath()
		switch {
		case serverIDCommands[path]:
			cmd.ValidArgsFunction = a.firstArg(a.serverIDCandidates)
		case startServerCommands[path]:
			cmd.ValidArgsFunction = a.firstArg(func(prefix string) []string {
				return a.serverIDsWhere(prefix, func(s *config.Server) bool { return s.Blocked == "" })
			})
		case loginCommands[path]:
			cmd.ValidArgsFunction = a.firstArg(func(prefix string) []string {
				return a.serverIDsWhere(prefix, func(s *config.Server) bool { return s.Transport != config.TransportStdio && s.Blocked == "" })
			})
		case toolNameCommands[path]:
			cmd.ValidArgsFunction = a.firstArg(a.toolNameCandidates)
		case path == "mcphost plugin remove":
			cmd.ValidArgsFunction = a.firstArg(a.pluginNameCandidates)
		case path == "mcphost client install" || path == "mcphost client uninstall":
			cmd.ValidArgsFunction = a.firstArg(clientKindCandidates)
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if fn := a.flagCompletion(cmd, f); fn != nil {
				_ = cmd.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(root)
	pf := root.PersistentFlags()
	fixed := map[string][]string{
		"name-scheme":  {config.SchemePrefixed, config.SchemeServer, config.SchemeBare},
		"log-level":    {"trace", "debug", "info", "warn", "error", "off"},
		"secret-store": {"auto", "keychain", "file"},
	}
	for name, values := range fixed {
		if pf.Lookup(name) != nil {
			_ = root.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, noFiles))
		}
	}
}

type completionFunc = func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)

// flagCompletion is the completion of flag f of cmd, or nil.
func (a *app) flagCompletion(cmd *cobra.Command, f *pflag.Flag) completionFunc {
	fixed := func(values ...string) completionFunc { return cobra.FixedCompletions(values, noFiles) }
	switch {
	case f.Name == "scope" && f.Shorthand == "s":
		if cmd.Parent() != nil && cmd.Parent().Name() == "client" {
			return fixed(string(clientconf.ScopeUser), string(clientconf.ScopeProject))
		}
		scopes := []string{string(config.ScopeLocal), string(config.ScopeProject), string(config.ScopeUser)}
		if f.DefValue == "effective" {
			scopes = append([]string{"effective"}, scopes...)
		}
		return fixed(scopes...)
	case f.Name == "server" && f.Value.Type() != "bool":
		return func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
			return a.serverIDCandidates(prefix), noFiles
		}
	case f.Name == "format" && cmd.Name() == "tools":
		var names []string
		for _, pf := range providers.Formats() {
			names = append(names, string(pf))
		}
		return fixed(names...)
	case f.Name == "from" && cmd.Name() == "import":
		return fixed(clientconf.KindNames()...)
	case f.Name == "transport" && f.Shorthand == "t":
		if cmd.Name() == "add" {
			return fixed("stdio", "http", "sse", "websocket")
		}
		return fixed("http", "sse", "websocket") // the transports of --url
	case f.Name == "hook" || f.Name == "sample":
		var hooks []string
		for _, h := range abi.Hooks {
			hooks = append(hooks, string(h))
		}
		return fixed(hooks...)
	}
	return nil
}

// firstArg completes the first argument with candidates and nothing after
// it (call's KEY=VALUE words are the tool's, not known here).
func (a *app) firstArg(candidates func(prefix string) []string) completionFunc {
	return func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, noFiles
		}
		return candidates(prefix), noFiles
	}
}

// completionConfig loads the configuration as completion may: without the
// secret store (a keychain could prompt) and without printing warnings.
// nil when it does not load.
func (a *app) completionConfig() *config.Config {
	opts := a.loadOptions()
	opts.Secret = nil
	cfg, err := config.Load(opts)
	if err != nil {
		return nil
	}
	return cfg
}

// serverIDCandidates are the configured servers' ids, each with its
// transport and whether it is off.
func (a *app) serverIDCandidates(prefix string) []string {
	return a.serverIDsWhere(prefix, func(*config.Server) bool { return true })
}

// serverIDsWhere are the configured ids starting with prefix whose server
// keep says yes to, each described by its transport and state.
func (a *app) serverIDsWhere(prefix string, keep func(*config.Server) bool) []string {
	cfg := a.completionConfig()
	if cfg == nil {
		return nil
	}
	var out []string
	for _, s := range cfg.Servers {
		if !strings.HasPrefix(s.ID, prefix) || !completable(s.ID) || !keep(s) {
			continue
		}
		desc := s.Transport
		switch {
		case s.Blocked != "":
			desc += ", blocked"
		case s.Untrusted:
			desc += ", untrusted"
		case !s.Enabled:
			desc += ", disabled"
		}
		out = append(out, s.ID+"\t"+completionText(desc, maxCachedDescRunes))
	}
	return out
}

// toolNameCandidates are the public names of the last listing of this
// configuration (see rememberTools), of the servers it still has enabled,
// each with the start of its description. No cache: no candidates, rather
// than starting servers on a TAB.
func (a *app) toolNameCandidates(prefix string) []string {
	c := a.readToolCache()
	if len(c.Servers) == 0 {
		return nil
	}
	cfg := a.completionConfig()
	if cfg == nil {
		return nil
	}
	var out []string
	n := 0
	for _, s := range cfg.Servers {
		// s.Err is not looked at: without the secret store, a server
		// that uses ${secret:NAME} has one here, and still runs.
		if !s.Enabled || s.Untrusted || s.Blocked != "" {
			continue
		}
		for _, t := range c.Servers[s.ID] {
			if n >= maxCachedTools {
				return out
			}
			if !strings.HasPrefix(t.Name, prefix) || !completable(t.Name) {
				continue
			}
			n++
			if d := completionText(t.Description, maxCachedDescRunes); d != "" {
				out = append(out, t.Name+"\t"+d)
			} else {
				out = append(out, t.Name)
			}
		}
	}
	return out
}

// pluginNameCandidates are the configured plugins' names.
func (a *app) pluginNameCandidates(prefix string) []string {
	cfg := a.completionConfig()
	if cfg == nil {
		return nil
	}
	var out []string
	for _, p := range cfg.Plugins {
		if strings.HasPrefix(p.Name, prefix) && completable(p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}

// clientKindCandidates are the clients "client install" knows, with the
// names their users know them by.
func clientKindCandidates(prefix string) []string {
	var out []string
	for _, k := range clientconf.InstallKinds {
		if strings.HasPrefix(string(k), prefix) {
			out = append(out, string(k)+"\t"+clientTitles[k])
		}
	}
	return out
}

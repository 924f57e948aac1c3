package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/adhoc"
	"github.com/mcphost/mcphost/internal/suggest"
)

// adhocFlags give a server on the command line instead of the configured
// ones: --url (with -H and -t), or a command after -- (with -e).
type adhocFlags struct {
	spec adhoc.Spec
	dash bool // the command line has "--"
}

// adhocHelp is the part of a command's long help about ad-hoc servers.
const adhocHelp = `
Instead of the configured servers, a server can be given on the command
line, as with the MCP Inspector, and used without writing it anywhere:
a command after -- (with -e KEY=VALUE for its environment), or --url URL
(with -H "Name: value" headers and -t http|sse|websocket). Its id is
"adhoc" (its tools are mcp__adhoc__TOOL, and "mcphost call" takes the bare
tool name too). It is trusted as if you had put it in a --config file; the
rest of the configuration (plugins, policy, result limits, names) applies
to it as to any server.`

func (f *adhocFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.spec.URL, "url", "", "use the server at this URL instead of the configured ones (Streamable HTTP unless -t says otherwise)")
	fs.StringArrayVarP(&f.spec.Headers, "header", "H", nil, `HTTP header "Name: value" for --url (repeatable; ${VAR} allowed)`)
	fs.StringVarP(&f.spec.Transport, "transport", "t", "", "transport of --url: http (default), sse or websocket")
	fs.StringArrayVarP(&f.spec.Env, "env", "e", nil, "environment variable KEY=VALUE for the command after -- (repeatable; ${VAR} allowed)")
}

// beforeDash returns the positional arguments that belong to the command
// itself: those before "--". What follows "--" is the ad-hoc server's
// command line.
func beforeDash(cmd *cobra.Command, args []string) []string {
	if dash := cmd.ArgsLenAtDash(); dash >= 0 && dash <= len(args) {
		return args[:dash]
	}
	return args
}

// take records the server's command line (the words after "--") and
// returns the command's own arguments.
func (f *adhocFlags) take(cmd *cobra.Command, args []string) []string {
	own := beforeDash(cmd, args)
	if cmd.ArgsLenAtDash() >= 0 {
		f.dash = true
		f.spec.Command = args[len(own):]
	}
	return own
}

// usageSuffix is the ad-hoc server's part of a command line that calls
// one of its tools, so that a usage line can be copied: the command after
// --, or --url with -t; the values of -H and -e are left as … (they may
// be secrets), as is a password in the URL.
func (f *adhocFlags) usageSuffix() string {
	var b strings.Builder
	if f.spec.URL != "" {
		u := f.spec.URL
		if p, err := url.Parse(u); err == nil {
			u = p.Redacted()
		}
		b.WriteString(" --url " + shellQuote(u))
		if f.spec.Transport != "" {
			b.WriteString(" -t " + shellQuote(f.spec.Transport))
		}
		for range f.spec.Headers {
			b.WriteString(" -H '…'")
		}
	}
	for range f.spec.Env {
		b.WriteString(" -e '…'")
	}
	if f.dash {
		b.WriteString(" --")
		for _, w := range f.spec.Command {
			b.WriteString(" " + shellQuote(w))
		}
	}
	return b.String()
}

// set reports whether the command line gives an ad-hoc server.
func (f *adhocFlags) set() bool { return f.dash || f.spec.IsSet() }

// startAdhoc connects to the ad-hoc server alone and returns the host and
// the server's id. The configuration is loaded first as usual (its
// warnings shown, its secrets redacted), then the server is put in place
// of the configured ones.
func (a *app) startAdhoc(ctx context.Context, f *adhocFlags) (*host.Host, string, error) {
	base, err := a.loadConfig()
	if err != nil {
		return nil, "", err
	}
	cfg, err := adhoc.Config(a.loadOptions(), base, f.spec)
	if err != nil {
		return nil, "", &exitError{code: exitUsage, err: err}
	}
	a.redactSecrets(cfg)
	h, err := a.startHostWith(ctx, cfg)
	if err != nil {
		return nil, "", err
	}
	return h, cfg.Servers[0].ID, nil
}

// startForTool starts the host a command about the tool name uses (the
// ad-hoc server when the command line gives one, else what startHostFor
// starts) and resolves the name on it. The caller closes the host; an
// unknown name is unknownTool's error, the host already closed.
func (a *app) startForTool(ctx context.Context, f *adhocFlags, name string) (*host.Host, host.Tool, error) {
	var (
		h    *host.Host
		tool host.Tool
		ok   bool
		err  error
	)
	if f.set() {
		var id string
		if h, id, err = a.startAdhoc(ctx, f); err != nil {
			return nil, host.Tool{}, err
		}
		tool, ok = resolveAdhoc(h, id, name)
	} else {
		if h, err = a.startHostFor(ctx, name); err != nil {
			return nil, host.Tool{}, err
		}
		a.rememberTools(h)
		tool, ok = h.Resolve(name)
	}
	if !ok {
		err := a.unknownTool(h, name)
		a.closeHost(h)
		return nil, host.Tool{}, err
	}
	return h, tool, nil
}

// startListing starts the host a listing command uses: the ad-hoc server
// when the command line gives one, else the configured servers (only
// serverID when it is set). It returns the id of the one server listed, or
// "" for all of them.
func (a *app) startListing(ctx context.Context, f *adhocFlags, serverID string) (*host.Host, string, error) {
	if !f.set() {
		h, err := a.startHost(ctx, serverID)
		if err == nil {
			a.rememberTools(h)
		}
		return h, serverID, err
	}
	if serverID != "" {
		return nil, "", usageError("--server picks one of the configured servers; it does not go with an ad-hoc one")
	}
	return a.startAdhoc(ctx, f)
}

// noArgsBeforeDash is cobra.NoArgs for a command that takes an ad-hoc
// server's command line after "--".
func noArgsBeforeDash(cmd *cobra.Command, args []string) error {
	own := beforeDash(cmd, args)
	if len(own) == 0 {
		return nil
	}
	var subs []string
	for _, c := range cmd.Commands() {
		subs = append(subs, c.Name())
	}
	if p := suggest.Phrase(suggest.Closest(own[0], subs)); p != "" {
		return fmt.Errorf("unknown command %q for %q; %s", own[0], cmd.CommandPath(), p)
	}
	return fmt.Errorf("unknown command %q for %q (a server's command goes after --)", own[0], cmd.CommandPath())
}

// resolveAdhoc resolves a tool name on the ad-hoc server id: a public name,
// server:tool, or the name the server gives the tool.
func resolveAdhoc(h *host.Host, id, name string) (host.Tool, bool) {
	if t, ok := h.Resolve(name); ok {
		return t, true
	}
	if strings.Contains(name, ":") {
		return host.Tool{}, false
	}
	return h.Resolve(id + ":" + name)
}

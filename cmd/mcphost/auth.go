package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/termtext"
)

// getenv reads the environment the command sees (the test hook, or the
// process's).
func (a *app) getenv(name string) string {
	if a.environ == nil {
		return os.Getenv(name)
	}
	for _, kv := range a.environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// tokenStore is where logins are kept: MCPHOST_TOKEN_STORE (auto, keyring
// or file; auto prefers the OS keychain) and mcp-auth.json beside the
// global config file.
func (a *app) tokenStore() (authn.Store, error) {
	dir, err := a.userDir()
	if err != nil {
		return nil, err
	}
	kind := a.getenv("MCPHOST_TOKEN_STORE")
	if kind == "" && a.globalDir != "" {
		kind = "file" // tests never touch the user's keychain
	}
	return authn.OpenStore(kind, filepath.Join(dir, "mcp-auth.json"))
}

// authOptions are the host options for OAuth: the token store, and the
// browser in a terminal for step-ups.
func (a *app) authOptions() []host.Option {
	store, err := a.tokenStore()
	if err != nil {
		a.log.Warn("no token store; OAuth logins are not available", "error", err)
		return nil
	}
	opts := []host.Option{host.WithTokenStore(store)}
	if a.isTerminal(a.stdin) && a.isTerminal(a.stderr) {
		opts = append(opts, host.WithAuthUI(a.browserUI(false), authn.AskStepUp))
	}
	return opts
}

func (a *app) browserUI(noBrowser bool) *authn.BrowserUI {
	return &authn.BrowserUI{Out: a.stderr, NoBrowser: noBrowser || a.getenv("MCPHOST_NO_BROWSER") != "", Escape: termtext.Line}
}

// remoteServer finds a configured sse, http or websocket server.
func (a *app) remoteServer(cfg *config.Config, id string) (*config.Server, error) {
	for _, s := range cfg.Servers {
		if s.ID != id {
			continue
		}
		if s.Blocked != "" {
			return nil, usageError("server %q is %s", id, s.Blocked)
		}
		if s.Untrusted {
			return nil, usageError("server %q comes from a project file that is not trusted: %s", id, cfg.UntrustedHint())
		}
		switch s.Transport {
		case config.TransportHTTP, config.TransportSSE, config.TransportWebSocket:
			return s, nil
		}
		return nil, usageError("server %q is a %s server: logins are for sse, http and websocket servers", id, s.Transport)
	}
	return nil, usageError("no server %q is configured (see \"mcphost mcp list\")", id)
}

// remoteWithStore loads the configuration, finds remote server id and
// opens the token store: what login and logout start with.
func (a *app) remoteWithStore(id string) (*config.Config, *config.Server, authn.Store, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, nil, nil, err
	}
	s, err := a.remoteServer(cfg, id)
	if err != nil {
		return nil, nil, nil, err
	}
	store, err := a.tokenStore()
	if err != nil {
		return nil, nil, nil, err
	}
	return cfg, s, store, nil
}

func (a *app) loginCommand() *cobra.Command {
	var noBrowser bool
	cmd := &cobra.Command{
		Use:   "login ID",
		Short: "Log in to a server that uses OAuth and keep its tokens",
		Long: `Log in to an sse, http or websocket server that asks for OAuth authorization.

mcphost discovers the server's authorization server, registers itself (or uses
the client of the entry's oauth block), and opens your browser at the
authorization page. The browser is sent back to mcphost on 127.0.0.1 (a random
port, or oauth.redirect_port). With --no-browser, or when no browser can be
opened (over SSH, without a display), the URL is printed on a line of its own:
open it in a browser on this machine. Tokens are kept in the OS keychain, or
in mcp-auth.json (mode 0600) beside the global config file where there is no
keychain (MCPHOST_TOKEN_STORE=keyring|file chooses). They are refreshed
before they expire.`,
		Example: `  mcphost login linear
  mcphost login github --no-browser`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, s, store, err := a.remoteWithStore(args[0])
			if err != nil {
				return err
			}
			if s.Err != nil {
				return &exitError{code: exitUsage, err: s.Err}
			}
			if s.Auth.Type != config.AuthAuto && s.Auth.Type != config.AuthOAuth {
				return usageError("server %q uses auth type %s, which needs no login", s.ID, s.Auth.Type)
			}
			// A login only connects: no tool is called, so the
			// configuration's call policy, plugins and truncation have
			// nothing to act on (and host.New would refuse them unloaded).
			one := config.Config{Names: cfg.Names, Servers: []*config.Server{s}, Files: cfg.Files, ProjectDir: cfg.ProjectDir}
			opts := []host.Option{
				host.WithLogger(a.log),
				identity(),
				host.WithTokenStore(store),
				host.WithAuthUI(a.browserUI(noBrowser), authn.AskAlways),
			}
			opts = append(opts, a.hostOptions...)
			h, err := host.New(&one, opts...)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			defer a.closeHost(h)
			ctx := cmd.Context()
			if err := h.Login(ctx, s.ID); err != nil {
				if ctx.Err() != nil {
					return &exitError{code: exitInterrupted, err: errors.New("interrupted while waiting for the authorization")}
				}
				if errors.Is(err, host.ErrNoAuthorization) {
					fmt.Fprintf(a.stdout, "server %s did not ask for authorization: nothing to log in to\n", s.ID)
					return nil
				}
				return err
			}
			st := authn.Describe(store, s, time.Now())
			fmt.Fprintf(a.stdout, "logged in to %s%s\n", s.ID, describeLogin(st))
			return nil
		},
	}
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "print the authorization URL instead of opening a browser")
	return cmd
}

// describeLogin is " (scopes a b; expires in 59m; kept in the OS keychain)".
func describeLogin(st authn.Status) string {
	var parts []string
	if len(st.Scopes) > 0 {
		parts = append(parts, "scopes "+strings.Join(st.Scopes, " "))
	}
	if !st.ExpiresAt.IsZero() {
		parts = append(parts, "expires "+st.ExpiresAt.Local().Format(time.DateTime))
		if st.Refreshable {
			parts[len(parts)-1] += ", renewed automatically"
		}
	}
	if st.Store != "" {
		parts = append(parts, "kept in the "+st.Store)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func (a *app) logoutCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "logout ID",
		Short: "Forget a server's login (and revoke its tokens where the server allows)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, s, store, err := a.remoteWithStore(args[0])
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			res, err := authn.Logout(ctx, store, s, nil)
			if err != nil {
				return err
			}
			switch {
			case !res.Removed:
				fmt.Fprintf(a.stdout, "server %s has no stored login\n", s.ID)
			case res.Revoked:
				fmt.Fprintf(a.stdout, "logged out of %s (tokens revoked and removed)\n", s.ID)
			default:
				fmt.Fprintf(a.stdout, "logged out of %s (tokens removed; %s)\n", s.ID, res.Note)
			}
			return nil
		},
	}
}

func (a *app) authCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Show how mcphost authenticates to each server",
	}
	var asJSON bool
	status := &cobra.Command{
		Use:   "status",
		Short: "List each remote server's auth type, login state, scopes and expiry (never a token)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			store, serr := a.tokenStore()
			var list []authn.Status
			for _, s := range cfg.Servers {
				switch s.Transport {
				case config.TransportHTTP, config.TransportSSE, config.TransportWebSocket:
					list = append(list, authn.Describe(store, s, time.Now()))
				}
			}
			if asJSON {
				enc := json.NewEncoder(termtext.RawOf(a.stdout))
				enc.SetIndent("", "  ")
				return enc.Encode(list)
			}
			if serr != nil {
				fmt.Fprintf(a.stderr, "warning: no token store: %v\n", serr)
			}
			if len(list) == 0 {
				fmt.Fprintln(a.stdout, "no sse, http or websocket servers are configured")
				return nil
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SERVER\tAUTH\tSTATE\tSCOPES\tEXPIRES")
			for _, st := range list {
				exp := "-"
				if !st.ExpiresAt.IsZero() {
					exp = st.ExpiresAt.Local().Format(time.DateTime)
				}
				scopes := strings.Join(st.Scopes, " ")
				if scopes == "" {
					scopes = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", st.ID, st.Type, st.State, termtext.Line(scopes), exp)
			}
			tw.Flush()
			if store != nil {
				fmt.Fprintf(a.stdout, "logins are kept in the %s\n", store.Name())
			}
			return nil
		},
	}
	status.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(status)
	return cmd
}

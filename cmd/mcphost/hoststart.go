package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/chain"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/plugins"
)

// Loading the configuration, and starting and closing the hosts a command
// uses with their plugins.

// loadOptions turns the global flags into config load options.
func (a *app) loadOptions() config.LoadOptions {
	o := config.LoadOptions{
		GlobalDir:  a.globalDir,
		StateDir:   a.stateDir,
		ManagedDir: a.managedDir,
		WorkDir:    a.workDir,
		ConfigFile: a.configFile,
		Environ:    a.environ,
		Secret:     a.resolveSecret, // ${secret:NAME}
	}
	over := map[string]any{}
	if a.nameScheme != "" {
		over["names.scheme"] = a.nameScheme
	}
	if a.maxNameLength != 0 {
		over["names.max_length"] = a.maxNameLength
	}
	if len(over) > 0 {
		o.Overrides = over
	}
	return o
}

func (a *app) loadConfig() (*config.Config, error) {
	cfg, err := config.Load(a.loadOptions())
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	a.redactSecrets(cfg)
	for _, w := range cfg.Warnings {
		if a.warned[w] {
			continue // a command may load the configuration twice
		}
		if a.warned == nil {
			a.warned = map[string]bool{}
		}
		a.warned[w] = true
		fmt.Fprintf(a.stderr, "warning: %s\n", termtext.Line(w))
	}
	return cfg, nil
}

// startHost loads the configuration (only the server `only` when it is not
// empty), connects and returns a host the caller must close with closeHost.
func (a *app) startHost(ctx context.Context, only string) (*host.Host, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	if only != "" {
		var keep []*config.Server
		for _, s := range cfg.Servers {
			if s.ID == only {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 {
			return nil, usageError("no server %q is configured (see \"mcphost mcp list\")", only)
		}
		cfg.Servers = keep
	}
	return a.startHostWith(ctx, cfg)
}

func (a *app) startHostWith(ctx context.Context, cfg *config.Config, extra ...host.Option) (*host.Host, error) {
	pl, err := chain.New(ctx, cfg, chain.Options{Plugins: plugins.Options{Logger: a.log, Cache: pluginCache}, ResultsDir: a.resultsDir()})
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	for _, st := range pl.Set.Status() {
		switch {
		case st.Err != nil:
			fmt.Fprintf(a.stderr, "warning: plugin %s did not load; its hooks fail (on_error decides): %v\n", st.Name, st.Err)
		case st.Untrusted:
			fmt.Fprintf(a.stderr, "warning: plugin %s is from an untrusted project file and is not used (mcphost trust)\n", st.Name)
		case st.Blocked != "":
			fmt.Fprintf(a.stderr, "warning: plugin %s is not used: %s\n", st.Name, termtext.Line(st.Blocked))
		}
	}
	pins, err := a.pinStoreFile()
	if err != nil {
		a.closePipeline(pl)
		return nil, &exitError{code: exitUsage, err: err}
	}
	// The line "connecting to 3 servers…" (see withStartProgress).
	progress := a.newStartProgress(ctx)
	opts := []host.Option{
		// One attempt per server: a command that runs once reports a
		// server that does not start instead of restarting it (npx, say)
		// over and over. servers --watch passes WithConnectAttempts(0).
		host.WithConnectAttempts(1),
		host.WithLogger(a.log),
		identity(),
		host.WithElicitationHandler(progress.elicit(a.elicit)),
		host.WithConfirmer(a.confirm),
		// Tool pinning: serve passes its own store in extra.
		host.WithPinStore(pins),
	}
	opts = append(opts, progress.options()...)
	opts = append(opts, a.authOptions()...)
	opts = append(opts, pl.HostOptions()...)
	opts = append(opts, a.hostOptions...)
	opts = append(opts, extra...)
	h, err := host.New(cfg, opts...)
	if err != nil {
		a.closePipeline(pl)
		return nil, &exitError{code: exitUsage, err: err}
	}
	a.pipelines = append(a.pipelines, hostPipeline{h, pl})
	progress.begin(h)
	err = h.Start(ctx)
	progress.end() // erased before anything else is printed
	if err != nil {
		if ctx.Err() != nil {
			err = interruptedStarting(h)
		}
		a.closeHost(h)
		return nil, err
	}
	return h, nil
}

// interruptedStarting says which servers were still connecting when the
// user interrupted.
func interruptedStarting(h *host.Host) error {
	var slow []string
	for _, st := range h.Status() {
		if st.State == host.StateConnecting || st.State == host.StateReconnecting {
			slow = append(slow, st.ID)
		}
	}
	if len(slow) == 0 {
		return &exitError{code: exitInterrupted, err: errors.New("interrupted while connecting")}
	}
	return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted while connecting to %s", strings.Join(slow, ", "))}
}

// hostPipeline remembers which plugins a host uses, to close them with it.
type hostPipeline struct {
	h  *host.Host
	pl *chain.Chain
}

func (a *app) closeHost(h *host.Host) {
	ctx, cancel := context.WithTimeout(context.Background(), closeDeadline)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		a.log.Warn("closing servers", "error", err)
	}
	for i, hp := range a.pipelines {
		if hp.h == h {
			a.closePipeline(hp.pl)
			a.pipelines = append(a.pipelines[:i], a.pipelines[i+1:]...)
			break
		}
	}
}

func (a *app) closePipeline(pl *chain.Chain) {
	ctx, cancel := context.WithTimeout(context.Background(), closeDeadline)
	defer cancel()
	if err := pl.Close(ctx); err != nil {
		a.log.Warn("closing plugins", "error", err)
	}
}

// warnUnavailable prints one line per server that could not be used, so a
// listing that lacks a server's tools says why.
func (a *app) warnUnavailable(h *host.Host) {
	for _, st := range h.Status() {
		switch st.State {
		case host.StateError, host.StateNeedsAuth, host.StateUntrusted, host.StateBlocked:
			fmt.Fprintf(a.stderr, "warning: server %s is not available (%s): %s\n", st.ID, st.State, serverFailure(st))
		case host.StateReconnecting:
			// Its first connect failed; the host would retry, but a
			// one-shot command does not wait for that.
			fmt.Fprintf(a.stderr, "warning: server %s is not available (connect failed): %s\n", st.ID, serverFailure(st))
		}
	}
}

// Package doctor checks an mcphost set-up and says what to fix: the
// configuration files, the trust of the project, the programs the servers
// run, the plugins, each server (connect, initialize, list tools) and the
// login state of remote servers. "mcphost doctor" prints its Report.
//
// Every problem is a Check with a Fix: the command to run or the field to
// change. Nothing here changes the configuration or the token store.
package doctor

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/chain"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/plugins"
)

// Status is the outcome of one check.
type Status string

const (
	OK   Status = "ok"
	Warn Status = "warn" // works, but something deserves a look
	Fail Status = "fail" // does not work
	// Skip: not checked, and the message says why (a disabled server, an
	// untrusted project's plugin, everything after a configuration that
	// does not load).
	Skip Status = "skip"
)

// Kinds of check, in the order Run makes them.
const (
	KindConfig = "config"
	KindTrust  = "trust"
	// KindManaged (managed.go) follows KindConfig.
	KindCommand = "command"
	KindPlugin  = "plugin"
	KindServer  = "server"
	KindAuth    = "auth"
)

// (KindPins, the pin store and the managed pin files, is in pins.go.)

// DefaultTimeout bounds the loading of the plugins and the start of the
// servers unless Options.Timeout says otherwise. Servers are checked at the
// same time, each within its own startup_timeout (30 s by default), so this
// is rarely reached.
const DefaultTimeout = 2 * time.Minute

// Check is one line of the report. Its JSON form is stable.
type Check struct {
	Kind string `json:"kind"`
	// Subject is what was checked: a file, a directory, a command, a
	// plugin name or a server id.
	Subject string `json:"subject"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	// Fix says what to do about a warn or fail: a command to run or a
	// field to change.
	Fix string `json:"fix,omitempty"`
	// Details are more lines: the lines a failed stdio server wrote to
	// stderr that say why, the warnings about a server's tools, the
	// problems of an entry that has several.
	Details []string `json:"details,omitempty"`
	// LatencyMS is how long a server took to connect, initialize and list,
	// or a plugin to load.
	LatencyMS int64 `json:"latency_ms,omitempty"`
}

// Summary counts the checks by status.
type Summary struct {
	OK   int `json:"ok"`
	Warn int `json:"warn"`
	Fail int `json:"fail"`
	Skip int `json:"skip"`
}

// Report is what Run found.
type Report struct {
	// OK is false when a check failed.
	OK      bool    `json:"ok"`
	Summary Summary `json:"summary"`
	Checks  []Check `json:"checks"`
	// Managed is the administrator's managed configuration; nil when the
	// configuration did not load.
	Managed *ManagedReport `json:"managed,omitempty"`
	// Config is the configuration that was checked; nil when it did not
	// load.
	Config *config.Config `json:"-"`
}

// Options say what to check and how.
type Options struct {
	// Load is where the configuration comes from, as for config.Load.
	Load config.LoadOptions
	// Configured, if set, is called with the configuration once it has
	// loaded, before any server or plugin is started (the CLI starts
	// hiding the configuration's secrets in its output there).
	Configured func(*config.Config)
	// TokenStore opens the store of OAuth logins; nil means none (remote
	// servers that need a login then show it).
	TokenStore func() (authn.Store, error)
	// Plugins are the runtime options the plugins load with.
	Plugins plugins.Options
	// HostOptions are added to the host that connects to the servers.
	HostOptions []host.Option
	// Logger receives the host's log lines; nil: none.
	Logger hclog.Logger
	// Timeout bounds the loading of the plugins, and then the start of the
	// servers (all at once, each also within its startup_timeout); 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// PinStore is the tool pin store to check (the CLI's pins.json); "":
	// not checked. It is only read: the servers are checked against a
	// copy.
	PinStore string
}

// Run makes every check and returns the report. It fails only in the
// report: a configuration that does not load is a failed check, and the
// checks that need it are skipped. Servers are started at the same time,
// each within its startup_timeout, all within Timeout; everything Run
// starts is stopped before it returns. When ctx ends, Run returns what it
// found so far, the servers still connecting marked failed.
func Run(ctx context.Context, opts Options) *Report {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	r := &Report{}
	cfg := r.checkConfig(opts)
	if cfg == nil {
		r.add(Check{Kind: KindServer, Subject: "servers", Status: Skip,
			Message: "trust, commands, plugins, servers and logins were not checked: the configuration does not load"})
		return r.finish()
	}
	r.Config = cfg
	if opts.Configured != nil {
		opts.Configured(cfg)
	}
	managedDir := opts.Load.ManagedDir
	if managedDir == "" {
		managedDir = config.SystemManagedDir()
	}
	r.checkManaged(cfg, managedDir)
	r.checkTrust(cfg, opts)
	r.checkCommands(cfg, opts)

	// The plugins' first instances are made under this context: it lives
	// as long as they may be used (an auth plugin, while servers connect).
	loadCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	pl, err := chain.New(loadCtx, cfg, chain.Options{Plugins: opts.Plugins})
	if err != nil {
		r.add(Check{Kind: KindPlugin, Subject: "plugins", Status: Fail, Message: "not loaded: " + err.Error(),
			Fix: "run doctor again with a longer --timeout"})
		return r.finish()
	}
	defer closeWithin(pl.Close)
	r.checkPlugins(cfg, pl.Set.Status())

	var store authn.Store
	var storeErr error
	if opts.TokenStore != nil {
		store, storeErr = opts.TokenStore()
	}
	var pins pinReport
	pinOpt, cleanup := pins.checkPins(cfg, opts)
	defer cleanup()
	if pinOpt != nil {
		opts.HostOptions = append(opts.HostOptions, pinOpt)
	}
	statuses, denied, changes, startErr := startServers(ctx, cfg, pl, store, opts)
	r.checkServers(cfg, statuses, denied, startErr, opts.Timeout)
	r.checkAuth(cfg, statuses, store, storeErr, time.Now())
	if pinOpt != nil {
		pins.checkPinChanges(opts.PinStore, changes)
	}
	r.Checks = append(r.Checks, pins.checks...)
	return r.finish()
}

func (r *Report) add(c Check) { r.Checks = append(r.Checks, c) }

func (r *Report) finish() *Report {
	r.Summary = Summary{}
	for _, c := range r.Checks {
		switch c.Status {
		case OK:
			r.Summary.OK++
		case Warn:
			r.Summary.Warn++
		case Fail:
			r.Summary.Fail++
		case Skip:
			r.Summary.Skip++
		}
	}
	r.OK = r.Summary.Fail == 0
	if r.Checks == nil {
		r.Checks = []Check{}
	}
	return r
}

// closeDeadline bounds the stopping of what Run started.
const closeDeadline = 5 * time.Second

func closeWithin(close func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), closeDeadline)
	defer cancel()
	_ = close(ctx)
}

// startServers connects to every server that may start, at once, each
// with one attempt within its startup_timeout, and returns their status by
// id, and how many of each one's tools the policy always denies. startErr
// is set when ctx ended first.
func startServers(ctx context.Context, cfg *config.Config, pl *chain.Chain, store authn.Store, opts Options) (statuses map[string]host.ServerStatus, denied map[string]int, changes []host.PinChange, startErr error) {
	hopts := []host.Option{
		// A check reports a server that does not start; it does not
		// restart it.
		host.WithConnectAttempts(1),
		host.WithLogger(opts.Logger),
	}
	if store != nil {
		hopts = append(hopts, host.WithTokenStore(store))
	}
	hopts = append(hopts, pl.HostOptions()...)
	hopts = append(hopts, opts.HostOptions...)
	h, err := host.New(cfg, hopts...)
	if err != nil {
		return nil, nil, nil, err
	}
	defer closeWithin(h.Close)
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	startErr = h.Start(ctx)
	statuses, denied = map[string]host.ServerStatus{}, map[string]int{}
	for _, st := range h.Status() {
		statuses[st.ID] = st
	}
	// Counted as "mcphost tools" lists them: all, the denied ones marked.
	for _, t := range h.AllTools() {
		if t.Denied != "" {
			denied[t.Server]++
		}
	}
	if startErr != nil && ctx.Err() != nil {
		startErr = errDeadline
	}
	changes, _ = h.PinChanges("")
	return statuses, denied, changes, startErr
}

// errDeadline: Run's Timeout ended while servers were still connecting.
var errDeadline = errors.New("the doctor's time limit ended while servers were still connecting")

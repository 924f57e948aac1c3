package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/chain"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/glob"
	"github.com/mcphost/mcphost/plugins"
)

// Plugin states as "servers" shows them.
const (
	pluginLoaded    = "loaded"
	pluginError     = "error"     // did not load: its hooks fail, on_error decides
	pluginUntrusted = "untrusted" // from a project file not trusted: not used
	pluginBlocked   = "blocked"   // the administrator's managed layer keeps it out: not used
)

// pluginReport is one configured plugin as "servers" shows it.
type pluginReport struct {
	Name    string     `json:"name"`
	Version string     `json:"version,omitempty"`
	Hooks   []abi.Hook `json:"hooks"`
	State   string     `json:"state"`
	Mode    string     `json:"mode,omitempty"`
	// Servers are the globs of the server ids the plugin applies to;
	// empty: every server.
	Servers []string `json:"servers,omitempty"`
	Source  string   `json:"source"`
	Error   string   `json:"error,omitempty"`
}

// pluginReports describes the plugins of the pipeline h was started with,
// in chain order (untrusted ones included, marked so).
func (a *app) pluginReports(h *host.Host) []pluginReport {
	var pl *chain.Chain
	for _, hp := range a.pipelines {
		if hp.h == h {
			pl = hp.pl
		}
	}
	if pl == nil {
		return nil
	}
	stages := map[string]host.StageConfig{}
	for _, sc := range chain.Stages(pl.Set) {
		if p, ok := sc.Stage.(*plugins.Plugin); ok {
			stages[p.Spec().Name] = sc
		}
	}
	var out []pluginReport
	for _, st := range pl.Set.Status() {
		r := pluginReport{Name: st.Name, Hooks: st.Hooks, State: pluginLoaded, Source: st.Source}
		if r.Hooks == nil {
			r.Hooks = []abi.Hook{}
		}
		if d := st.Description; d != nil {
			r.Version = d.Version
		}
		if sc, ok := stages[st.Name]; ok {
			r.Mode, r.Servers = sc.Mode, sc.Servers
		}
		switch {
		case st.Blocked != "":
			r.State, r.Error = pluginBlocked, st.Blocked
		case st.Untrusted:
			r.State = pluginUntrusted
		case st.Err != nil:
			r.State, r.Error = pluginError, st.Err.Error()
		}
		out = append(out, r)
	}
	return out
}

// appliesTo reports whether the plugin takes part in the calls of server
// id: it is in the chain and its server globs (if any) match.
func (r pluginReport) appliesTo(id string) bool {
	return r.State != pluginUntrusted && r.State != pluginBlocked && (len(r.Servers) == 0 || glob.MatchAny(r.Servers, id))
}

// printPlugins prints the plugin section of "servers", after the server
// table: nothing when no plugin is configured.
func printPlugins(w io.Writer, reports []pluginReport) error {
	if len(reports) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := table(w)
	fmt.Fprintln(tw, "PLUGIN\tHOOKS\tSTATE\tMODE\tSERVERS\tSOURCE")
	for _, r := range reports {
		hooks := make([]string, len(r.Hooks))
		for i, hk := range r.Hooks {
			hooks[i] = string(hk)
		}
		name := r.Name
		if r.Version != "" {
			name += " " + r.Version
		}
		servers := "all"
		if len(r.Servers) > 0 {
			servers = strings.Join(r.Servers, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", termtext.Line(name), strings.Join(hooks, ","), r.State,
			r.Mode, termtext.Line(servers), termtext.Line(r.Source))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range reports {
		switch r.State {
		case pluginError:
			fmt.Fprintf(w, "\nplugin %s: %s\n", termtext.Line(r.Name), termtext.Line(r.Error))
		case pluginUntrusted:
			fmt.Fprintf(w, "\nplugin %s: from a project file that is not trusted: not used (run \"mcphost trust\")\n", termtext.Line(r.Name))
		case pluginBlocked:
			fmt.Fprintf(w, "\nplugin %s: not used: %s\n", termtext.Line(r.Name), termtext.Line(r.Error))
		}
	}
	return nil
}

// chainPlugin is a plugin in the chain of one server, in "servers --json".
type chainPlugin struct {
	Name  string     `json:"name"`
	Hooks []abi.Hook `json:"hooks"`
	State string     `json:"state"`
	Mode  string     `json:"mode,omitempty"`
}

// serversWithPlugins is the "servers --json" array: each server's object
// with a "plugins" array of the plugins that take part in its calls, in
// chain order.
func serversWithPlugins(st []host.ServerStatus, reports []pluginReport) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(st))
	for _, s := range st {
		obj, err := json.Marshal(s)
		if err != nil {
			return nil, err
		}
		chain := []chainPlugin{}
		for _, r := range reports {
			if r.appliesTo(s.ID) {
				chain = append(chain, chainPlugin{Name: r.Name, Hooks: r.Hooks, State: r.State, Mode: r.Mode})
			}
		}
		list, err := json.Marshal(chain)
		if err != nil {
			return nil, err
		}
		// The status's own encoding (connect_ms) with one more member.
		if len(obj) < 2 || obj[len(obj)-1] != '}' {
			return nil, fmt.Errorf("server %s: status is not a JSON object", s.ID)
		}
		sep := ","
		if string(obj) == "{}" {
			sep = ""
		}
		merged := append(obj[:len(obj)-1:len(obj)-1], []byte(sep+`"plugins":`)...)
		merged = append(merged, list...)
		out = append(out, append(merged, '}'))
	}
	return out, nil
}

package main

import (
	"fmt"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/doctor"
)

// What "mcphost mcp add" says after writing an entry, when the entry will
// not do what it seems to: another scope's entry of the same id wins over
// it (or it wins over one), or its command is not installed (yet).

// shadowNotes prints a note for each other scope that defines id: which
// entry wins, and where.
func (a *app) shadowNotes(scope config.Scope, id string) {
	scopes, files, err := config.ServerScopes(a.loadOptions(), id)
	if err != nil {
		return
	}
	rank := map[config.Scope]int{config.ScopeUser: 1, config.ScopeProject: 2, config.ScopeLocal: 3}
	for i, other := range scopes {
		if other == scope {
			continue
		}
		also := fmt.Sprintf("note: server %q is also defined in the %s scope (%s)", id, other, files[i])
		switch {
		case scope == config.ScopeProject && other == config.ScopeUser:
			fmt.Fprintf(a.stdout, "%s, which wins: this project entry may only switch it on or off, deny tools and change its timeouts (use another id for a project server)\n", also)
		case scope == config.ScopeUser && other == config.ScopeProject:
			fmt.Fprintf(a.stdout, "%s; this user entry wins: the project's entry may only switch it on or off, deny tools and change its timeouts\n", also)
		case rank[other] > rank[scope]:
			fmt.Fprintf(a.stdout, "%s, which shadows this %s entry: it wins in this directory; remove it with \"mcphost mcp remove %s -s %s\" for this one to apply\n", also, scope, id, other)
		default:
			fmt.Fprintf(a.stdout, "%s; this %s entry shadows it: it wins\n", also, scope)
		}
	}
}

// missingCommandWarning warns when the command of the entry just written
// to scope cannot be found as the server would run it. Not an error: it
// may be installed later.
func (a *app) missingCommandWarning(scope config.Scope, id string) {
	cfg, err := config.LoadScope(a.loadOptions(), scope)
	if err != nil {
		return
	}
	for _, s := range cfg.Servers {
		if s.ID != id || s.Err != nil {
			continue
		}
		if problem, fix := doctor.MissingCommand(s); problem != "" {
			fmt.Fprintf(a.stderr, "warning: %s; server %s will not start until it is there: %s\n", problem, id, fix)
		}
	}
}

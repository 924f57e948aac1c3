package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcphost/mcphost/host/clientconf"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/termtext"
)

// directServers splits the servers that a client's file starts itself
// (besides mcphost's own entry, name) into those mcphost serves too (same
// id, or the same command line or URL) and those only the client has.
// Once mcphost is installed, the first would show their tools twice.
func directServers(c *clientconf.Change, env clientconf.Env, cfg *config.Config) (both, only []string) {
	res, err := clientconf.ImportFile(clientconf.Location{Kind: c.Kind, Scope: c.Scope, Path: c.Path, Format: c.Format}, env)
	if err != nil || res == nil {
		return nil, nil // the install itself reports what is wrong with the file
	}
	served := map[string]bool{}
	if cfg != nil {
		for _, s := range cfg.Servers {
			if !s.Enabled || s.Blocked != "" {
				continue // mcphost does not serve it
			}
			served["id:"+s.ID] = true
			served["target:"+serverTarget(s.Command, s.Args, s.URL)] = true
		}
	}
	for _, im := range res.Servers {
		if im.Name == c.Name {
			continue
		}
		if served["id:"+im.Entry.ID] || served["target:"+serverTarget(im.Entry.Command, im.Entry.Args, im.Entry.URL)] {
			both = append(both, im.Name)
		} else {
			only = append(only, im.Name)
		}
	}
	slices.Sort(both)
	slices.Sort(only)
	return both, only
}

func serverTarget(command string, args []string, url string) string {
	if url != "" {
		return url
	}
	return strings.Join(append([]string{command}, args...), "\x00")
}

// hintDirectServers says which servers the client still starts itself,
// and what to do about them.
func (a *app) hintDirectServers(c *clientconf.Change, env clientconf.Env) {
	cfg, err := config.Load(a.loadOptions())
	if err != nil {
		cfg = nil
	}
	both, only := directServers(c, env, cfg)
	title := clientTitles[c.Kind]
	if len(both) > 0 {
		fmt.Fprintf(a.stdout, "note: %s also starts %s itself, which mcphost serves too: their tools will show twice until you remove them from %s\n",
			title, quotedList(both), termtext.Line(c.Path))
	}
	if len(only) > 0 {
		fmt.Fprintf(a.stdout, "note: %s starts %s itself, outside mcphost's policies; \"mcphost mcp import --from %s\" brings them into mcphost\n",
			title, quotedList(only), c.Kind)
	}
}

// quotedList shows names from a client's file quoted (%q escapes a newline
// or a control character, so that a name cannot add a line).
func quotedList(names []string) string {
	const most = 8
	q := make([]string, 0, min(len(names), most))
	for i, n := range names {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		q = append(q, fmt.Sprintf("%q", n))
	}
	return strings.Join(q, ", ")
}

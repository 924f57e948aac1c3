package main

import (
	"github.com/mcphost/mcphost/host/clientconf"
	"github.com/mcphost/mcphost/host/config"
)

// importJSON is the --json form of the plan or the result; values of env
// and headers are masked as in "mcp list --json".
func (a *app) importJSON(results []*clientconf.Result, servers []*importedServer, dryRun bool) map[string]any {
	type fileJSON struct {
		Path    string               `json:"path"`
		Kind    clientconf.Kind      `json:"kind"`
		Skipped []clientconf.Skipped `json:"skipped"`
		Notes   []string             `json:"notes"`
	}
	files := []fileJSON{}
	for _, r := range results {
		files = append(files, fileJSON{Path: r.Path, Kind: r.Kind, Skipped: nonNil(r.Skipped), Notes: nonNil(r.Notes)})
	}
	list := []map[string]any{}
	for _, s := range servers {
		list = append(list, a.importedJSON(s))
	}
	return map[string]any{"dry_run": dryRun, "files": files, "servers": list}
}

func (a *app) importedJSON(s *importedServer) map[string]any {
	e := s.im.Entry
	d := map[string]any{
		"id": e.ID, "name": s.im.Name, "from": s.from, "kind": s.kind, "scope": s.scope, "file": s.file,
		"status": s.status, "transport": transportOf(e), "entry": maskedEntry(e, a.showSecrets),
		"converted": nonNil(s.im.Converted), "dropped": nonNil(s.im.Dropped), "inputs": nonNil(s.im.Inputs),
	}
	if s.err != nil {
		d["error"] = s.err.Error()
	}
	if s.shadows != "" {
		d["shadows"] = s.shadows
	}
	if len(s.replaces) > 0 {
		d["replaces_secrets"] = s.replaces
	}
	return d
}

// maskedEntry is an entry with the values of env and headers masked, and
// those of arguments that follow a secret's flag (--token, --api-key).
func maskedEntry(e config.ServerEntry, show bool) config.ServerEntry {
	e.Env, e.Headers = masked(e.Env, show), masked(e.Headers, show)
	if !show {
		e.URL = config.RedactURL(e.URL)
		if len(e.Args) > 0 {
			e.Args = clientconf.MaskSecretArgs(e.Args)
		}
	}
	return e
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

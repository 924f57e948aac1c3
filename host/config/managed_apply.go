package config

import (
	"strings"
)

// How the managed layer holds the other layers to it.

// lockedBy names the managed file that locked key, for messages.
func (m *Managed) lockedBy() string {
	if len(m.Files) == 1 {
		return m.Files[0]
	}
	return strings.Join(m.Files, ", ")
}

// holdLayers applies lock_settings and the managed servers' protection to
// the layers above the managed layer, before they are merged: what they
// may not set is removed, each removal a warning that names the file.
func holdLayers(m *Managed, layers []*layer, warn func(string, ...any)) {
	if m == nil {
		return
	}
	ignored := func(l *layer, key string) {
		warn("config: %s: %s is ignored: the administrator locked it (lock_settings in %s)", l.source, key, m.lockedBy())
	}
	// deny holds, per managed server, the tools.deny globs so far: the
	// managed layer's, then those each layer above adds.
	deny := map[string][]string{}
	for _, l := range layers {
		if l.kind == kindManaged {
			for id, e := range l.servers {
				if tm, ok := e.fields["tools"].(map[string]any); ok {
					list, _ := asStringList(tm["deny"])
					deny[id] = append(deny[id], list...)
				}
			}
			continue
		}
		for _, sec := range []struct {
			name string
			m    map[string]any
		}{{"names", l.names}, {"policy", l.policy}, {"results", l.results}, {"pinning", l.pinning}} {
			for _, k := range sortedKeys(sec.m) {
				if _, locked := m.Locked(sec.name + "." + k); locked {
					delete(sec.m, k)
					ignored(l, sec.name+"."+k)
				}
			}
		}
		if _, locked := m.Locked("plugins"); locked && len(l.plugins) > 0 {
			l.plugins = nil
			ignored(l, "plugins")
		}
		for _, id := range sortedKeys(l.servers) {
			e := l.servers[id]
			if _, locked := m.Locked("servers." + id); locked {
				delete(l.servers, id)
				ignored(l, "servers."+id)
				continue
			}
			for _, f := range sortedKeys(e.fields) {
				if _, locked := m.Locked("servers." + id + "." + f); locked {
					delete(e.fields, f)
					ignored(l, "servers."+id+"."+f)
				}
			}
			if contains(m.Servers, id) {
				kept := restrictManagedEntry(l, id, e, m, deny, warn)
				if len(kept.fields) == 0 && len(kept.errs) == 0 {
					// Nothing left: the server stays the managed file's.
					delete(l.servers, id)
					continue
				}
				l.servers[id] = kept
			}
		}
	}
}

// restrictManagedEntry keeps what another layer may say about a server the
// managed layer defines: enabled (a user may switch it off, or on if the
// administrator shipped it off) and more tools.deny globs.
func restrictManagedEntry(l *layer, id string, e *layerEntry, m *Managed, deny map[string][]string, warn func(string, ...any)) *layerEntry {
	out := &layerEntry{fields: map[string]any{}, errs: e.errs}
	var ignored []string
	for _, k := range sortedKeys(e.fields) {
		v := e.fields[k]
		switch {
		case k == "enabled" && (!l.untrusted || !isTrue(v)):
			out.fields[k] = v
		case k == "tools":
			tm, _ := v.(map[string]any)
			for _, tk := range sortedKeys(tm) {
				if tk != "deny" || l.untrusted {
					ignored = append(ignored, "tools."+tk)
					continue
				}
				list, ok := asStringList(tm[tk])
				if !ok {
					ignored = append(ignored, "tools.deny")
					continue
				}
				if l.fromProject() {
					// mergeServers adds a project's globs to the lower
					// ones itself (restrictProjectEntry).
					out.fields["tools"] = map[string]any{"deny": toAnyList(list)}
					continue
				}
				// A later value replaces a lower one when merged: give the
				// whole list, the managed globs first.
				deny[id] = append(deny[id], list...)
				out.fields["tools"] = map[string]any{"deny": toAnyList(deny[id])}
			}
		default:
			ignored = append(ignored, k)
		}
	}
	if len(ignored) > 0 {
		warn("config: %s: server %q: %s ignored: the administrator defines this server (%s); you may switch it off or add tools.deny", l.source, id, strings.Join(ignored, ", "), m.lockedBy())
	}
	return out
}

// blockReason is why the managed layer blocks server s, "" if it does not.
// fromProject says the entry that says what s runs came from a project
// file. The managed layer's own servers are never blocked.
func (m *Managed) blockReason(s *Server, fromProject bool, env matchEnv) string {
	if m == nil || contains(m.Servers, s.ID) {
		return ""
	}
	if fromProject && !m.AllowProjectServers {
		return "blocked: allow_project_servers is false in " + m.AllowProjectFrom + " (only the administrator's servers run; ask your administrator)"
	}
	if !fromProject && !m.AllowUserServers {
		return "blocked: allow_user_servers is false in " + m.AllowUserFrom + " (only the administrator's servers run; ask your administrator)"
	}
	for _, r := range m.DeniedServers {
		if r.matches(s, env) {
			return "blocked by " + r.Where() + " (ask your administrator)"
		}
	}
	if m.AllowedServers == nil {
		return ""
	}
	for _, r := range m.AllowedServers {
		if r.matches(s, env) {
			return ""
		}
	}
	return "blocked: not in allowed_servers of " + m.allowedFiles() + " (ask your administrator)"
}

func (m *Managed) allowedFiles() string {
	var files []string
	for _, r := range m.AllowedServers {
		if !contains(files, r.Source) {
			files = append(files, r.Source)
		}
	}
	if len(files) == 0 {
		return m.lockedBy()
	}
	return strings.Join(files, ", ")
}

// pluginBlockReason is why the managed layer keeps plugin p out of the
// chain, "" if it does not.
func (m *Managed) pluginBlockReason(p *Plugin) string {
	if m == nil || contains(m.Files, p.Source) {
		return ""
	}
	switch m.Plugins {
	case PluginsManagedOnly:
		return "blocked: plugins is managed_only in " + m.PluginsFrom + " (only the administrator's plugins run)"
	case PluginsPinned:
		if p.SHA256 == "" {
			return "blocked: plugins is pinned in " + m.PluginsFrom + " (pin it: mcphost plugin add " + p.Path + " --name " + p.Name + " --replace)"
		}
	}
	return ""
}

// managedRefusal is why the managed layer refuses entry written to scope:
// the words a Load would put in the server's Blocked, so that "mcp add"
// says at once what "servers" would say later.
func managedRefusal(r *resolved, scope Scope, entry ServerEntry) (string, error) {
	m, err := readManaged(r)
	if err != nil || m == nil {
		return "", err
	}
	if contains(m.Servers, entry.ID) {
		return "the administrator defines this server (" + m.lockedBy() + "); use another id", nil
	}
	if key, locked := m.Locked("servers." + entry.ID); locked {
		return key + " is locked by the administrator (lock_settings in " + m.lockedBy() + ")", nil
	}
	l := &layer{kind: kindExplicit, source: "new entry", servers: map[string]*layerEntry{}}
	ms := &mergedServer{id: entry.ID, fields: entry.fields(), origins: map[string]int{}}
	// Rules match what would run: variables as they are set now, a
	// reference to an unset one left as written.
	lookup := func(name string) (string, bool) {
		if v, ok := r.lookup(name); ok {
			return v, true
		}
		return "${" + name + "}", true
	}
	s := decodeServer(ms, []*layer{l}, lookups{env: lookup, secret: func(string) (string, error) { return "value", nil }}, r.workDir, true)
	return m.blockReason(s, scope == ScopeProject, r.matchEnv()), nil
}

// managedPluginRefusal is why the managed layer refuses a plugin entry
// that "plugin add" would write, in the words Load would use.
func managedPluginRefusal(r *resolved, entry PluginEntry) (string, error) {
	m, err := readManaged(r)
	if err != nil || m == nil {
		return "", err
	}
	if key, locked := m.Locked("plugins"); locked {
		return key + " is locked by the administrator (lock_settings in " + m.lockedBy() + ")", nil
	}
	return m.pluginBlockReason(&Plugin{Name: entry.Name, Path: entry.Path, SHA256: entry.SHA256}), nil
}

// BlockedEntry says why the managed layer would refuse entry written to
// scope, in the words AddServer refuses it with ("" when it would not): a
// command that writes several entries (an import) reports each before it
// asks for anything.
func BlockedEntry(opts LoadOptions, scope Scope, entry ServerEntry) (string, error) {
	r, err := opts.resolve()
	if err != nil {
		return "", err
	}
	return managedRefusal(r, scope, entry)
}

// readManaged reads the managed layer's rules alone (nil: there is none),
// for a write to check before it writes.
func readManaged(r *resolved) (*Managed, error) {
	layers, errs := managedLayers(r.managedDir)
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return buildManaged(r.managedDir, layers)
}

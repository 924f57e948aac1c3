package config

import (
	"sort"
)

// Merging the layers' entries of one server id.

// mergedServer is one id after merging all layers.
type mergedServer struct {
	id      string
	fields  map[string]any
	origins map[string]int // field path ("url", "env.TOKEN") -> index of the layer that set it
	source  int            // the highest layer that defined the id
	errs    []error
	// untrusted: an untrusted project layer contributed more than
	// "enabled: false" (switching a server off needs no trust).
	untrusted bool
	// projectDir is the directory of the untrusted project layer: what
	// to trust, whichever layer defined the id last.
	projectDir string
}

// mergeServers merges the layers' entries by id: maps (env, headers, tools)
// merge key by key, anything else a higher layer sets replaces the lower
// value. This is koanf's merge rule, with the origin of every value kept so
// that errors name the file the offending value came from.
//
// A project file (trusted or not) cannot change a server that the user's
// own files define: it may switch it on or off, add tools.deny globs and
// tune its timeouts (projectTuning); anything else it says about that
// server is ignored with a warning. Else a
// cloned repository could point the user's server, with the user's headers
// and environment, at a URL or program of its choosing, or lift its deny list.
//
// The local file is above the project's (Claude Code's precedence): a local
// entry that defines the server (definesServer) starts the id afresh.
func mergeServers(layers []*layer, warn func(string, ...any)) []*mergedServer {
	byID := map[string]*mergedServer{}
	userDefined := map[string]bool{}
	var ids []string
	for li, l := range layers {
		for _, id := range sortedKeys(l.servers) {
			e := l.servers[id]
			if l.fromProject() && userDefined[id] {
				e = restrictProjectEntry(l, id, e, byID[id], warn)
				if len(e.fields) == 0 && len(e.errs) == 0 {
					continue
				}
			} else if !l.fromProject() {
				userDefined[id] = true
			}
			ms := byID[id]
			managed := ms != nil && layers[ms.source].kind == kindManaged
			if ms == nil {
				ms = &mergedServer{id: id, fields: map[string]any{}, origins: map[string]int{}}
				byID[id] = ms
				ids = append(ids, id)
			} else if l.kind == kindLocal && definesServer(e.fields) && !managed {
				// The user's own definition for this directory replaces, as
				// in Claude Code, what the project and user files say about
				// the id: a project can neither add arguments, a cwd or
				// headers to it nor keep it untrusted.
				*ms = mergedServer{id: id, fields: map[string]any{}, origins: map[string]int{}}
			}
			if !managed {
				// A managed server stays the administrator's (its source
				// and scope): what another layer may still say of it
				// (enabled, more tools.deny) does not make it theirs.
				ms.source = li
			}
			ms.errs = append(ms.errs, e.errs...)
			if l.untrusted && !onlyDisables(e.fields) {
				ms.untrusted, ms.projectDir = true, l.dir
			}
			mergeInto(ms.fields, e.fields, "", li, ms.origins)
		}
	}
	sort.Strings(ids)
	out := make([]*mergedServer, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out
}

// definesServer: the entry says what to run or where to connect, rather
// than only refining a server defined elsewhere (enabled, env, timeouts).
func definesServer(fields map[string]any) bool {
	for _, k := range []string{"command", "url", "transport"} {
		if _, ok := fields[k]; ok {
			return true
		}
	}
	return false
}

func onlyDisables(fields map[string]any) bool {
	for k, v := range fields {
		if k != "enabled" {
			return false
		}
		if b, ok := asBool(v); !ok || b {
			return false
		}
	}
	return true
}

func mergeInto(dst, src map[string]any, prefix string, li int, origins map[string]int) {
	for _, k := range sortedKeys(src) {
		v := src[k]
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		if vm, ok := v.(map[string]any); ok {
			dm, ok := dst[k].(map[string]any)
			if !ok {
				dropOrigins(origins, p, dst[k])
				dm = map[string]any{}
				dst[k] = dm
			}
			origins[p] = li
			mergeInto(dm, vm, p, li, origins)
			continue
		}
		dropOrigins(origins, p, dst[k])
		dst[k] = v
		origins[p] = li
	}
}

// dropOrigins forgets the origins of old, the value at path p being
// replaced, and of everything below it. It walks old rather than every
// origin, so that a merge costs what it replaces: a scan of all origins per
// key was quadratic in a server's env and headers.
func dropOrigins(origins map[string]int, p string, old any) {
	delete(origins, p)
	if m, ok := old.(map[string]any); ok {
		for k, v := range m {
			dropOrigins(origins, p+"."+k, v)
		}
	}
}

// definedBy is the index of the layer that says what the server runs or
// where it connects: the one that set its command or url last.
func definedBy(ms *mergedServer) int {
	for _, k := range []string{"command", "url"} {
		if li, ok := ms.origins[k]; ok {
			return li
		}
	}
	return ms.source
}

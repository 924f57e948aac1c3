package config

import "strings"

// What a project layer may say about a server the user's own files define.

// projectTuning are the fields of a user's server that a trusted project
// file may set: they change how long mcphost waits, not what runs where.
var projectTuning = []string{"startup_timeout", "request_timeout", "health_interval", "reconnect"}

// restrictProjectEntry keeps what a project layer may say about a server
// that the user's files define: enabled, tools.deny added to the deny globs
// already there, and (trusted only) projectTuning.
func restrictProjectEntry(l *layer, id string, e *layerEntry, ms *mergedServer, warn func(string, ...any)) *layerEntry {
	out := &layerEntry{fields: map[string]any{}, errs: e.errs}
	var ignored []string
	for _, k := range sortedKeys(e.fields) {
		v := e.fields[k]
		switch {
		case k == "enabled" && (!l.untrusted || !isTrue(v)):
			// Switching a server off needs no trust.
			out.fields[k] = v
		case isField(k, projectTuning) && !l.untrusted:
			out.fields[k] = v
		case k == "tools" && !l.untrusted:
			tm, _ := v.(map[string]any)
			for _, tk := range sortedKeys(tm) {
				if tk != "deny" {
					ignored = append(ignored, "tools."+tk)
					continue
				}
				deny, ok := asStringList(tm[tk])
				if !ok {
					ignored = append(ignored, "tools.deny")
					continue
				}
				if ms != nil {
					if prev, ok := ms.fields["tools"].(map[string]any); ok {
						before, _ := asStringList(prev["deny"])
						deny = append(append([]string{}, before...), deny...)
					}
				}
				out.fields["tools"] = map[string]any{"deny": toAnyList(deny)}
			}
		default:
			ignored = append(ignored, k)
		}
	}
	if len(ignored) > 0 {
		warn("config: %s: server %q: %s ignored: the server is defined in your own configuration, and a project file may only switch it on or off, add tools.deny and change its timeouts (use another id for a project server)", l.source, id, strings.Join(ignored, ", "))
	}
	return out
}

func isTrue(v any) bool {
	b, ok := asBool(v)
	return !ok || b
}

func toAnyList(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

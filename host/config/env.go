package config

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// EnvPrefix starts every environment variable the configuration reads.
//
// The mapping uses "__" (two underscores) as the nesting separator, because
// field names themselves contain single underscores:
//
//	MCPHOST_SERVERS__<ID>__<FIELD>=value   one field of server <ID>
//	MCPHOST_SERVERS__<ID>__ENV__<NAME>=v   one variable of its env
//	MCPHOST_SERVERS__<ID>__HEADERS__<NAME>=v  one header
//	MCPHOST_SERVERS__<ID>__TOOLS__ALLOW=... tools.allow (also __DENY)
//	MCPHOST_SERVERS__<ID>__RECONNECT__MAX_DELAY=1m reconnect.max_delay
//	                                       (also __INITIAL_DELAY, __MAX_ATTEMPTS)
//	MCPHOST_NAMES__SCHEME=tool             names.scheme
//	MCPHOST_NAMES__MAX_LENGTH=48           names.max_length
//
// <FIELD> is the file field name in any case (REQUEST_TIMEOUT, TYPE...).
// Ids are case-sensitive but variable names are usually upper case, so <ID>
// is matched without regard to case against the ids that the files define;
// an id no file defines is used in lower case. ENV and HEADERS names are kept
// as written.
//
// Values are strings: enabled takes true/false, timeouts and delays "30s" or
// a number of seconds, health_interval also "off", max_message_bytes and
// reconnect's max_attempts a number. ARGS must be a JSON array of strings
// (["-y","@modelcontextprotocol/server-memory"]); ENV, HEADERS, TOOLS and
// RECONNECT may also be given whole as a JSON object; TOOLS__ALLOW and
// TOOLS__DENY take a JSON array or a comma-separated list. Other MCPHOST_*
// variables (for other parts of mcphost) are ignored here. Servers defined or
// changed this way get Source "env".
const EnvPrefix = "MCPHOST_"

// envLayer builds the layer of MCPHOST_* variables. lowerIDs are the ids the
// file layers define, for case-insensitive matching.
func envLayer(env map[string]string, lowerIDs map[string]bool) (*layer, []error) {
	l := &layer{kind: kindEnv, source: "env", servers: map[string]*layerEntry{}}
	raw := map[string]map[string]any{} // id -> raw entry
	entryErrs := map[string][]error{}
	var errs []error

	names := sortedKeys(env)
	// Whole-field values (ENV={...}) before single keys (ENV__NAME=...), so
	// the single keys refine the whole value whatever the order of the
	// environment.
	sort.SliceStable(names, func(i, j int) bool {
		return strings.Count(names[i], "__") < strings.Count(names[j], "__")
	})
	for _, name := range names {
		if len(name) <= len(EnvPrefix) || !strings.EqualFold(name[:len(EnvPrefix)], EnvPrefix) {
			continue
		}
		value := env[name]
		parts := strings.Split(name[len(EnvPrefix):], "__")
		switch strings.ToUpper(parts[0]) {
		case "NAMES":
			if len(parts) != 2 || parts[1] == "" {
				errs = append(errs, fmt.Errorf("config: env: %s: expected %sNAMES__SCHEME or %sNAMES__MAX_LENGTH", name, EnvPrefix, EnvPrefix))
				continue
			}
			if l.names == nil {
				l.names = map[string]any{}
			}
			l.names[strings.ToLower(parts[1])] = value
		case "SERVERS":
			if len(parts) < 3 || parts[1] == "" || parts[2] == "" {
				errs = append(errs, fmt.Errorf("config: env: %s: expected %sSERVERS__<ID>__<FIELD>", name, EnvPrefix))
				continue
			}
			id := matchID(parts[1], lowerIDs)
			entry := raw[id]
			if entry == nil {
				entry = map[string]any{}
				raw[id] = entry
			}
			field := strings.ToLower(parts[2])
			sub := strings.Join(parts[3:], "__")
			if err := setEnvField(entry, name, field, sub, value); err != "" {
				entryErrs[id] = append(entryErrs[id], entryError("env", id, field, err))
			}
		}
	}
	for _, id := range sortedKeys(raw) {
		fields, ferrs := normalizeEntry(l, id, raw[id])
		l.servers[id] = &layerEntry{fields: fields, errs: append(entryErrs[id], ferrs...)}
	}
	return l, errs
}

// matchID maps an id as written in a variable name to a configured id.
func matchID(id string, known map[string]bool) string {
	if known[id] {
		return id
	}
	var matches []string
	for k := range known {
		if strings.EqualFold(k, id) {
			matches = append(matches, k)
		}
	}
	lower := strings.ToLower(id)
	switch len(matches) {
	case 0:
		return lower
	case 1:
		return matches[0]
	}
	// Several ids differ only in case: prefer the lower-case one, else the
	// first in order, so the choice is at least stable.
	sort.Strings(matches)
	for _, m := range matches {
		if m == lower {
			return m
		}
	}
	return matches[0]
}

// setEnvField stores one variable into a raw entry. It returns a message
// (never containing the value, which may be a secret) on error.
func setEnvField(entry map[string]any, name, field, sub, value string) string {
	switch field {
	case "env", "headers":
		m, _ := entry[field].(map[string]any)
		if m == nil {
			m = map[string]any{}
			entry[field] = m
		}
		if sub != "" {
			m[sub] = value
			return ""
		}
		var obj map[string]string
		if err := json.Unmarshal([]byte(value), &obj); err != nil {
			return fmt.Sprintf("%s must be a JSON object of strings, or use %s__<NAME>", name, name)
		}
		for k, v := range obj {
			m[k] = v
		}
		return ""
	case "tools":
		m, _ := entry[field].(map[string]any)
		if m == nil {
			m = map[string]any{}
			entry[field] = m
		}
		if sub == "" {
			var obj map[string][]string
			if err := json.Unmarshal([]byte(value), &obj); err != nil {
				return fmt.Sprintf(`%s must be a JSON object like {"allow":["a*"]}, or use %s__ALLOW / %s__DENY`, name, name, name)
			}
			for k, v := range obj {
				m[k] = toGeneric(v)
			}
			return ""
		}
		key := strings.ToLower(sub)
		if key != "allow" && key != "deny" {
			return fmt.Sprintf("%s: unknown field %q%s", name, sub, suggest(sub, toolsFields))
		}
		list, ok := envList(value)
		if !ok {
			return fmt.Sprintf(`%s must be a JSON array of strings or a comma-separated list`, name)
		}
		m[key] = list
		return ""
	case "reconnect":
		m, _ := entry[field].(map[string]any)
		if m == nil {
			m = map[string]any{}
			entry[field] = m
		}
		if sub == "" {
			var obj map[string]any
			if err := json.Unmarshal([]byte(value), &obj); err != nil {
				return fmt.Sprintf(`%s must be a JSON object like {"max_delay":"1m"}, or use %s__INITIAL_DELAY / %s__MAX_DELAY / %s__MAX_ATTEMPTS`, name, name, name, name)
			}
			for k, v := range obj {
				m[k] = toGeneric(v)
			}
			return ""
		}
		key := strings.ToLower(sub)
		if !isField(key, reconnectFields) {
			return fmt.Sprintf("%s: unknown field %q%s", name, sub, suggest(sub, reconnectFields))
		}
		m[key] = value
		return ""
	case "args":
		if sub != "" {
			return fmt.Sprintf("%s: args takes no sub-field; give a JSON array", name)
		}
		var list []string
		if err := json.Unmarshal([]byte(value), &list); err != nil {
			return fmt.Sprintf(`%s must be a JSON array of strings, e.g. ["-y","some-package"]`, name)
		}
		entry[field] = toGeneric(list)
		return ""
	}
	if sub != "" {
		return fmt.Sprintf("%s: %s takes no sub-field", name, field)
	}
	entry[field] = value
	return ""
}

func envList(value string) (any, bool) {
	v := strings.TrimSpace(value)
	if strings.HasPrefix(v, "[") {
		var list []string
		if err := json.Unmarshal([]byte(v), &list); err != nil {
			return nil, false
		}
		return toGeneric(list), true
	}
	var out []any
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out, true
}

// overridesLayer builds the highest layer from koanf-style keys
// ("servers.github.enabled") or nested maps; a dotted key and a nested map
// naming the same place are merged.
func overridesLayer(o map[string]any) (*layer, []error) {
	if len(o) == 0 {
		return nil, nil
	}
	g, _ := toGeneric(o).(map[string]any)
	keys := sortedKeys(g)
	sort.SliceStable(keys, func(i, j int) bool {
		return strings.Count(keys[i], ".") < strings.Count(keys[j], ".")
	})
	nested := map[string]any{}
	for _, k := range keys {
		parts := strings.Split(k, ".")
		v := g[k]
		for i := len(parts) - 1; i >= 1; i-- {
			v = map[string]any{parts[i]: v}
		}
		mergeInto(nested, map[string]any{parts[0]: v}, "", 0, map[string]int{})
	}
	for _, k := range sortedKeys(nested) {
		if k != "servers" && k != "mcpServers" && k != "names" {
			return nil, []error{fmt.Errorf("config: flags: unknown key %q%s (known: servers, names)", k, suggest(k, []string{"servers", "names"}))}
		}
	}
	return buildLayer(kindFlags, "flags", "", nested, false)
}

package plugins

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The plugin's own description of what to load and how: the runtime reads
// a Spec, never a configuration file. The host builds Specs from its
// configuration (package host/chain); the CLI and tests build them with
// SpecForFile.

// OnError values: what the chain does when a hook of the plugin fails.
const (
	OnErrorDeny     = "deny"
	OnErrorAllow    = "allow"
	OnErrorFallback = "fallback" // map_names only: the built-in names
)

// Modes: a shadow plugin runs and is audited, but its answers are not used.
const (
	ModeEnforce = "enforce"
	ModeShadow  = "shadow"
)

// Spec is one plugin to load.
type Spec struct {
	// Name names the stage in logs, audit events and errors.
	Name string
	// Path is the absolute path of the .wasm file.
	Path string
	// SHA256 is the pinned hash in lower-case hex; "" means not pinned.
	SHA256 string
	// Hooks limits the plugin to these hooks; empty means every hook its
	// mcphost_describe lists.
	Hooks []abi.Hook
	// Servers are globs of the server ids the plugin applies to; empty
	// means all. The runtime does not read them: they go with the plugin
	// into the chain.
	Servers []string
	// Config is handed to the guest as Extism config (config_get). Values
	// are literal: nothing from the environment reaches a plugin except
	// through Secrets.
	Config map[string]string
	// Limits bound every call; a zero field takes its default
	// (DefaultLimits).
	Limits Limits
	// Secrets are the secrets the plugin may read with mcphost_secret, by
	// name, with their values already resolved. Printing them shows the
	// names only.
	Secrets Secrets
	// AllowedHosts are host-name globs that mcphost_http may reach (auth
	// plugins only). Empty: no HTTP at all.
	AllowedHosts []string
	// AllowPrivate lets mcphost_http reach loopback, private and link-local
	// addresses, and plain http:// URLs.
	AllowPrivate bool
	// OnError is OnErrorDeny, OnErrorAllow or OnErrorFallback; "" means the
	// hook's default (deny; map_names: fallback).
	OnError string
	// Mode is ModeEnforce (default) or ModeShadow.
	Mode string

	// Source says where the spec came from (a config file, "command line").
	Source string
	// Untrusted: from a project file of a directory not yet trusted. Such
	// plugins are not loaded and take no part in the chain.
	Untrusted bool
	// Blocked, when not empty, is the rule of an administrator's managed
	// configuration that keeps the plugin out of the chain: it is not
	// loaded, as an untrusted one is not.
	Blocked string
	// Err is a problem with the entry the spec came from. A plugin with Err
	// is not loaded, but it still takes its place in the chain as a stage
	// that fails every call, so that with on_error deny (the default) a
	// broken policy denies rather than lets calls through. Hooks, OnError
	// and Mode hold what could be read.
	Err error
}

// Limits bound every call of a plugin's hooks.
type Limits struct {
	Timeout        time.Duration // timeout_ms
	MemoryMB       int           // memory_mb: cap of each linear memory
	MaxOutputBytes int64         // max_output_bytes
}

// DefaultLimits are the limits of a spec that sets none: 100 ms, 64 MiB
// and 1 MiB of output (1 MiB is far above any policy, filter, name or auth
// answer; a transform of a larger result must raise it, and the timeout
// with it).
func DefaultLimits() Limits {
	return Limits{Timeout: 100 * time.Millisecond, MemoryMB: 64, MaxOutputBytes: 1 << 20}
}

// Secrets maps secret names to values. It prints (fmt, JSON) with the values
// redacted, so that a Spec can be logged.
type Secrets map[string]string

func (s Secrets) String() string {
	names := s.Names()
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ":<redacted>"
	}
	return "map[" + strings.Join(parts, " ") + "]"
}

// Format prints String for every verb (%v, %+v, %#v, %s, %q...).
func (s Secrets) Format(f fmt.State, _ rune) { fmt.Fprint(f, s.String()) }

// MarshalJSON writes the names with redacted values.
func (s Secrets) MarshalJSON() ([]byte, error) {
	m := make(map[string]string, len(s))
	for k := range s {
		m[k] = "<redacted>"
	}
	return json.Marshal(m)
}

// Names returns the secret names, sorted.
func (s Secrets) Names() []string {
	names := make([]string, 0, len(s))
	for k := range s {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Package config loads mcphost's layered configuration: the user (global)
// file, project files (.mcphost.* and Claude Code's .mcp.json), the user's
// local file for the project directory, an explicit --config file,
// MCPHOST_* environment variables and flag overrides.
//
// Loading never fails because of one bad server entry: the entry is kept with
// Err set, so the host can show it as an error while the others start.
package config

import "time"

// Transport names, as written in config files.
const (
	TransportStdio     = "stdio"
	TransportSSE       = "sse"
	TransportHTTP      = "http"
	TransportWebSocket = "websocket"
	// TransportInProcess marks a server handed to the host as a Go *mcp.Server.
	// It never comes from a file.
	TransportInProcess = "inprocess"
)

// Defaults applied to every server that does not set its own value.
const (
	DefaultStartupTimeout  = 30 * time.Second
	DefaultRequestTimeout  = 60 * time.Second
	DefaultMaxMessageBytes = 16 << 20
	DefaultMaxNameLength   = 64
	// DefaultHealthInterval is how often a ready server is checked (a ping,
	// or any request it answers).
	DefaultHealthInterval = 30 * time.Second
	// Reconnect backoff: the first retry waits about InitialDelay, each
	// next one twice as long (with jitter), never more than MaxDelay.
	DefaultReconnectInitialDelay = 500 * time.Millisecond
	DefaultReconnectMaxDelay     = 30 * time.Second
)

// Name schemes for public tool names.
const (
	SchemePrefixed = "mcp"    // mcp__<server>__<tool> (default, as Claude Code)
	SchemeServer   = "server" // <server>_<tool>
	SchemeBare     = "tool"   // <tool>, with a server prefix only on collision
)

// Config is the merged, validated configuration.
type Config struct {
	// Servers holds every configured server, sorted by ID, including disabled,
	// untrusted and invalid ones (see Server.Err).
	Servers []*Server
	// Names configures the built-in name-mapping stage.
	Names Names
	// Policy configures the built-in policy stages.
	Policy Policy
	// Results configures the built-in result truncation.
	Results Results
	// Pinning says what happens to tools that changed since they were
	// approved, or that are new.
	Pinning Pinning
	// Plugins are the WebAssembly plugins in chain order: the global file's,
	// then the project file's, then the --config file's. Invalid and
	// untrusted entries are included (see Plugin.Err, Plugin.Untrusted).
	Plugins []*Plugin
	// Managed is the administrator's managed layer (its rules and files);
	// nil when there is none.
	Managed *Managed
	// Files lists the files that were read, lowest layer first.
	Files []string
	// ProjectDir is the absolute project directory that was searched for
	// project files (LoadOptions.WorkDir), for UntrustedHint.
	ProjectDir string
	// TrustChanged is set when the project in ProjectDir was trusted, but
	// its files (or the plugins and env files they name) changed since:
	// its servers are untrusted until it is trusted again.
	TrustChanged bool
	// Warnings are problems that did not stop the load: a broken project
	// file that is not trusted (ignored), a project setting that would
	// widen the user's own configuration (ignored). Each names its file.
	Warnings []string
}

// Names configures public tool names.
type Names struct {
	Scheme    string // SchemePrefixed (default), SchemeServer or SchemeBare
	MaxLength int    // default DefaultMaxNameLength
}

// ToolFilter is a per-server allow/deny list of tool-name globs (glob syntax: * matches any run of characters, / . : _ included).
// An empty Allow allows every tool; Deny wins over Allow.
type ToolFilter struct {
	Allow []string
	Deny  []string
}

// Reconnect is a server's reconnect policy after its connection is lost or a
// connect fails. Zero durations mean the defaults.
type Reconnect struct {
	InitialDelay time.Duration // default DefaultReconnectInitialDelay
	MaxDelay     time.Duration // default DefaultReconnectMaxDelay
	// MaxAttempts is how many connects in a row may fail before the server
	// is left in the error state (until Reconnect or SetEnabled); 0 means
	// no limit.
	MaxAttempts int
}

// Server is one configured MCP server after merging and ${VAR} expansion.
type Server struct {
	ID        string
	Transport string // one of the Transport* constants
	Command   string
	Args      []string
	Env       map[string]string // merged over the host's environment when the server starts
	// EnvFile is the absolute path of the entry's env_file, whose variables
	// are already in Env (under the entry's own env, which wins).
	EnvFile         string
	Cwd             string
	URL             string
	Headers         map[string]string
	Enabled         bool
	StartupTimeout  time.Duration
	RequestTimeout  time.Duration
	ProtocolVersion string // empty: negotiate (bounded server/discover probe, then initialize)
	Tools           ToolFilter
	MaxMessageBytes int64
	Reconnect       Reconnect
	// HealthInterval is the time between health checks of a ready server:
	// 0 means DefaultHealthInterval, a negative value turns them off.
	HealthInterval time.Duration
	// Auth is how mcphost authenticates to an sse, http or websocket
	// server (the auth, oauth or authorization block); Type AuthAuto when
	// none was given.
	Auth Auth

	// Written is what the entry says to run or where to connect, before
	// ${VAR} and ${secret:NAME} expansion: an identity for the server
	// that stays the same when a token in its arguments or URL rotates
	// (tool pinning keys its pins on it).
	Written Target

	// Source names where the entry came from: a file path, "env", "flags" or "library".
	Source string
	// AdHoc is set for a server typed on the command line (--url, or a
	// command after --): it is written nowhere, so "mcphost login" and an
	// entry's fields cannot reach it, and messages name its flags instead.
	AdHoc bool
	// Scope is the scope of Source: ScopeLocal, ScopeProject (.mcphost.*
	// and .mcp.json) or ScopeUser; "" for --config, env, flags and library.
	Scope Scope
	// Untrusted is set for entries from project files of a directory that has
	// not been trusted with `mcphost trust`. Such servers are not started.
	// A project entry that only says "enabled: false" needs no trust (it can
	// only switch a server off), so it does not make a server untrusted.
	// Err stays nil for an untrusted entry; show UntrustedHint instead.
	Untrusted bool
	// ProjectDir is, for an Untrusted entry, the project directory to
	// trust. Source may be another file: a local override that switches
	// the project's server on lives in the user's config directory.
	ProjectDir string
	// TrustChanged is set for an Untrusted entry of a project that was
	// trusted before its files changed (Config.TrustChanged).
	TrustChanged bool
	// Blocked, when not empty, says which rule of the managed layer blocks
	// the server and where it is written: the server never starts.
	Blocked string
	// Err is a problem with this entry (bad id, missing command, bad duration,
	// unset variable...). The server is not started; the message names the
	// file, the server and the field.
	Err error

	// refSecrets are the values of the ${secret:NAME} references the entry
	// used, wherever they went (an argument too), for SecretValues.
	refSecrets []string
}

// Target is what a server entry says to run (Command, Args) or where to
// connect (URL).
type Target struct {
	Command string
	Args    []string
	URL     string
}

// Package abi is the contract between mcphost and its WebAssembly plugins:
// the ABI version, the names of the exports and host functions, and the JSON
// documents that cross the boundary. The host (package plugins) and the Go
// guest library (package pdk) both import it, so the contract is written
// once. ABI.md beside this file is the normative text, with wire examples.
//
// It uses the standard library only, so that it builds for any guest
// (standard Go's wasip1 and TinyGo) and stays cheap to import.
package abi

import (
	"encoding/json"
	"fmt"
)

// Version is the ABI version described here. mcphost_describe reports the
// version a plugin was built for; the host refuses versions it does not know.
const Version = 1

// ExportDescribe is the required export that returns a Description.
const ExportDescribe = "mcphost_describe"

// Hook names a plugin entry point.
type Hook string

// The hooks of ABI v1.
const (
	HookPolicy          Hook = "policy"
	HookFilterTools     Hook = "filter_tools"
	HookMapNames        Hook = "map_names"
	HookTransformResult Hook = "transform_result"
	HookAuth            Hook = "auth"
)

// Hooks lists every hook of ABI v1, in pipeline order.
var Hooks = []Hook{HookFilterTools, HookMapNames, HookPolicy, HookTransformResult, HookAuth}

// Export is the name of the function a plugin exports for the hook:
// "mcphost_<hook>_v1".
func (h Hook) Export() string { return "mcphost_" + string(h) + "_v1" }

// Valid reports whether h is a hook of ABI v1.
func (h Hook) Valid() bool {
	for _, k := range Hooks {
		if k == h {
			return true
		}
	}
	return false
}

// ParseHook parses a hook name as written in configuration and on the
// command line.
func ParseHook(s string) (Hook, error) {
	h := Hook(s)
	if !h.Valid() {
		return "", fmt.Errorf("abi: unknown hook %q (known: policy, filter_tools, map_names, transform_result, auth)", s)
	}
	return h, nil
}

// Exports of ABI v1, by hook.
const (
	ExportPolicy          = "mcphost_policy_v1"
	ExportFilterTools     = "mcphost_filter_tools_v1"
	ExportMapNames        = "mcphost_map_names_v1"
	ExportTransformResult = "mcphost_transform_result_v1"
	ExportAuth            = "mcphost_auth_v1"
)

// HostModule is the import module of mcphost's own host functions. Extism's
// kernel functions stay in "extism:host/env".
const HostModule = "mcphost:host/v1"

// Host functions in HostModule. Every pointer is an Extism memory offset
// (i64) as returned by the kernel's alloc; strings are UTF-8 bytes. A block
// passed to a host function belongs to the host from then on (the host
// frees it); a block a host function returns belongs to the guest. See
// ABI.md §6.
const (
	// FuncLog: (level i32, message i64) -> (). Logs into the host's log,
	// tagged with the plugin name. Levels: LogTrace..LogError. The host
	// frees the message block.
	FuncLog = "mcphost_log"
	// FuncSecret: (name i64) -> (value i64). Returns the secret the
	// configuration grants this plugin under that name, or 0 when it is not
	// granted or not set. The host frees the name block.
	FuncSecret = "mcphost_secret"
	// FuncHTTP: (request i64) -> (response i64). Only for plugins loaded for
	// the auth hook. Request and response are JSON (HTTPRequest,
	// HTTPResponse); a refused or failed request returns a response with
	// Error set, never a trap. The host frees the request block.
	FuncHTTP = "mcphost_http"
	// FuncBlockRead: (block i64, dst i32, len i32) -> (n i32). Copies the
	// first min(len, length of block) bytes of a kernel block (the input's
	// too: input_offset) to the guest's memory at dst, in one call instead
	// of one load_u64 per 8 bytes; n is the count, or -1 when block is not
	// a block or dst..dst+len is outside the guest's memory. The block
	// stays the guest's.
	FuncBlockRead = "mcphost_block_read"
	// FuncBlockWrite: (src i32, len i32) -> (block i64). A new kernel block
	// holding the len bytes of the guest's memory at src (the inverse of
	// FuncBlockRead), or 0 when len is 0, src..src+len is outside the
	// guest's memory or the kernel memory is full.
	FuncBlockWrite = "mcphost_block_write"
)

// Log levels for FuncLog.
const (
	LogTrace int32 = 0
	LogDebug int32 = 1
	LogInfo  int32 = 2
	LogWarn  int32 = 3
	LogError int32 = 4
)

// Description is what mcphost_describe returns.
type Description struct {
	ABI     int    `json:"abi"`
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Hooks   []Hook `json:"hooks"`
}

// Caller identifies who asked for a call: a person on the command line, an
// agent embedding the library, or a gateway client. Empty fields are unknown.
type Caller struct {
	// Kind is "cli", "library" or "gateway".
	Kind string `json:"kind,omitempty"`
	// ID is a user or client identity (gateway: the authenticated subject).
	ID string `json:"id,omitempty"`
	// Session is the gateway session, when there is one.
	Session string `json:"session,omitempty"`
	// Scopes are the OAuth scopes of the caller's access token (gateway).
	Scopes []string `json:"scopes,omitempty"`
	// ClientID is the OAuth client the caller's token was issued to
	// (gateway), when the token says.
	ClientID string `json:"client_id,omitempty"`
}

// ToolAnnotations are the MCP tool hints (all optional).
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Destructive reports the MCP default: a tool is destructive unless it says
// it is not (destructiveHint defaults to true), and read-only tools are not.
func (a *ToolAnnotations) Destructive() bool {
	if a == nil {
		return true
	}
	if a.ReadOnlyHint {
		return false
	}
	return a.DestructiveHint == nil || *a.DestructiveHint
}

// OpenWorld reports the MCP default: open-world unless it says otherwise.
func (a *ToolAnnotations) OpenWorld() bool {
	return a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint
}

// PolicyRequest is the input of the policy hook: one tool call about to be
// made.
type PolicyRequest struct {
	Server      string           `json:"server"`
	Tool        string           `json:"tool"`
	Name        string           `json:"name"` // public name
	Arguments   map[string]any   `json:"arguments"`
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	Meta        map[string]any   `json:"meta,omitempty"`
	Caller      *Caller          `json:"caller,omitempty"`
	// Pin is the tool's pin state when the host pins tools: "pinned" (as
	// approved), "new" (the server did not have it when its tools were
	// approved) or "changed" (it differs from what was approved); absent
	// without pinning. Added in ABI 1.x: older hosts never send it.
	Pin string `json:"pin,omitempty"`
}

// Decision is a policy outcome.
type Decision string

// Policy outcomes.
const (
	Allow   Decision = "allow"
	Deny    Decision = "deny"
	Confirm Decision = "confirm"
)

// PolicyDecision is the output of the policy hook. A deny or confirm is an
// outcome (return code 0), not an error.
type PolicyDecision struct {
	Decision Decision `json:"decision"`
	Reason   string   `json:"reason,omitempty"`
	// Arguments, when present, replace the call's arguments (a rewrite).
	Arguments map[string]any `json:"arguments,omitempty"`
}

// ToolInfo describes one tool to the filter_tools hook.
type ToolInfo struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	InputSchema json.RawMessage  `json:"input_schema,omitempty"`
	// Pin is the tool's pin state, as PolicyRequest.Pin; absent without
	// pinning.
	Pin string `json:"pin,omitempty"`
}

// FilterToolsRequest is the input of the filter_tools hook: one server's
// tool list.
type FilterToolsRequest struct {
	Server string     `json:"server"`
	Tools  []ToolInfo `json:"tools"`
}

// FilterToolsResponse names the tools to keep; the others are neither listed
// nor callable.
type FilterToolsResponse struct {
	Tools []string `json:"tools"`
}

// NameKey is one tool to name in map_names.
type NameKey struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Title  string `json:"title,omitempty"`
}

// NameConstraints are what every public name must satisfy.
type NameConstraints struct {
	MaxLength int    `json:"max_length"`
	Pattern   string `json:"pattern"`
}

// MapNamesRequest is the input of the map_names hook: every tool of every
// server at once, so the plugin can keep names unique.
type MapNamesRequest struct {
	Tools       []NameKey       `json:"tools"`
	Constraints NameConstraints `json:"constraints"`
}

// MapNamesResponse gives one public name per input tool, in the same order.
// The host checks the pattern and uniqueness; invalid output falls back to
// the built-in mapping.
type MapNamesResponse struct {
	Names []string `json:"names"`
}

// TransformResultRequest is the input of the transform_result hook. Result is
// the MCP CallToolResult as JSON, exactly as the server (or the previous
// transform) produced it.
type TransformResultRequest struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Name      string          `json:"name"`
	Arguments map[string]any  `json:"arguments,omitempty"`
	Result    json.RawMessage `json:"result"`
}

// TransformResultResponse carries the (possibly changed) CallToolResult.
type TransformResultResponse struct {
	Result json.RawMessage `json:"result"`
}

// Challenge is what the server answered when it asked for credentials.
// Status is 0 on the first connect, before any challenge.
type Challenge struct {
	Status          int    `json:"status,omitempty"`
	WWWAuthenticate string `json:"www_authenticate,omitempty"`
}

// AuthRequest is the input of the auth hook: the transport wants headers for
// a server, on connect and after a 401 or 403.
type AuthRequest struct {
	Server    string     `json:"server"`
	URL       string     `json:"url"`
	Challenge *Challenge `json:"challenge,omitempty"`
}

// AuthResponse gives the headers to send. ExpiresIn (seconds, 0 = until the
// next challenge) tells the host when to ask again.
type AuthResponse struct {
	Headers   map[string]string `json:"headers"`
	ExpiresIn int               `json:"expires_in,omitempty"`
}

// HTTPRequest is the input of FuncHTTP.
type HTTPRequest struct {
	Method  string            `json:"method"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"` // base64 in JSON
}

// HTTPResponse is the output of FuncHTTP. Error is set when the request was
// refused (host not allowed, private address, redirect off the allow list)
// or failed; Status is then 0.
type HTTPResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    []byte            `json:"body,omitempty"`
	Error   string            `json:"error,omitempty"`
}

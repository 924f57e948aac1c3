package host

import (
	"context"
	"errors"
	"time"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
)

// The hook interfaces. Each step of the pipeline that an organisation may
// want to own is a stage implementing one or more of them: natively in Go
// (the built-in defaults) or as a sandboxed WebAssembly plugin (package
// plugins). They are defined once, in the plugin ABI (package pdk/abi), with
// the documents they take and give, so a native stage and a plugin are
// interchangeable and one conformance kit (plugins/plugintest) runs against
// both; the names here are the same types.
//
// A stage returns an error only when it could not decide (a plugin error or
// fault); a deny is an outcome, not an error. What an error does is the
// chain's business (StageConfig.OnError).
type (
	// Stage is what every stage has: a name for logs, audit events and errors.
	Stage = abi.Stage
	// PolicyStage decides whether a call may go ahead.
	PolicyStage = abi.PolicyStage
	// FilterStage narrows a server's tool list.
	FilterStage = abi.FilterStage
	// NameStage gives every tool its public name.
	NameStage = abi.NameStage
	// TransformStage rewrites a call's result (truncate, redact, project).
	TransformStage = abi.TransformStage
	// AuthStage supplies headers for a server's HTTP transport.
	AuthStage = abi.AuthStage
)

// OnError values: what the chain does when a stage fails (error, trap,
// timeout, out of memory).
const (
	// OnErrorDeny: policy denies, filter hides the server's tools,
	// map_names hides the tools it names, transform fails the call, auth
	// fails the connect. The default for every hook but map_names.
	OnErrorDeny = config.OnErrorDeny
	// OnErrorAllow: the stage is skipped as if it had allowed / kept /
	// passed the result through unchanged (map_names: as fallback).
	OnErrorAllow = config.OnErrorAllow
	// OnErrorFallback: map_names falls back to the built-in mapping (its
	// default).
	OnErrorFallback = config.OnErrorFallback
)

// Modes.
const (
	// ModeEnforce: the stage's outcome takes effect.
	ModeEnforce = config.ModeEnforce
	// ModeShadow: the stage runs and its outcome is logged and audited as
	// what would have happened, but nothing changes.
	ModeShadow = config.ModeShadow
)

// StageConfig says where and how a stage runs in the chain.
type StageConfig struct {
	// Stage implements one or more of the hook interfaces; Hooks limits
	// which of them the chain uses (empty: every one it implements).
	Stage Stage
	Hooks []abi.Hook
	// Servers are globs of server ids the stage applies to (empty: all).
	Servers []string
	// Mode is ModeEnforce (default) or ModeShadow.
	Mode string
	// OnError is OnErrorDeny, OnErrorAllow or OnErrorFallback; empty means
	// the hook's default.
	OnError string
}

// AuditEvent records one decision of one stage.
type AuditEvent struct {
	Stage    string        `json:"stage"`
	Hook     abi.Hook      `json:"hook"`
	Server   string        `json:"server"`
	Tool     string        `json:"tool,omitempty"`
	Outcome  string        `json:"outcome"` // allow, deny, confirm, confirmed, declined, kept N/M, transformed, error...
	Reason   string        `json:"reason,omitempty"`
	Shadow   bool          `json:"shadow,omitempty"`
	Duration time.Duration `json:"duration_ns"`
	Err      string        `json:"error,omitempty"`

	notLoaded bool // Err is a stage's that never loaded (see isNotLoaded)
}

// notLoaded is implemented by the error of a stage that never loaded
// (plugins.Error of kind load): that was reported once, when it failed to
// load, so its calls' decisions are logged at debug rather than repeated as
// warnings on every call (whose own error says it too). The host does not
// import plugins: the method is the contract.
type notLoaded interface{ NotLoaded() bool }

func isNotLoaded(err error) bool {
	var nl notLoaded
	return errors.As(err, &nl) && nl.NotLoaded()
}

// ConfirmRequest asks a person (or the embedding agent) to approve a call
// that a policy answered with "confirm".
type ConfirmRequest struct {
	Stage     string
	Server    string
	Tool      string
	Name      string
	Arguments map[string]any
	Reason    string
}

// Confirmer approves or declines a confirm decision. Without one, confirm
// means deny.
type Confirmer func(ctx context.Context, req ConfirmRequest) (bool, error)

// ErrCannotAsk is wrapped by the error of a Confirmer that has nobody to
// ask (a gateway client without elicitation): the call is refused as
// unconfirmed, not as declined, and the error says what to change.
var ErrCannotAsk = errors.New("no one can be asked")

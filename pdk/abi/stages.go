package abi

import "context"

// The hooks as Go interfaces: what a stage is on the host's side. A stage
// is native Go (mcphost's built-in defaults, an embedder's own) or a
// sandboxed WebAssembly plugin behind an adapter; both take and give this
// package's documents, so they are interchangeable, and one conformance kit
// (plugins/plugintest) checks either. They are written here, beside the
// documents, so that the host (package host), the plugin runtime (package
// plugins) and the kit name the same types without importing each other.
//
// A stage returns an error only when it could not decide (a plugin error or
// fault); a deny is an outcome, not an error.

// Stage is what every stage has: a name for logs, audit events and errors.
type Stage interface {
	StageName() string
}

// PolicyStage decides whether a call may go ahead (hook policy).
type PolicyStage interface {
	Stage
	Policy(ctx context.Context, req *PolicyRequest) (*PolicyDecision, error)
}

// ToolDenier is a policy stage whose denials depend on the tool alone (its
// server, its name, its public name), never on the arguments or the caller:
// a glob deny list, say. The host asks it which tools it always denies and
// leaves those out of what it offers to models, so that a model is not
// handed a tool whose every call would be refused. DeniesTool gets a
// request without arguments or caller, and answers whether Policy would
// deny every call of that tool, and why. It must agree with Policy: the
// host still runs Policy on every call.
type ToolDenier interface {
	PolicyStage
	DeniesTool(req *PolicyRequest) (reason string, denied bool)
}

// FilterStage narrows a server's tool list (hook filter_tools).
type FilterStage interface {
	Stage
	FilterTools(ctx context.Context, req *FilterToolsRequest) (*FilterToolsResponse, error)
}

// NameStage gives every tool its public name (hook map_names).
type NameStage interface {
	Stage
	MapNames(ctx context.Context, req *MapNamesRequest) (*MapNamesResponse, error)
}

// TransformStage rewrites a call's result: truncate, redact, project (hook
// transform_result).
type TransformStage interface {
	Stage
	TransformResult(ctx context.Context, req *TransformResultRequest) (*TransformResultResponse, error)
}

// AuthStage supplies headers for a server's HTTP transport (hook auth).
type AuthStage interface {
	Stage
	Auth(ctx context.Context, req *AuthRequest) (*AuthResponse, error)
}

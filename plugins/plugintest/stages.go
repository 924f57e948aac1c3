package plugintest

import (
	"context"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The stage interfaces the kit checks. They are the host's hook interfaces
// (host.Stage, host.PolicyStage, …), spelled again here so that the kit
// imports only the ABI: Go interfaces are satisfied by their methods, so a
// host stage, native or Wasm, is one of these too.

// Stage is any stage: it has a name.
type Stage interface {
	StageName() string
}

// PolicyStage decides calls (hook policy).
type PolicyStage interface {
	Stage
	Policy(ctx context.Context, req *abi.PolicyRequest) (*abi.PolicyDecision, error)
}

// FilterStage filters tool lists (hook filter_tools).
type FilterStage interface {
	Stage
	FilterTools(ctx context.Context, req *abi.FilterToolsRequest) (*abi.FilterToolsResponse, error)
}

// NameStage names tools (hook map_names).
type NameStage interface {
	Stage
	MapNames(ctx context.Context, req *abi.MapNamesRequest) (*abi.MapNamesResponse, error)
}

// TransformStage transforms results (hook transform_result).
type TransformStage interface {
	Stage
	TransformResult(ctx context.Context, req *abi.TransformResultRequest) (*abi.TransformResultResponse, error)
}

// AuthStage supplies credentials (hook auth).
type AuthStage interface {
	Stage
	Auth(ctx context.Context, req *abi.AuthRequest) (*abi.AuthResponse, error)
}

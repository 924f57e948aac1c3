package plugins

import (
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

func TestTryValidAnswer(t *testing.T) {
	p := open(t, "allow-all", nil)
	tr := Try(ctx(t), p, abi.HookPolicy, mustJSON(t, shortReq))
	if !tr.OK() || tr.Err != nil || tr.Invalid != nil {
		t.Fatalf("trial not OK: err %v, invalid %v", tr.Err, tr.Invalid)
	}
	d, ok := tr.Answer.(*abi.PolicyDecision)
	if !ok || d.Decision != abi.Allow {
		t.Fatalf("answer = %#v, want an allow decision", tr.Answer)
	}
	if tr.Hook != abi.HookPolicy || tr.Result == nil || tr.Result.Duration <= 0 || tr.Result.MemoryBytes == 0 || len(tr.Result.Output) == 0 {
		t.Fatalf("result = %+v, want output and measurements", tr.Result)
	}
}

func TestTryInvalidAnswer(t *testing.T) {
	// faults' transform_result returns output that is not JSON: the call
	// succeeds, the answer is not valid.
	p := open(t, "faults", nil)
	req := &abi.TransformResultRequest{Server: "s", Tool: "t", Name: "s_t", Result: []byte(`{"content":[]}`)}
	tr := Try(ctx(t), p, abi.HookTransformResult, mustJSON(t, req))
	if tr.Err != nil {
		t.Fatalf("call failed: %v", tr.Err)
	}
	if tr.OK() || tr.Invalid == nil || tr.Answer != nil {
		t.Fatalf("trial OK = %v, invalid %v, answer %#v: want an invalid answer", tr.OK(), tr.Invalid, tr.Answer)
	}
	if tr.Result == nil || len(tr.Result.Output) == 0 {
		t.Fatalf("result = %+v, want the raw output", tr.Result)
	}
}

func TestTryFailedCall(t *testing.T) {
	p := open(t, "faults", nil)
	tr := Try(ctx(t), p, abi.HookPolicy, mustJSON(t, longReq))
	wantError(t, tr.Err, KindTrap)
	if tr.OK() || tr.Result == nil || tr.Result.Duration <= 0 {
		t.Fatalf("trial OK = %v, result %+v: want a failure with measurements", tr.OK(), tr.Result)
	}

	// A hook the plugin does not serve fails before any call runs.
	tr = Try(ctx(t), open(t, "allow-all", nil), abi.HookAuth, []byte(`{}`))
	wantError(t, tr.Err, KindLoad, "not loaded for this hook")
	if tr.Result != nil {
		t.Fatalf("result = %+v, want nil for a call that did not run", tr.Result)
	}
}

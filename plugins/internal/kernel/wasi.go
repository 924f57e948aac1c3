package kernel

import (
	"context"
	"strings"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// wasiCharges charges the guest's calls of WASI functions (wazero's, not
// ours) as the kernel's own are charged: hostCallCost a call, and
// wasiUnitCost for each unit of its sizes and counts (random_get's
// buf_len, fd_write's iovs_len, poll_oneoff's nsubscriptions, path_open's
// path_len, ...), which is what such a call's work grows with. Without
// it a guest could loop on random_get of 64 KiB, a second of work between
// two of the instrumented code's checks. A listener runs before the
// function: stopping the guest there (Charge panics) is a trap, as in a
// host function.
type wasiCharges struct{}

// wasiUnitCost is the charge, in bytes of work, of one unit of a WASI
// call's size or count: more than the work of a byte, less than that of a
// subscription or an I/O vector (which wazero reads and may allocate for).
const wasiUnitCost = 64

// NewFunctionListener implements experimental.FunctionListenerFactory.
func (wasiCharges) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	var sized []int
	for i, name := range def.ParamNames() {
		// "result.*" parameters are where results go: pointers.
		if (strings.HasSuffix(name, "_len") && !strings.HasPrefix(name, "result.")) || name == "nsubscriptions" {
			sized = append(sized, i)
		}
	}
	return wasiCall{sized: sized}
}

// wasiCall is the listener of one WASI function; sized are the indices of
// its parameters that are sizes or counts.
type wasiCall struct{ sized []int }

func (w wasiCall) Before(ctx context.Context, _ api.Module, _ api.FunctionDefinition, params []uint64, _ experimental.StackIterator) {
	inst, _ := ctx.Value(instanceKey{}).(*Instance)
	if inst == nil {
		return
	}
	cost := uint64(hostCallCost)
	for _, i := range w.sized {
		if i < len(params) {
			cost += uint64(uint32(params[i])) * wasiUnitCost
		}
	}
	inst.Charge(cost)
}

func (wasiCall) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (wasiCall) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

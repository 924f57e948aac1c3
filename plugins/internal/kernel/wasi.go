package kernel

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// wasiCharges charges the guest's calls of WASI functions (wazero's, not
// ours) as the kernel's own are charged: hostCallCost a call, plus the
// bytes it is given to fill or read (random_get's buf_len, path_open's
// path_len, ...) and wasiItemCost for each item of a count (fd_write's
// I/O vectors, poll_oneoff's subscriptions), which is what such a call's
// work grows with. Without it a guest could loop on random_get of 64 KiB,
// a second of work between two of the instrumented code's checks. A
// listener runs before the function: stopping the guest there (Charge
// panics) is a trap, as in a host function.
//
// Work inside one call cannot be stopped, so a count is bounded too: a
// call with more than maxWASIItems items traps. Real guests pass a few
// (Linux's IOV_MAX is 1024); one poll_oneoff of 700,000 subscriptions was
// 50–150 ms of work.
type wasiCharges struct{}

const (
	// wasiItemCost is the charge, in bytes of work, of one I/O vector or
	// subscription, which wazero reads and may allocate for (about 120 ns).
	wasiItemCost = 1 << 10
	// maxWASIItems bounds the I/O vectors or subscriptions of one call.
	maxWASIItems = 4096
)

// wasiCounts are the WASI parameters that count items rather than bytes.
var wasiCounts = map[string]bool{"iovs_len": true, "nsubscriptions": true, "ri_data_len": true, "si_data_len": true}

// NewFunctionListener implements experimental.FunctionListenerFactory.
func (wasiCharges) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	w := wasiCall{name: def.Name()}
	for i, name := range def.ParamNames() {
		switch {
		case wasiCounts[name]:
			w.counts = append(w.counts, i)
		case strings.HasSuffix(name, "_len") && !strings.HasPrefix(name, "result."):
			// "result.*" parameters are where results go: pointers.
			w.sizes = append(w.sizes, i)
		}
	}
	return w
}

// wasiCall is the listener of one WASI function: the indices of its
// parameters that are sizes in bytes and counts of items.
type wasiCall struct {
	name          string
	sizes, counts []int
}

func (w wasiCall) Before(ctx context.Context, _ api.Module, _ api.FunctionDefinition, params []uint64, _ experimental.StackIterator) {
	inst, _ := ctx.Value(instanceKey{}).(*Instance)
	if inst == nil {
		return
	}
	cost := uint64(hostCallCost)
	for _, i := range w.sizes {
		cost += uint64(uint32(params[i]))
	}
	for _, i := range w.counts {
		n := uint64(uint32(params[i]))
		if n > maxWASIItems {
			panic(fmt.Sprintf("kernel: WASI %s with %d items (I/O vectors or subscriptions), over mcphost's limit of %d a call: split it into calls of at most %d", w.name, n, maxWASIItems, maxWASIItems))
		}
		cost += n * wasiItemCost
	}
	inst.Charge(cost)
}

func (wasiCall) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (wasiCall) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// randSeed is the seed of wazero's default random source: guests get the
// same bytes as before, the same in every instance.
const randSeed = 42

// chargedRand is the guest's random source (WASI random_get): the
// deterministic one, read a chunk at a time with each chunk charged, so
// that one random_get over the guest's whole memory can be stopped in the
// middle.
type chargedRand struct {
	inst *Instance
	src  io.Reader
}

func (r *chargedRand) Read(p []byte) (int, error) {
	p = p[:min(len(p), workChunk)]
	n, err := r.src.Read(p)
	r.inst.Charge(uint64(n))
	return n, err
}

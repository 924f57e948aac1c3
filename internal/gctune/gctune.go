// Package gctune sets the Go garbage collector up for a server process
// whose live heap is small but whose garbage is plentiful: the gateway
// ("mcphost serve --http").
//
// Under load the gateway keeps little (sessions, calls in flight: about
// 10-15 MiB with 64 busy clients) but allocates a lot per call (about
// 300 KiB, nine tenths of it go-sdk v1.8.0's JSON decoding, which takes a
// fresh 32 KiB buffer for every message it decodes). With Go's default,
// GOGC=100, the heap target is twice the live heap, so the collector ran
// every 25 or so calls and took about 45 % of the process's CPU.
//
// HeapFloor gives the heap a floor instead: the collector waits until the
// heap reaches the floor (64 MiB by default) while the live heap is small,
// and behaves exactly as with GOGC=100 once the live heap is over half the
// floor. The cost is memory the process may hold before collecting, at
// most the floor; what it buys is fewer collections of a small heap.
//
// The operator's settings win: with GOGC or GOMEMLIMIT in the environment
// HeapFloor does nothing. In a cgroup with a memory limit the floor is at
// most a quarter of it.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultHeapFloor is the heap size below which the collector does not run
// by default.
const DefaultHeapFloor = 64 << 20

// maxPercent bounds the GOGC value HeapFloor sets (a live heap of a few
// hundred KiB would otherwise ask for an absurd one).
const maxPercent = 10000

// HeapFloor keeps the collector from running before the heap holds floor
// bytes, until stop is called (which puts GOGC back to 100). It does
// nothing when the environment sets GOGC or GOMEMLIMIT, or when floor is
// no more than Go's own minimum heap target (4 MiB).
func HeapFloor(floor uint64) (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	if limit := cgroupMemoryLimit(); limit > 0 && floor > limit/4 {
		floor = limit / 4
	}
	if floor <= 4<<20 {
		return func() {}
	}
	t := &tuner{floor: floor, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/scan/stack:bytes"},
		{Name: "/gc/scan/globals:bytes"},
	}}
	t.adjust()
	t.arm()
	return t.stop
}

// tuner sets GOGC after every collection so that the next heap target is
// max(floor, Go's default target).
type tuner struct {
	floor uint64

	mu      sync.Mutex
	stopped bool
	percent int
	samples []metrics.Sample
}

// sentinel is an object that only a collection notices: its cleanup runs
// after every cycle. It holds a pointer so that it is never a tiny
// allocation (whose cleanups may never run).
type sentinel struct {
	_ *int
	_ [2]uint64
}

// arm sets the next collection to call adjust.
func (t *tuner) arm() {
	runtime.AddCleanup(&sentinel{}, func(t *tuner) {
		if t.adjust() {
			t.arm()
		}
	}, t)
}

// adjust sets GOGC for the live heap the last collection found; false once
// stopped.
func (t *tuner) adjust() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.samples)
	live, stacks, globals := value(t.samples[0]), value(t.samples[1]), value(t.samples[2])
	if p := percentFor(t.floor, live, live+stacks+globals); p != t.percent {
		debug.SetGCPercent(p)
		t.percent = p
	}
	return true
}

// value is a sample's value, 0 if this runtime does not have the metric.
func value(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.Value.Uint64()
}

func (t *tuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		t.stopped = true
		debug.SetGCPercent(100)
	}
}

// heapMinimum is the runtime's smallest heap target at GOGC=100; it
// scales with GOGC.
const heapMinimum = 4 << 20

// percentFor is the GOGC whose heap target is floor, or 100 when that
// would be less than Go's default. The runtime's target is
// max(heapMinimum*GOGC/100, live + scannable*GOGC/100), scannable being
// the live heap, the stacks and the globals: counting scannable as at
// least heapMinimum keeps both terms within floor (before the first
// collection too, when nothing is known to be live).
func percentFor(floor, live, scannable uint64) int {
	if floor <= live {
		return 100
	}
	p := (floor - live) * 100 / max(scannable, heapMinimum)
	switch {
	case p < 100:
		return 100
	case p > maxPercent:
		return maxPercent
	}
	return int(p)
}

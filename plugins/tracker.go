package plugins

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero/experimental"
)

// tracker watches the guest module of one instance through two wazero
// hooks given at instantiation:
//
//   - a memory allocator, which enforces memory_mb on every linear memory
//     and records a refused memory.grow, so that the fault that usually
//     follows (an allocator that aborts, a Go runtime that throws) is
//     reported as "exceeded memory_mb"; it also lets the CLI show the
//     memory a call used;
//   - a close notifier, which tells when a module was closed behind the
//     host's back: a guest that calls WASI proc_exit(0) "succeeds", but its
//     instance is dead.
type tracker struct {
	limit    uint64 // bytes per memory (memory_mb)
	mu       sync.Mutex
	mem      *trackedMemory // the guest's
	closed   atomic.Bool
	exitCode atomic.Uint32
}

var (
	_ experimental.MemoryAllocator = (*tracker)(nil)
	_ experimental.CloseNotifier   = (*tracker)(nil)
)

// with returns ctx carrying the tracker's hooks, for Instance.
func (t *tracker) with(ctx context.Context) context.Context {
	return experimental.WithMemoryAllocator(experimental.WithCloseNotifier(ctx, t), t)
}

// Allocate implements experimental.MemoryAllocator. The import check
// refuses imported memories and wazero allows one memory a module, so it is
// called once, for the guest's memory.
func (t *tracker) Allocate(capacity, max uint64) experimental.LinearMemory {
	m := &trackedMemory{max: min(max, t.limit)}
	if capacity > max {
		capacity = max
	}
	m.buf = make([]byte, 0, capacity)
	t.mu.Lock()
	t.mem = m
	t.mu.Unlock()
	return m
}

// CloseNotify implements experimental.CloseNotifier.
func (t *tracker) CloseNotify(_ context.Context, exitCode uint32) {
	t.exitCode.Store(exitCode)
	t.closed.Store(true)
}

// guest is the guest module's memory, or nil if it has none.
func (t *tracker) guest() *trackedMemory {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.mem
}

// atCap reports whether a memory.grow was refused at the cap, or (for a
// grow that wazero refused before asking the allocator: one beyond its own,
// looser limit) whether the memory is within a sixteenth of the cap. Then
// the fault is most likely the failed allocation. size is the memory's size.
func (t *tracker) atCap() (bool, uint64) {
	m := t.guest()
	if m == nil {
		return false, 0
	}
	size, max := m.size.Load(), m.max
	return m.refused.Load() || (max > 0 && size+max/16 >= max), size
}

// initialOverCap reports a memory whose declared initial size is over the
// cap (it had to be allocated: wazero cannot fail an initial allocation).
func (t *tracker) initialOverCap() (bool, uint64) {
	m := t.guest()
	if m == nil || !m.initialOver {
		return false, 0
	}
	return true, m.size.Load()
}

// trackedMemory is a linear memory backed by a Go slice, as wazero's own
// default is, with its size readable from other goroutines.
type trackedMemory struct {
	buf         []byte
	max         uint64 // the cap: memory_mb, or less if the module says so
	size        atomic.Uint64
	refused     atomic.Bool
	initialOver bool
	allocated   bool
}

// Reallocate implements experimental.LinearMemory: memory.grow, and the
// initial allocation. A grow past the cap returns nil, which wazero turns
// into memory.grow's -1. Growing past capacity doubles it (bounded by the
// cap) so that a guest that grows a page at a time is not copied each time.
func (m *trackedMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		if m.allocated {
			m.refused.Store(true)
			return nil
		}
		// wazero requires the initial allocation to succeed; the instance
		// is refused right after (initialOverCap).
		m.initialOver = true
		m.max = size
	}
	m.allocated = true
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
	} else {
		c := min(max(size, 2*uint64(cap(m.buf))), m.max)
		nb := make([]byte, size, c)
		copy(nb, m.buf)
		m.buf = nb
	}
	m.size.Store(size)
	return m.buf
}

// Free implements experimental.LinearMemory.
func (m *trackedMemory) Free() { m.buf = nil }

// bytes is the memory's current size (a memory never shrinks, so this is
// also its peak).
func (m *trackedMemory) bytes() uint64 {
	if m == nil {
		return 0
	}
	return m.size.Load()
}

package kernel

import "sort"

// memory is the kernel's memory of one instance: the blocks a guest
// allocates with alloc and addresses by offset, the call's input and
// output among them. It is a Go slice rather than a second Wasm memory, so
// that a guest's load_u64 is one bounds check and one read instead of a
// call into another module.
//
// Offsets are what Extism's kernel hands out: never 0 (0 means "no block"
// or "allocation failed"), stable for the life of a block, and plain
// addresses within a block (a guest reads a block's bytes at off, off+8,
// …). Blocks are bump-allocated and a freed block is reused first-fit by a
// later allocation of at most its size, as in Extism's kernel; reset (the
// host does it before every call) frees them all.
type memory struct {
	buf    []byte  // bytes in use: buf[off-base:] for a block at off
	blocks []block // sorted by off
	freed  int     // blocks with free set
	limit  uint64  // cap on len(buf)
	// refused records an allocation refused at limit, so that the guest's
	// fault that usually follows is reported as memory exhaustion.
	refused bool
}

type block struct {
	off  uint64
	size uint64 // room
	used uint64 // length, as length() reports it
	free bool
}

// base is the offset of the first block: 0 stays "no block", and blocks
// keep 8-byte alignment.
const base = 8

// alignment of every block's start.
const alignment = 8

// alloc returns a block of n bytes (zeroed), or 0 when n is 0 or the limit
// is reached.
func (m *memory) alloc(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	if m.freed > 0 {
		for i := range m.blocks {
			b := &m.blocks[i]
			if b.free && b.size >= n {
				b.free, b.used = false, n
				m.freed--
				clear(m.buf[b.off-base : b.off-base+n])
				return b.off
			}
		}
	}
	size := (n + alignment - 1) &^ (alignment - 1)
	start := uint64(len(m.buf))
	if size < n || start+size < start || start+size > m.limit {
		m.refused = true
		return 0
	}
	end := start + size
	if end <= uint64(cap(m.buf)) {
		m.buf = m.buf[:end]
		clear(m.buf[start:end])
	} else {
		grown := make([]byte, end, min(max(end, 2*uint64(cap(m.buf)), 4096), max(m.limit, end)))
		copy(grown, m.buf)
		m.buf = grown
	}
	off := start + base
	m.blocks = append(m.blocks, block{off: off, size: size, used: n})
	return off
}

// find returns the live block starting at off, or nil.
func (m *memory) find(off uint64) *block {
	i := sort.Search(len(m.blocks), func(i int) bool { return m.blocks[i].off >= off })
	if i == len(m.blocks) || m.blocks[i].off != off || m.blocks[i].free {
		return nil
	}
	return &m.blocks[i]
}

// free releases the block at off; anything else is ignored.
func (m *memory) free(off uint64) {
	if b := m.find(off); b != nil {
		b.free = true
		m.freed++
	}
}

// length is the length of the block at off, 0 if off is not a block.
func (m *memory) length(off uint64) uint64 {
	if b := m.find(off); b != nil {
		return b.used
	}
	return 0
}

// bytes returns the content of the block at off (a view, valid until the
// next reset), and whether off is a block.
func (m *memory) bytes(off uint64) ([]byte, bool) {
	b := m.find(off)
	if b == nil {
		return nil, false
	}
	return m.buf[b.off-base : b.off-base+b.used], true
}

// put copies data into a new block; 0 if it does not fit (or is empty: a
// block of no bytes is "no block" in Extism's ABI, as alloc(0) is).
func (m *memory) put(data []byte) uint64 {
	off := m.alloc(uint64(len(data)))
	if off != 0 {
		copy(m.buf[off-base:], data)
	}
	return off
}

// span returns the n bytes at off if they lie within memory in use, which
// is the bounds check Extism's kernel makes for loads and stores (it does
// not require them to lie within one block).
func (m *memory) span(off, n uint64) []byte {
	if off < base {
		return nil
	}
	i := off - base
	if i > uint64(len(m.buf)) || n > uint64(len(m.buf))-i {
		return nil
	}
	return m.buf[i : i+n]
}

// keepAtReset bounds the bytes a reset keeps for the next call: a call
// with a large result should not pin that much in every pooled instance.
const keepAtReset = 4 << 20

// reset frees every block; up to keepAtReset bytes stay allocated for the
// next call.
func (m *memory) reset() {
	if cap(m.buf) > keepAtReset {
		m.buf = nil
	}
	m.buf = m.buf[:0]
	m.blocks = m.blocks[:0]
	m.freed = 0
	m.refused = false
}

// size is the memory's capacity in bytes: what it holds from the Go heap.
func (m *memory) size() uint64 { return uint64(cap(m.buf)) }

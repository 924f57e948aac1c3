package kernel

import (
	"math/bits"
	"slices"
	"unsafe"
)

// memory is the kernel's memory of one instance: the blocks a guest
// allocates with alloc and addresses by offset, the call's input and
// output among them. It is a Go slice rather than a second Wasm memory, so
// that a guest's load_u64 is one bounds check and one read instead of a
// call into another module.
//
// Offsets are what Extism's kernel hands out: never 0 (0 means "no block"
// or "allocation failed"), stable for the life of a block, and plain
// addresses within a block (a guest reads a block's bytes at off, off+8,
// …). Blocks are bump-allocated and a freed block is reused by a later
// allocation of at most its size, as in Extism's kernel; reset (the host
// does it before every call) frees them all.
//
// Every operation is O(1) or O(log blocks), whatever the guest did before:
// freed blocks wait in one free list per power-of-two size class, and a
// bitmap of the classes that have any finds a fitting one at once (Extism's
// first-fit scan over every block let a guest make each alloc as slow as it
// had made blocks). The limit covers the blocks' records as well as their
// bytes, so that a guest making millions of tiny blocks runs into it, not
// into the host's memory.
type memory struct {
	buf    []byte  // bytes in use: buf[off-base:] for a block at off
	blocks []block // sorted by off
	// freed holds, per size class, 1 + the index in blocks of the first
	// freed block (0: none); the others follow through block.next.
	freed [classes]uint32
	// freeClasses has bit c set when freed[c] holds a block.
	freeClasses uint64
	// limit caps what the memory holds from the Go heap: cap(buf) plus
	// cap(blocks) records.
	limit uint64
	// refused records an allocation refused at limit, so that the guest's
	// fault that usually follows is reported as memory exhaustion.
	refused bool
	// charge, if set, is told of the bytes cleared or copied, as they are,
	// a MiB at most at a time (Instance.Charge: it may stop the guest).
	charge func(n uint64)
}

// block is one block's record, kept small (16 bytes) because a guest
// decides how many there are. Offsets and sizes are multiples of 8, held
// divided by 8, so that a limit of 4 GiB fits in 32 bits.
type block struct {
	off8  uint32 // offset / 8
	size8 uint32 // room / 8
	used  uint32 // length, as length() reports it
	// next is live for a block in use; for a freed block, 1 + the index of
	// the next freed block of its class (0: the last).
	next uint32
}

const (
	// live marks a block in use in block.next.
	live = ^uint32(0)
	// recordBytes is what one block's record costs against the limit.
	recordBytes = uint64(unsafe.Sizeof(block{}))
	// classes: a freed block of size8 s waits in class bits.Len32(s)-1.
	classes = 32
	// MaxKernelBytes is the largest limit the records can address.
	MaxKernelBytes = 1 << 32
	// workChunk is how much is cleared or copied between two charges.
	workChunk = 1 << 20
)

// base is the offset of the first block: 0 stays "no block", and blocks
// keep 8-byte alignment.
const base = 8

// alignment of every block's start.
const alignment = 8

func (b *block) off() uint64 { return uint64(b.off8) * alignment }

// classOf is the class of a freed block of size8 s: every block in class
// c has room for at least 2^c units of 8 bytes.
func classOf(size8 uint32) int { return bits.Len32(size8) - 1 }

// alloc returns a block of n bytes (zeroed), or 0 when n is 0 or the limit
// is reached.
func (m *memory) alloc(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	if n > m.limit || n >= MaxKernelBytes {
		m.refused = true
		return 0
	}
	size := (n + alignment - 1) &^ (alignment - 1)
	if i, ok := m.takeFreed(uint32(size / alignment)); ok {
		b := &m.blocks[i]
		b.used = uint32(n)
		m.clear(m.buf[b.off()-base : b.off()-base+n])
		return b.off()
	}
	start := uint64(len(m.buf))
	end := start + size
	before := cap(m.buf)
	if !m.reserve(end) {
		m.refused = true
		return 0
	}
	m.buf = m.buf[:end]
	if cap(m.buf) == before {
		// The bytes were used before the last reset; a new buffer's
		// come zeroed.
		m.clear(m.buf[start:end])
	}
	off := start + base
	m.blocks = append(m.blocks, block{off8: uint32(off / alignment), size8: uint32(size / alignment), used: uint32(n), next: live})
	return off
}

// takeFreed takes a freed block with room for size8 units out of its free
// list: the first of size8's own class if it fits, else the first of the
// smallest larger class that has one (all of whose blocks fit).
func (m *memory) takeFreed(size8 uint32) (int, bool) {
	if m.freeClasses == 0 {
		return 0, false
	}
	c := classOf(size8)
	if h := m.freed[c]; h == 0 || m.blocks[h-1].size8 < size8 {
		larger := m.freeClasses >> (c + 1) << (c + 1)
		if larger == 0 {
			return 0, false
		}
		c = bits.TrailingZeros64(larger)
	}
	i := int(m.freed[c] - 1)
	b := &m.blocks[i]
	m.freed[c] = b.next
	if b.next == 0 {
		m.freeClasses &^= 1 << c
	}
	b.next = live
	return i, true
}

// reserve makes room for buf to reach end bytes and for one more record,
// growing each (doubling, within what the limit leaves) when it must. It
// reports false, changing nothing the caller sees, when the limit does not
// leave room.
func (m *memory) reserve(end uint64) bool {
	if end > m.limit {
		return false
	}
	records := uint64(cap(m.blocks))
	if uint64(len(m.blocks)) == records {
		room := (m.limit - min(m.limit, uint64(cap(m.buf)))) / recordBytes
		grown := min(max(2*records, 64), room)
		if grown <= records {
			return false
		}
		m.work((grown - records) * recordBytes) // the runtime clears them
		next := make([]block, len(m.blocks), grown)
		copy(next, m.blocks)
		m.blocks = next
		records = grown
	}
	if end > uint64(cap(m.buf)) {
		room := m.limit - min(m.limit, records*recordBytes)
		grown := min(max(end, 2*uint64(cap(m.buf)), 4096), room)
		if grown < end {
			return false
		}
		// The runtime clears the new bytes: charged before, as the
		// copy is as it goes.
		m.work(grown - uint64(len(m.buf)))
		next := make([]byte, len(m.buf), grown)
		m.copy(next, m.buf)
		m.buf = next
	}
	return true
}

// clear zeroes b, charging for it as it goes.
func (m *memory) clear(b []byte) {
	for len(b) > 0 {
		n := min(len(b), workChunk)
		clear(b[:n])
		b = b[n:]
		m.work(uint64(n))
	}
}

// copy copies src into dst, charging for it as it goes.
func (m *memory) copy(dst, src []byte) {
	for len(src) > 0 && len(dst) > 0 {
		n := copy(dst, src[:min(len(src), workChunk)])
		dst, src = dst[n:], src[n:]
		m.work(uint64(n))
	}
}

func (m *memory) work(n uint64) {
	if m.charge != nil {
		m.charge(n)
	}
}

// find returns the index of the live block starting at off, or -1.
func (m *memory) find(off uint64) int {
	if off < base || off%alignment != 0 || off/alignment > uint64(^uint32(0)) {
		return -1
	}
	off8 := uint32(off / alignment)
	i, found := slices.BinarySearchFunc(m.blocks, off8, func(b block, t uint32) int {
		switch {
		case b.off8 < t:
			return -1
		case b.off8 > t:
			return 1
		}
		return 0
	})
	if !found || m.blocks[i].next != live {
		return -1
	}
	return i
}

// free releases the block at off; anything else is ignored.
func (m *memory) free(off uint64) {
	i := m.find(off)
	if i < 0 {
		return
	}
	b := &m.blocks[i]
	c := classOf(b.size8)
	b.next = m.freed[c]
	m.freed[c] = uint32(i + 1)
	m.freeClasses |= 1 << c
}

// length is the length of the block at off, 0 if off is not a block.
func (m *memory) length(off uint64) uint64 {
	if i := m.find(off); i >= 0 {
		return uint64(m.blocks[i].used)
	}
	return 0
}

// bytes returns the content of the block at off (a view, valid until the
// next reset), and whether off is a block.
func (m *memory) bytes(off uint64) ([]byte, bool) {
	i := m.find(off)
	if i < 0 {
		return nil, false
	}
	b := &m.blocks[i]
	return m.buf[b.off()-base : b.off()-base+uint64(b.used)], true
}

// put copies data into a new block; 0 if it does not fit (or is empty: a
// block of no bytes is "no block" in Extism's ABI, as alloc(0) is).
func (m *memory) put(data []byte) uint64 {
	off := m.alloc(uint64(len(data)))
	if off != 0 {
		m.copy(m.buf[off-base:], data)
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

// What a reset keeps for the next call: a call with a large result, or a
// guest that made many blocks, should not pin that much in every pooled
// instance.
const (
	keepAtReset        = 4 << 20
	keepRecordsAtReset = 4096
)

// reset frees every block; up to keepAtReset bytes and keepRecordsAtReset
// records stay allocated for the next call.
func (m *memory) reset() {
	if cap(m.buf) > keepAtReset {
		m.buf = nil
	}
	if cap(m.blocks) > keepRecordsAtReset {
		m.blocks = nil
	}
	m.buf = m.buf[:0]
	m.blocks = m.blocks[:0]
	m.freed = [classes]uint32{}
	m.freeClasses = 0
	m.refused = false
}

// size is what the memory holds from the Go heap, in bytes: its bytes'
// capacity and its records'.
func (m *memory) size() uint64 {
	return uint64(cap(m.buf)) + uint64(cap(m.blocks))*recordBytes
}

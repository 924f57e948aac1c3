package kernel

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func TestMemoryBlocks(t *testing.T) {
	m := &memory{limit: 1 << 20}
	if m.alloc(0) != 0 || m.put(nil) != 0 {
		t.Fatal("an empty block must be 0")
	}
	a := m.put([]byte("hello"))
	b := m.put([]byte("world!!!!"))
	if a == 0 || b == 0 || a == b || a%alignment != 0 || b%alignment != 0 {
		t.Fatalf("offsets %d %d", a, b)
	}
	if got, _ := m.bytes(a); string(got) != "hello" {
		t.Fatalf("a = %q", got)
	}
	if m.length(b) != 9 || m.length(b+1) != 0 || m.length(0) != 0 {
		t.Fatal("length")
	}
	m.free(a)
	if _, ok := m.bytes(a); ok || m.length(a) != 0 {
		t.Fatal("a freed block is still readable as a block")
	}
	m.free(a) // twice: ignored
	if c := m.alloc(3); c != a {
		t.Fatalf("freed block not reused: %d, want %d", c, a)
	} else if got, _ := m.bytes(c); !bytes.Equal(got, []byte{0, 0, 0}) {
		t.Fatalf("reused block not zeroed: %v", got)
	}
	if m.span(b, 16) == nil || m.span(b+9, 8) != nil || m.span(0, 1) != nil {
		t.Fatal("span bounds")
	}
	m.reset()
	if m.length(b) != 0 || m.span(b, 1) != nil {
		t.Fatal("reset kept blocks")
	}
}

func TestMemoryLimit(t *testing.T) {
	// The limit holds the first 64 records (1 KiB) and 64 bytes.
	m := &memory{limit: 64*recordBytes + 64}
	if m.alloc(64) == 0 || m.alloc(1) != 0 || !m.refused {
		t.Fatal("limit not enforced")
	}
	if m.size() > m.limit {
		t.Fatalf("size %d over the limit %d", m.size(), m.limit)
	}
	m.reset()
	if m.refused || m.alloc(1<<63) != 0 || m.alloc(^uint64(0)) != 0 {
		t.Fatal("huge allocations must fail, not wrap")
	}
}

func TestMemoryResetReleasesLargeBuffers(t *testing.T) {
	m := &memory{limit: 64 << 20}
	m.alloc(keepAtReset + 1)
	m.reset()
	if m.size() != 64*recordBytes {
		t.Fatalf("kept %d bytes", m.size())
	}
}

// A freed block is reused by an allocation it has room for, whichever of
// the free lists holds it, and never by a larger one.
func TestMemoryReusesFreedBlocks(t *testing.T) {
	m := &memory{limit: 1 << 20}
	small, big := m.alloc(24), m.alloc(1000)
	m.alloc(1) // keeps the blocks apart from the end
	m.free(small)
	m.free(big)
	if got := m.alloc(17); got != small {
		t.Fatalf("alloc(17) = %d, want the freed 24-byte block %d", got, small)
	}
	if got := m.alloc(25); got != big {
		t.Fatalf("alloc(25) = %d, want the freed 1000-byte block %d", got, big)
	}
	m.free(small)
	if got := m.alloc(32); got == small || got == 0 {
		t.Fatalf("alloc(32) = %d: a 24-byte block reused for 32 bytes", got)
	}
	if m.length(big) != 25 || m.length(small) != 0 {
		t.Fatalf("lengths %d %d", m.length(big), m.length(small))
	}
}

// A guest making one-byte blocks until alloc fails runs into the limit,
// records included: the memory holds no more than its limit, and a reset
// gives back all but a small floor.
func TestMemoryRecordsCountAgainstTheLimit(t *testing.T) {
	const limit = 4 << 20
	m := &memory{limit: limit}
	n := 0
	for m.alloc(1) != 0 {
		n++
	}
	if !m.refused || m.size() > limit {
		t.Fatalf("refused %v, size %d over the limit %d", m.refused, m.size(), limit)
	}
	// Each block costs its 8 bytes and its record: at most this many fit.
	if max := limit / (alignment + int(recordBytes)); n > max {
		t.Fatalf("%d blocks, more than the %d the limit holds", n, max)
	}
	m.reset()
	if m.size() > kernelFloor {
		t.Fatalf("after reset the memory holds %d bytes, over the floor of %d", m.size(), kernelFloor)
	}
}

// Clearing and copying are charged as they go, a chunk at a time, so a
// large block's work can be stopped in the middle.
func TestMemoryChargesItsWork(t *testing.T) {
	var charged, largest uint64
	m := &memory{limit: 64 << 20, charge: func(n uint64) { charged += n; largest = max(largest, n) }}
	m.alloc(3 * workChunk)
	m.reset() // keeps the buffer, whose bytes must be cleared again
	charged, largest = 0, 0
	m.put(make([]byte, 3*workChunk))
	if charged < 2*3*workChunk || largest > workChunk {
		t.Fatalf("clearing and copying %d bytes charged %d, at most %d at once", 3*workChunk, charged, largest)
	}
	// A fresh buffer comes cleared by the runtime: that is charged too,
	// so a loop of reset and a large alloc is not free.
	m.reset()
	charged = 0
	m.alloc(8 * workChunk)
	if charged < 8*workChunk {
		t.Fatalf("a new buffer of %d bytes charged %d", 8*workChunk, charged)
	}
}

// FuzzMemory runs a guest's arbitrary sequence of kernel calls: nothing
// panics, blocks never overlap, and what is stored in a block is read back.
func FuzzMemory(f *testing.F) {
	f.Add([]byte{0, 10, 1, 0, 0, 20, 2, 0, 3, 8})
	f.Add([]byte{0, 255, 0, 255, 4, 0, 1, 1, 0, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		m := &memory{limit: 4096}
		var live []uint64
		for len(ops) >= 2 {
			op, arg := ops[0]%6, uint64(ops[1])
			ops = ops[2:]
			switch op {
			case 0:
				if off := m.alloc(arg * 7); off != 0 {
					live = append(live, off)
				}
			case 1:
				if len(live) > 0 {
					i := int(arg) % len(live)
					m.free(live[i])
					live = append(live[:i], live[i+1:]...)
				}
			case 2:
				m.free(arg) // anything, not only blocks
				for i, off := range live {
					if off == arg {
						live = append(live[:i], live[i+1:]...)
						break
					}
				}
			case 3:
				if b := m.span(arg, 8); b != nil {
					binary.LittleEndian.PutUint64(b, arg)
				}
			case 4:
				m.reset()
				live = live[:0]
			case 5:
				m.length(arg)
			}
			if m.size() > m.limit {
				t.Fatalf("memory %d over its limit", m.size())
			}
			for i := 1; i < len(m.blocks); i++ {
				p, b := m.blocks[i-1], m.blocks[i]
				if p.off8+p.size8 > b.off8 || uint64(b.used) > uint64(b.size8)*alignment {
					t.Fatalf("blocks overlap: %+v %+v", p, b)
				}
			}
			checkFreeLists(t, m)
			for _, off := range live {
				if _, ok := m.bytes(off); !ok {
					t.Fatalf("live block %d lost", off)
				}
			}
		}
	})
}

// checkFreeLists checks that the freed blocks are exactly those on the
// free lists, each once, in its class, and that freeClasses says which
// lists have any.
func checkFreeLists(t *testing.T, m *memory) {
	t.Helper()
	listed := map[int]bool{}
	for c, h := range m.freed {
		if (h != 0) != (m.freeClasses&(1<<c) != 0) {
			t.Fatalf("class %d: head %d but bit %v", c, h, m.freeClasses&(1<<c) != 0)
		}
		for at := h; at != 0; at = m.blocks[at-1].next {
			i := int(at - 1)
			if listed[i] || m.blocks[i].next == live || classOf(m.blocks[i].size8) != c {
				t.Fatalf("block %d (%+v) listed wrongly in class %d", i, m.blocks[i], c)
			}
			listed[i] = true
		}
	}
	for i, b := range m.blocks {
		if (b.next != live) != listed[i] {
			t.Fatalf("block %d (%+v): freed but not listed, or listed but live", i, b)
		}
	}
}

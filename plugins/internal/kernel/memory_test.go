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
	m := &memory{limit: 64}
	if m.alloc(64) == 0 || m.alloc(1) != 0 || !m.refused {
		t.Fatal("limit not enforced")
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
	if m.size() != 0 {
		t.Fatalf("kept %d bytes", m.size())
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
			if uint64(len(m.buf)) > m.limit {
				t.Fatalf("memory %d over its limit", len(m.buf))
			}
			for i := 1; i < len(m.blocks); i++ {
				p, b := m.blocks[i-1], m.blocks[i]
				if p.off+p.size > b.off || b.used > b.size {
					t.Fatalf("blocks overlap: %+v %+v", p, b)
				}
			}
			for _, off := range live {
				if _, ok := m.bytes(off); !ok {
					t.Fatalf("live block %d lost", off)
				}
			}
		}
	})
}

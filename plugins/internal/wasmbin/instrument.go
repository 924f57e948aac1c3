package wasmbin

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Instrument: the module rewritten section by section, and the indices it needs.

// What an instrumented module imports: a function of no parameters that
// returns the next quantum of fuel. The host's function checks the call's
// deadline and its caller's cancellation and, to stop the guest, panics
// (a trap). The module name holds a colon, which no Extism or WASI module
// name does.
const (
	RuntimeModule = "mcphost:runtime"
	YieldFunc     = "yield"
	// Quantum is the fuel a guest starts with and the host gives at each
	// yield. A function entry or loop header costs one unit, plus one per
	// codeBytesPerUnit bytes of the code it starts (the straight-line code
	// that may run before the next check); a bulk memory or table
	// operation costs one per 4096 bytes or elements it touches.
	Quantum = 10000
	// codeBytesPerUnit: 512 bytes of code are a few hundred nanoseconds.
	codeBytesPerUnit = 512
	// bulkShift: a bulk operation of n costs n>>bulkShift units.
	bulkShift = 12
)

// ErrUnsupported wraps the errors of modules Instrument cannot rewrite
// because they use an encoding it does not take (a proposal wazero's
// feature set does not enable, or a form wazero would read otherwise).
var ErrUnsupported = errors.New("unsupported encoding")

// Instrument returns a copy of the module wasm that a host can stop. It
// adds a mutable i64 global, the fuel, and an import of YieldFunc from
// RuntimeModule; at the entry of every function and the header of every
// loop it counts the fuel down by the weight of the code that follows and,
// once it is spent, calls yield and refuels with its answer. Every path
// that runs long passes one: a loop, or a call (recursion without loops
// included). Bulk memory and table operations (memory.fill, memory.copy,
// ...), which take time in proportion to their size, are charged by it
// before they run. Structured control flow can only go back at a loop
// header, so the code run between two checks is bounded by what was
// charged for it.
//
// The call into the host is what makes this work: Go cannot preempt a
// goroutine running compiled Wasm, so a guest that never calls out holds
// its thread through garbage collection's stop-the-world, and nothing
// else in the process runs until it returns. A flag checked inside the
// guest and set by a watchdog goroutine deadlocks with two threads: the
// collector waits for the guest, the guest for the watchdog, the watchdog
// for a thread. Yielding every Quantum of fuel gives the scheduler its
// preemption point and the host its deadline check, at a subtraction and
// a branch per check instead of wazero's call into Go at every loop header
// (WithCloseOnContextDone). See RATIONALE.md.
//
// The yield import comes after the module's own imports, so defined
// functions move up by one: calls, ref.func, exports, the start function,
// element segments and the name section are renumbered. The module's code
// may not name the new global: any global.get or global.set at or past it
// is refused (such a module was invalid anyway). DWARF sections
// (.debug_*), whose code offsets the rewrite makes wrong, are dropped.
func Instrument(wasm []byte) ([]byte, error) {
	sections, err := Sections(wasm)
	if err != nil {
		return nil, err
	}
	in, err := count(sections)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(wasm)+len(wasm)/8+128)
	out = append(out, wasm[:8]...)
	emit := func(id byte, payload []byte) {
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(payload)))
		out = append(out, payload...)
	}
	// The type, import and global sections may be missing: they are added
	// in their place in the section order.
	added := map[byte]bool{}
	addMissing := func(before byte) {
		for _, id := range []byte{SecType, SecImport, SecGlobal} {
			if !added[id] && sectionRank(before) > sectionRank(id) {
				added[id] = true
				p, _ := in.rewrite(id, nil) // a new section: nothing to read
				emit(id, p)
			}
		}
	}
	for _, s := range sections {
		if s.ID == SecCustom {
			p, keep := in.custom(s.Payload)
			if keep {
				emit(s.ID, p)
			}
			continue
		}
		addMissing(s.ID)
		added[s.ID] = true
		p, err := in.rewrite(s.ID, s.Payload)
		if err != nil {
			return nil, fmt.Errorf("section %d: %w", s.ID, err)
		}
		emit(s.ID, p)
	}
	addMissing(0xff)
	return out, nil
}

// sectionRank orders sections as the binary format requires (the tag
// section sits between memory and global, data count before code).
func sectionRank(id byte) int {
	switch id {
	case SecTag:
		return 55 // after memory (5), before global (6)
	case SecDataCount:
		return 95 // after element (9), before code (10)
	case 0xff:
		return 1 << 20
	}
	return int(id) * 10
}

// instrumenter holds the indices the rewrite needs.
type instrumenter struct {
	types       uint32 // the yield function's type index
	funcImports uint32 // the yield function's index; defined ones move up
	globals     uint32 // the fuel global's index
	// params counts each type's parameters; funcTypes is the type of each
	// defined function (for the index of the local a body's charges use).
	params    []uint32
	funcTypes []uint32

	// What scan found in the body at hand (buffers reused body to body).
	edits   []edit
	sizes   []int
	open    []int
	weights []int64
	bulk    bool
}

// count reads the module's types, imported functions and globals.
func count(sections []Section) (*instrumenter, error) {
	in := &instrumenter{}
	var globals uint64
	for _, s := range sections {
		r := &Reader{B: s.Payload}
		switch s.ID {
		case SecType:
			n := r.Count()
			for i := uint32(0); i < n && r.Err == nil; i++ {
				if form := r.Byte(); form != 0x60 {
					return nil, fmt.Errorf("%w: type form 0x%02x", ErrUnsupported, form)
				}
				for k := 0; k < 2; k++ { // parameters, results
					m := r.Count()
					if k == 0 {
						in.params = append(in.params, m)
					}
					for j := uint32(0); j < m && r.Err == nil; j++ {
						r.ValType()
					}
				}
			}
			in.types = n
		case SecImport:
			n := r.Count()
			for i := uint32(0); i < n && r.Err == nil; i++ {
				r.Name()
				r.Name()
				kind := r.Byte()
				switch kind {
				case KindFunc:
					in.funcImports++
				case KindGlobal:
					globals++
				}
				r.SkipImportDesc(kind)
			}
		case SecGlobal:
			globals += uint64(r.Count())
		case SecFunction:
			n := r.Count()
			for i := uint32(0); i < n && r.Err == nil; i++ {
				in.funcTypes = append(in.funcTypes, r.U32())
			}
		}
		if r.Err != nil {
			return nil, fmt.Errorf("section %d: %w", s.ID, r.Err)
		}
	}
	if globals >= 1<<31 || in.types >= 1<<31 {
		return nil, errors.New("too many globals or types")
	}
	in.globals = uint32(globals)
	return in, nil
}

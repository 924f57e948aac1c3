package wasmbin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

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

// appendCheck appends what goes at function entries and loop headers,
// charging weight units:
//
//	global.get $fuel  i64.const weight  i64.sub  global.set $fuel
//	global.get $fuel  i64.const 1  i64.lt_s
//	if  call $yield  global.set $fuel  end
func (in *instrumenter) appendCheck(out []byte, weight int64) []byte {
	out = in.appendGlobal(out, 0x23)
	out = appendSLEB(append(out, 0x42), weight)
	out = append(out, 0x7d)
	out = in.appendGlobal(out, 0x24)
	return in.appendYieldIfSpent(out)
}

// appendCharge appends what goes before a bulk operation, whose size n
// (an i32) is on top of the stack, using local t, and yields if that
// spent the fuel:
//
//	local.tee $t  global.get $fuel  local.get $t  i64.extend_i32_u
//	i64.const bulkShift  i64.shr_u  i64.sub  global.set $fuel  (yield if spent)
func (in *instrumenter) appendCharge(out []byte, t uint32) []byte {
	out = binary.AppendUvarint(append(out, 0x22), uint64(t))
	out = in.appendGlobal(out, 0x23)
	out = binary.AppendUvarint(append(out, 0x20), uint64(t))
	out = append(out, 0xad, 0x42, bulkShift, 0x88, 0x7d)
	out = in.appendGlobal(out, 0x24)
	return in.appendYieldIfSpent(out)
}

// appendYieldIfSpent appends the second half of a check:
//
//	global.get $fuel  i64.const 1  i64.lt_s  if  call $yield  global.set $fuel  end
func (in *instrumenter) appendYieldIfSpent(out []byte) []byte {
	out = in.appendGlobal(out, 0x23)
	out = append(out, 0x42, 0x01, 0x53, 0x04, 0x40, 0x10)
	out = binary.AppendUvarint(out, uint64(in.funcImports))
	out = in.appendGlobal(out, 0x24)
	return append(out, 0x0b)
}

// appendSLEB appends v in signed LEB128, as i64.const takes it (Go's
// binary.AppendVarint writes zig-zag, another encoding).
func appendSLEB(out []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}

// appendGlobal appends global.get (0x23) or global.set (0x24) of the fuel.
func (in *instrumenter) appendGlobal(out []byte, op byte) []byte {
	return binary.AppendUvarint(append(out, op), uint64(in.globals))
}

// weight is what a check charges for code of n bytes.
func weight(n int) int64 { return min(1+int64(n)/codeBytesPerUnit, Quantum) }

// funcIndex renumbers a function index of the original module.
func (in *instrumenter) funcIndex(idx uint32) uint64 {
	if idx >= in.funcImports {
		return uint64(idx) + 1
	}
	return uint64(idx)
}

// rewrite returns the new payload of a non-custom section (payload nil:
// the section is missing and made anew).
func (in *instrumenter) rewrite(id byte, payload []byte) ([]byte, error) {
	r := &Reader{B: payload}
	out := make([]byte, 0, len(payload)+len(payload)/8+32)
	var err error
	switch id {
	case SecType:
		out = appendAfter(out, r)
		out = append(out, 0x60, 0x00, 0x01, 0x7e) // func () -> i64
	case SecImport:
		out = appendAfter(out, r)
		out = binary.AppendUvarint(out, uint64(len(RuntimeModule)))
		out = append(out, RuntimeModule...)
		out = binary.AppendUvarint(out, uint64(len(YieldFunc)))
		out = append(out, YieldFunc...)
		out = append(out, KindFunc)
		out = binary.AppendUvarint(out, uint64(in.types))
	case SecGlobal:
		out, err = in.globalSection(out, r)
		fuel := appendSLEB([]byte{0x7e, 0x01, 0x42}, Quantum) // (mut i64) (i64.const Quantum)
		out = append(out, append(fuel, 0x0b)...)
	case SecExport:
		n := r.Count()
		out = binary.AppendUvarint(out, uint64(n))
		for i := uint32(0); i < n && r.Err == nil; i++ {
			start := r.Off
			r.Name()
			kind := r.Byte()
			out = append(out, r.B[start:r.Off]...)
			idx := uint64(r.U32())
			if kind == KindFunc {
				idx = in.funcIndex(uint32(idx))
			}
			if kind == KindGlobal && idx >= uint64(in.globals) {
				return nil, fmt.Errorf("export of global %d; the module has %d", idx, in.globals)
			}
			out = binary.AppendUvarint(out, idx)
		}
	case 8: // start
		out = binary.AppendUvarint(out, in.funcIndex(r.U32()))
	case 9: // element
		out, err = in.elementSection(out, r)
	case SecCode:
		out, err = in.codeSection(out, r)
	default:
		return payload, nil
	}
	if err == nil {
		err = r.Err
	}
	if err == nil && r.Off != len(payload) {
		err = fmt.Errorf("%d bytes after the last entry", len(payload)-r.Off)
	}
	return out, err
}

// appendAfter copies a vector (read by count already) and counts one more
// entry in, which the caller appends.
func appendAfter(out []byte, r *Reader) []byte {
	var n uint32
	if len(r.B) > 0 {
		n = r.Count()
	}
	out = binary.AppendUvarint(out, uint64(n)+1)
	out = append(out, r.B[r.Off:]...)
	r.Off = len(r.B)
	return out
}

func (in *instrumenter) globalSection(out []byte, r *Reader) ([]byte, error) {
	var n uint32
	if len(r.B) > 0 {
		n = r.Count()
	}
	out = binary.AppendUvarint(out, uint64(n)+1)
	for i := uint32(0); i < n && r.Err == nil; i++ {
		start := r.Off
		r.ValType()
		r.Byte() // mutability
		out = append(out, r.B[start:r.Off]...)
		var err error
		if out, err = in.expr(out, r); err != nil {
			return nil, fmt.Errorf("global %d: %w", i, err)
		}
	}
	return out, nil
}

func (in *instrumenter) elementSection(out []byte, r *Reader) ([]byte, error) {
	n := r.Count()
	out = binary.AppendUvarint(out, uint64(n))
	copyOver := func(skip func()) {
		start := r.Off
		skip()
		out = append(out, r.B[start:r.Off]...)
	}
	var err error
	for i := uint32(0); i < n && r.Err == nil && err == nil; i++ {
		flags := r.U32()
		out = binary.AppendUvarint(out, uint64(flags))
		if flags > 7 {
			return nil, fmt.Errorf("%w: element segment flags %d", ErrUnsupported, flags)
		}
		if flags == 2 || flags == 6 {
			copyOver(func() { r.U32() }) // table index
		}
		if flags&1 == 0 {
			if out, err = in.expr(out, r); err != nil { // offset
				break
			}
		}
		if flags&3 != 0 {
			if flags&4 == 0 {
				copyOver(func() { r.Byte() }) // elemkind
			} else {
				copyOver(func() { r.ValType() }) // reftype
			}
		}
		m := r.Count()
		out = binary.AppendUvarint(out, uint64(m))
		for j := uint32(0); j < m && r.Err == nil && err == nil; j++ {
			if flags&4 == 0 {
				out = binary.AppendUvarint(out, in.funcIndex(r.U32()))
			} else {
				out, err = in.expr(out, r)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// expr copies a constant expression, up to and including its end.
func (in *instrumenter) expr(out []byte, r *Reader) ([]byte, error) {
	for r.More() {
		op := r.B[r.Off]
		var err error
		if out, err = in.instruction(out, r); err != nil {
			return nil, err
		}
		if op == 0x0b {
			return out, nil
		}
	}
	if r.Err == nil {
		r.Fail("expression without end")
	}
	return out, nil
}

// codeSection rewrites every function body.
func (in *instrumenter) codeSection(out []byte, r *Reader) ([]byte, error) {
	n := r.Count()
	if int(n) != len(in.funcTypes) {
		return nil, fmt.Errorf("%d bodies for %d functions", n, len(in.funcTypes))
	}
	out = binary.AppendUvarint(out, uint64(n))
	var body []byte
	for i := uint32(0); i < n && r.Err == nil; i++ {
		size := r.U32()
		code := r.Bytes(int(size))
		if r.Err != nil {
			break
		}
		t := in.funcTypes[i]
		if int(t) >= len(in.params) {
			return nil, fmt.Errorf("function %d: type %d does not exist", i, t)
		}
		var err error
		if body, err = in.body(body[:0], code, in.params[t]); err != nil {
			return nil, fmt.Errorf("function %d: %w", i, err)
		}
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out, nil
}

// body appends the rewritten function body code to out. One pass reads
// the instructions and notes the edits (checks, charges, renumbered calls)
// and each region's weight: the function and each loop, each with the
// bytes of its code outside the loops nested in it. The second copies the
// code between the edits as it is.
func (in *instrumenter) body(out, code []byte, params uint32) ([]byte, error) {
	r := &Reader{B: code}
	groups := r.Count()
	locals := uint64(params)
	for i := uint32(0); i < groups && r.Err == nil; i++ {
		locals += uint64(r.U32())
		r.ValType()
	}
	if r.Err != nil {
		return nil, fmt.Errorf("locals: %w", r.Err)
	}
	if locals >= 1<<32-1 {
		return nil, fmt.Errorf("%d locals", locals)
	}
	start := r.Off
	if err := in.scan(r); err != nil {
		return nil, err
	}
	if len(code) == 0 || code[len(code)-1] != 0x0b {
		return nil, errors.New("the body does not end with end")
	}
	if in.bulk {
		// One more i32 local, for the charges: a group appended after the
		// others keeps every existing local's index.
		out = binary.AppendUvarint(out, uint64(groups)+1)
		out = append(out, code[lebLen(code):start]...)
		out = append(out, 0x01, 0x7f)
	} else {
		out = append(out, code[:start]...)
	}
	t := uint32(locals)
	out = in.appendCheck(out, in.weights[0])
	region, at := 1, start
	for _, e := range in.edits {
		out = append(out, code[at:e.at]...)
		at = e.at
		switch e.kind {
		case editLoop:
			out = in.appendCheck(out, in.weights[region])
			region++
		case editBulk:
			out = in.appendCharge(out, t)
		case editCall:
			out = binary.AppendUvarint(append(out, code[e.at]), in.funcIndex(e.idx))
			at = e.end
		}
	}
	return append(out, code[at:]...), nil
}

// The edits of a function body, at offsets of its code.
const (
	editLoop = iota // a check after a loop's block type
	editBulk        // a charge before a bulk operation
	editCall        // a function index to renumber: code[at] is the opcode
)

type edit struct {
	at, end int // end: where the renumbered instruction ends
	kind    uint8
	idx     uint32
}

// scan reads a function's instructions from r, noting in.edits, in.weights
// (the function's region first, then its loops in order) and in.bulk.
func (in *instrumenter) scan(r *Reader) error {
	code := r.B
	in.edits, in.bulk = in.edits[:0], false
	in.sizes = append(in.sizes[:0], 0)
	open := append(in.open[:0], 0) // the region of each open block: an index in sizes
	for r.Off < len(code) {
		start := r.Off
		op := code[start]
		// The most common instructions, without immediates or with one
		// short number, are skipped here.
		switch {
		case op >= 0x45 && op <= 0xc4, op == 0x1a, op == 0x1b, op == 0x00, op == 0x01, op == 0x0f, op == 0x05:
			r.Off++
			in.sizes[open[len(open)-1]]++
			continue
		case op >= 0x20 && op <= 0x22, op == 0x0c, op == 0x0d, op == 0x41:
			if n := shortLEB(code[start+1:]); n > 0 {
				r.Off += 1 + n
				in.sizes[open[len(open)-1]] += 1 + n
				continue
			}
		}
		r.Off++
		switch op {
		case 0x10, 0x12, 0xd2: // call return_call ref.func
			idx := r.U32()
			in.edits = append(in.edits, edit{at: start, end: r.Off, kind: editCall, idx: idx})
		case 0xfc:
			if isBulk(r) {
				in.bulk = true
				in.edits = append(in.edits, edit{at: start, kind: editBulk})
			}
			fallthrough
		default:
			if err := skipImmediates(r, op, in.globals); err != nil {
				return err
			}
		}
		if r.Err != nil {
			return r.Err
		}
		region := open[len(open)-1]
		in.sizes[region] += r.Off - start
		switch op {
		case 0x03: // loop
			in.edits = append(in.edits, edit{at: r.Off, kind: editLoop})
			in.sizes = append(in.sizes, 0)
			open = append(open, len(in.sizes)-1)
		case 0x02, 0x04, 0x06, 0x1f: // block if try try_table
			open = append(open, region)
		case 0x0b, 0x18: // end, delegate (which ends a try)
			if len(open) == 1 && (op != 0x0b || r.Off != len(code)) {
				return errors.New("code after the function's end")
			}
			open = open[:len(open)-1]
		}
	}
	in.open = open
	in.weights = in.weights[:0]
	for _, n := range in.sizes {
		in.weights = append(in.weights, weight(n))
	}
	return nil
}

// shortLEB is the length of the LEB128 number at the start of b if it is
// at most 4 bytes long (any valid u32 or s32 that short), 0 otherwise.
func shortLEB(b []byte) int {
	for i := 0; i < len(b) && i < 4; i++ {
		if b[i]&0x80 == 0 {
			return i + 1
		}
	}
	return 0
}

// isBulk reports whether the 0xfc instruction whose subopcode r is at
// touches memory or a table in proportion to an operand; r does not move.
func isBulk(r *Reader) bool {
	start := r.Off
	sub := r.U32()
	r.Off, r.Err = start, nil
	switch sub {
	case 8, 10, 11, 12, 14, 15, 17: // memory.init copy fill, table.init copy grow fill
		return true
	}
	return false
}

// lebLen is the length of the LEB128 number at the start of b.
func lebLen(b []byte) int {
	for i, c := range b {
		if c&0x80 == 0 {
			return i + 1
		}
	}
	return len(b)
}

// instruction copies one instruction of a constant expression from r to
// out, with function indices renumbered.
func (in *instrumenter) instruction(out []byte, r *Reader) ([]byte, error) {
	start := r.Off
	op := r.Byte()
	switch op {
	case 0x10, 0x12, 0xd2: // call return_call ref.func
		idx := r.U32()
		return binary.AppendUvarint(append(out, op), in.funcIndex(idx)), r.Err
	}
	if err := skipImmediates(r, op, in.globals); err != nil {
		return nil, err
	}
	return append(out, r.B[start:r.Off]...), r.Err
}

// custom returns a custom section's new payload and whether to keep it.
func (in *instrumenter) custom(payload []byte) ([]byte, bool) {
	r := &Reader{B: payload}
	name := r.Name()
	switch {
	case r.Err != nil:
		return payload, true // wazero's to judge
	case strings.HasPrefix(name, ".debug_"):
		return nil, false
	case name == "name":
		out, err := in.nameSection(append([]byte(nil), payload[:r.Off]...), r)
		// An unreadable name section is dropped: it only names things.
		return out, err == nil
	}
	return payload, true
}

// nameSection renumbers the function indices of the name section's
// function (1), local (2) and label (3) subsections.
func (in *instrumenter) nameSection(out []byte, r *Reader) ([]byte, error) {
	for r.More() {
		id := r.Byte()
		sub := &Reader{B: r.Bytes(int(r.U32()))}
		if r.Err != nil {
			break
		}
		var p []byte
		switch id {
		case 1, 2, 3:
			n := sub.Count()
			p = binary.AppendUvarint(p, uint64(n))
			for i := uint32(0); i < n && sub.Err == nil; i++ {
				p = binary.AppendUvarint(p, in.funcIndex(sub.U32()))
				start := sub.Off
				if id == 1 {
					sub.Name()
				} else {
					for j, m := uint32(0), sub.Count(); j < m && sub.Err == nil; j++ {
						sub.U32()
						sub.Name()
					}
				}
				p = append(p, sub.B[start:sub.Off]...)
			}
			if sub.Err == nil && sub.Off != len(sub.B) {
				sub.Fail("trailing bytes")
			}
		default:
			p = sub.B
		}
		if sub.Err != nil {
			return nil, sub.Err
		}
		out = append(out, id)
		out = binary.AppendUvarint(out, uint64(len(p)))
		out = append(out, p...)
	}
	return out, r.Err
}

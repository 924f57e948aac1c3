package wasmbin

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Function bodies: where the checks and charges go, and the weight of each region.

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

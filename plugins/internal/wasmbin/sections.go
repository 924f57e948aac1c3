package wasmbin

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Sections other than code: the yield import, the fuel global, functions renumbered.

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

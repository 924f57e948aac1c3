package wasmbin

import "fmt"

// skipImmediates reads the immediates of opcode op (call, return_call and
// ref.func are the caller's). It refuses global indices at or past global
// (the fuel's).
func skipImmediates(r *Reader, op byte, global uint32) error {
	switch {
	case op == 0x02 || op == 0x03 || op == 0x04 || op == 0x06: // block loop if try
		blockType(r)
	case op <= 0x01 || op == 0x05 || op == 0x0a || op == 0x0b || op == 0x0f || op == 0x19 || op == 0x1a || op == 0x1b:
		// unreachable nop else throw_ref end return catch_all drop select
	case op == 0x07 || op == 0x08 || op == 0x09 || op == 0x0c || op == 0x0d || op == 0x18:
		r.U32() // catch throw rethrow br br_if delegate
	case op == 0x0e: // br_table
		n := r.Count()
		for i := uint32(0); i <= n && r.Err == nil; i++ {
			r.U32()
		}
	case op == 0x11 || op == 0x13: // call_indirect return_call_indirect
		r.U32()
		r.U32()
	case op == 0x1c: // select t*
		n := r.Count()
		for i := uint32(0); i < n && r.Err == nil; i++ {
			r.ValType()
		}
	case op == 0x1f: // try_table
		blockType(r)
		n := r.Count()
		for i := uint32(0); i < n && r.Err == nil; i++ {
			if kind := r.Byte(); kind < 2 {
				r.U32() // tag
			} else if kind > 3 {
				return fmt.Errorf("%w: try_table catch kind %d", ErrUnsupported, kind)
			}
			r.U32() // label
		}
	case op >= 0x20 && op <= 0x22: // local.get local.set local.tee
		r.U32()
	case op == 0x23 || op == 0x24: // global.get global.set
		if idx := r.U32(); r.Err == nil && idx >= global {
			return fmt.Errorf("instruction 0x%02x names global %d; the module has %d", op, idx, global)
		}
	case op == 0x25 || op == 0x26: // table.get table.set
		r.U32()
	case op >= 0x28 && op <= 0x3e: // loads and stores
		memarg(r)
	case op == 0x3f || op == 0x40: // memory.size memory.grow
		r.U32()
	case op == 0x41: // i32.const
		r.LEB(32)
	case op == 0x42: // i64.const
		r.LEB(64)
	case op == 0x43:
		r.Bytes(4)
	case op == 0x44:
		r.Bytes(8)
	case op >= 0x45 && op <= 0xc4: // numeric, no immediates
	case op == 0xd0: // ref.null heaptype
		r.LEB(33)
	case op == 0xd1: // ref.is_null
	case op == 0xfc:
		return skipFC(r)
	case op == 0xfd:
		return skipSIMD(r)
	default: // 0xfe (threads) among them: wazero's feature set refuses it

		return fmt.Errorf("%w: opcode 0x%02x", ErrUnsupported, op)
	}
	return nil
}

// blockType skips a block type as wazero reads it: 0x40, a value type,
// a type index (s33), or (ref null? heaptype) in two parts.
func blockType(r *Reader) {
	first := byte(0)
	if r.Off < len(r.B) {
		first = r.B[r.Off]
	}
	r.LEB(33)
	if first == 0x63 || first == 0x64 {
		r.LEB(33) // the heap type
	}
}

func memarg(r *Reader) {
	if align := r.U32(); align&0x40 != 0 {
		r.U32() // memory index (multi-memory)
	}
	r.LEB(64) // offset (64 bits with memory64)
}

// skipFC: saturating truncation, bulk memory and table instructions.
func skipFC(r *Reader) error {
	switch sub := r.U32(); {
	case sub <= 7: // trunc_sat
	case sub == 8 || sub == 10 || sub == 12 || sub == 14: // memory.init memory.copy table.init table.copy
		r.U32()
		r.U32()
	case sub == 9 || sub == 11 || sub == 13 || (sub >= 15 && sub <= 17): // data.drop memory.fill elem.drop table.grow/size/fill
		r.U32()
	default:
		return fmt.Errorf("%w: opcode 0xfc %d", ErrUnsupported, sub)
	}
	return nil
}

// skipSIMD: fixed-width SIMD. The subopcode is read as wazero reads it,
// one byte, followed for those of 0x80 and over by the 0x01 that ends
// their two-byte LEB128 (anything else there is refused: wazero would read
// it as the next instruction, and the two readings would part).
func skipSIMD(r *Reader) error {
	sub := uint32(r.Byte())
	if sub >= 0x80 {
		if r.Byte() != 0x01 {
			return fmt.Errorf("%w: opcode 0xfd 0x%02x not followed by 0x01", ErrUnsupported, sub)
		}
	}
	switch {
	case sub <= 11 || sub == 92 || sub == 93: // loads, store, load_zero
		memarg(r)
	case sub == 12 || sub == 13: // v128.const i8x16.shuffle
		r.Bytes(16)
	case sub >= 21 && sub <= 34: // extract_lane replace_lane
		r.Byte()
	case sub >= 84 && sub <= 91: // load_lane store_lane
		memarg(r)
		r.Byte()
	}
	return nil
}

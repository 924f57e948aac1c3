package wasmbin

import (
	"encoding/binary"
)

// The fuel checks and charges written into the code, and what they charge.

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

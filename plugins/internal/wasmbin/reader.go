// Package wasmbin reads and rewrites the WebAssembly binary format, as much
// of it as the host needs before handing a module to wazero: the imports
// and exports (to refuse a plugin with a message about the plugin rather
// than a linker error), and the code (to add the checks that let the host
// stop a guest at its deadline, see Instrument).
//
// Everything here reads untrusted bytes: no input makes it panic or
// allocate more than a small multiple of its size.
package wasmbin

import (
	"fmt"
)

// Reader reads LEB128 numbers, names and types from B starting at Off; the
// first error sticks and every later read returns zero values.
type Reader struct {
	B   []byte
	Off int
	Err error
}

// Fail records the first error, with the offset where it happened.
func (r *Reader) Fail(format string, args ...any) {
	if r.Err == nil {
		r.Err = fmt.Errorf(format+" (at byte %d)", append(args, r.Off)...)
	}
}

// More reports whether there are bytes left and no error.
func (r *Reader) More() bool { return r.Err == nil && r.Off < len(r.B) }

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if r.Err != nil {
		return 0
	}
	if r.Off >= len(r.B) {
		r.Fail("unexpected end")
		return 0
	}
	c := r.B[r.Off]
	r.Off++
	return c
}

// Bytes skips n bytes and returns them (a view).
func (r *Reader) Bytes(n int) []byte {
	if r.Err != nil {
		return nil
	}
	if n < 0 || n > len(r.B)-r.Off {
		r.Fail("unexpected end")
		return nil
	}
	b := r.B[r.Off : r.Off+n]
	r.Off += n
	return b
}

// LEB reads an unsigned (or, for skipping, signed) LEB128 number of at
// most maxBits bits.
func (r *Reader) LEB(maxBits uint) uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= maxBits+7 {
			r.Fail("LEB128 number too long")
			return 0
		}
		c := r.Byte()
		if r.Err != nil {
			return 0
		}
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		if c&0x80 == 0 {
			return v
		}
	}
}

// U32 reads an unsigned 32-bit LEB128 number.
func (r *Reader) U32() uint32 {
	v := r.LEB(32)
	if v > 0xffffffff {
		r.Fail("number over 32 bits")
		return 0
	}
	return uint32(v)
}

// Count reads a vector length, bounded by the bytes left (every element
// takes at least one), so that a hostile length cannot make a caller
// allocate.
func (r *Reader) Count() uint32 {
	n := r.U32()
	if r.Err == nil && int64(n) > int64(len(r.B)-r.Off) {
		r.Fail("vector of %d elements in %d bytes", n, len(r.B)-r.Off)
		return 0
	}
	return n
}

// Name reads a length-prefixed name.
func (r *Reader) Name() string {
	return string(r.Bytes(int(r.Count())))
}

// Limits skips a table's or memory's limits.
func (r *Reader) Limits() {
	flags := r.Byte()
	num := func() {
		if flags&0x04 != 0 {
			r.LEB(64) // memory64
		} else {
			r.U32()
		}
	}
	num()
	if flags&0x01 != 0 {
		num()
	}
}

var valTypes = map[byte]string{0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64", 0x7b: "v128", 0x70: "funcref", 0x6f: "externref"}

// ValType reads a value type and names it in text notation.
func (r *Reader) ValType() string {
	c := r.Byte()
	if t, ok := valTypes[c]; ok {
		return t
	}
	if c == 0x63 || c == 0x64 { // (ref null? heaptype), function references / GC
		r.LEB(33)
		return "ref"
	}
	r.Fail("unknown value type 0x%02x", c)
	return ""
}

// Section is one section of a module: its id and its payload (a view).
type Section struct {
	ID      byte
	Payload []byte
}

// Sections checks the header and splits a module into its sections.
func Sections(data []byte) ([]Section, error) {
	if err := CheckHeader(data); err != nil {
		return nil, err
	}
	var out []Section
	r := &Reader{B: data, Off: 8}
	for r.More() {
		id := r.Byte()
		size := r.U32()
		if r.Err != nil {
			break
		}
		if uint64(size) > uint64(len(r.B)-r.Off) {
			return nil, fmt.Errorf("section %d at byte %d: size %d runs past the end", id, r.Off, size)
		}
		out = append(out, Section{ID: id, Payload: r.B[r.Off : r.Off+int(size)]})
		r.Off += int(size)
	}
	return out, r.Err
}

// CheckHeader checks that data starts as a core module of version 1.
func CheckHeader(data []byte) error {
	if len(data) < 8 || string(data[:4]) != "\x00asm" {
		return fmt.Errorf("not a WebAssembly module (no \\0asm header)")
	}
	if v := data[4:8]; string(v) != "\x01\x00\x00\x00" {
		if v[2] != 0 || v[3] != 0 {
			return fmt.Errorf("a WebAssembly component, not a core module (build for wasm32-wasip1 or wasm32-unknown-unknown)")
		}
		return fmt.Errorf("WebAssembly binary version %d, want 1", int(v[0])|int(v[1])<<8)
	}
	return nil
}

// Section ids.
const (
	SecCustom    = 0
	SecType      = 1
	SecImport    = 2
	SecFunction  = 3
	SecGlobal    = 6
	SecExport    = 7
	SecCode      = 10
	SecDataCount = 12
	SecTag       = 13
)

// Import kinds (externtype tags).
const (
	KindFunc   = 0
	KindTable  = 1
	KindMemory = 2
	KindGlobal = 3
	KindTag    = 4
)

// ExternKinds names the import and export kinds by tag.
var ExternKinds = []string{"func", "table", "memory", "global", "tag"}

// SkipImportDesc skips the description of an import of kind.
func (r *Reader) SkipImportDesc(kind byte) {
	switch kind {
	case KindFunc:
		r.U32()
	case KindTable:
		r.ValType()
		r.Limits()
	case KindMemory:
		r.Limits()
	case KindGlobal:
		r.ValType()
		r.Byte() // mutability
	case KindTag:
		r.Byte() // attribute
		r.U32()  // type index
	default:
		r.Fail("unknown import kind %d", kind)
	}
}

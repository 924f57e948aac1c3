package plugins

import (
	"errors"
	"fmt"
	"strings"
)

// A small reader of the WebAssembly binary format: just the imports and
// exports and their function signatures. The host reads them before
// compiling so that it can refuse a plugin with a message about the plugin
// ("imports mcphost_http but is not an auth plugin") rather than a linker
// error, and so that Inspect can list them without instantiating anything.
// Everything else (code, data, validation) is left to wazero's compiler.

// Func is a function signature, in WebAssembly text notation ("i64" ...).
type Func struct {
	Params  []string `json:"params"`
	Results []string `json:"results"`
}

func (f *Func) String() string {
	if f == nil {
		return "func(?)"
	}
	s := "func(" + strings.Join(f.Params, ", ") + ")"
	switch len(f.Results) {
	case 0:
	case 1:
		s += " " + f.Results[0]
	default:
		s += " (" + strings.Join(f.Results, ", ") + ")"
	}
	return s
}

func (f *Func) is(params, results []string) bool {
	return f != nil && equalStrings(f.Params, params) && equalStrings(f.Results, results)
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Import is one import of a module.
type Import struct {
	Module string `json:"module"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`           // func, table, memory, global, tag
	Type   *Func  `json:"type,omitempty"` // functions; nil if the type section could not be read
}

// Export is one export of a module.
type Export struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Type *Func  `json:"type,omitempty"`
}

// moduleInfo is what parseModule reads.
type moduleInfo struct {
	Imports []Import
	Exports []Export
}

func (m *moduleInfo) export(name string) *Export {
	for i := range m.Exports {
		if m.Exports[i].Name == name {
			return &m.Exports[i]
		}
	}
	return nil
}

var externKinds = []string{"func", "table", "memory", "global", "tag"}

const (
	secType     = 1
	secImport   = 2
	secFunction = 3
	secExport   = 7
)

// parseModule reads the imports and exports of a core WebAssembly module.
// It never panics; any input it cannot read is an error.
func parseModule(data []byte) (*moduleInfo, error) {
	if len(data) < 8 || string(data[:4]) != "\x00asm" {
		return nil, errors.New("not a WebAssembly module (no \\0asm header)")
	}
	if v := data[4:8]; string(v) != "\x01\x00\x00\x00" {
		if v[2] != 0 || v[3] != 0 {
			return nil, errors.New("a WebAssembly component, not a core module (build for wasm32-wasip1 or wasm32-unknown-unknown)")
		}
		return nil, fmt.Errorf("WebAssembly binary version %d, want 1", int(v[0])|int(v[1])<<8)
	}
	var (
		types      []*Func
		typesOK    = true
		funcTypes  []uint32 // type index of each function, imported ones first
		info       = &moduleInfo{}
		exportIdxs []uint32
	)
	r := &reader{b: data, off: 8}
	for r.more() {
		id := r.byte()
		size := r.u32()
		if r.err != nil {
			break
		}
		if uint64(size) > uint64(len(r.b)-r.off) {
			return nil, fmt.Errorf("section %d at byte %d: size %d runs past the end", id, r.off, size)
		}
		sec := &reader{b: r.b[:r.off+int(size)], off: r.off}
		r.off += int(size)
		switch id {
		case secType:
			types, typesOK = sec.types()
		case secImport:
			n := sec.count()
			for i := uint32(0); i < n && sec.err == nil; i++ {
				imp := Import{Module: sec.name(), Name: sec.name()}
				kind := sec.byte()
				if int(kind) >= len(externKinds) {
					sec.fail("import %d: unknown kind %d", i, kind)
					break
				}
				imp.Kind = externKinds[kind]
				switch kind {
				case 0:
					t := sec.u32()
					funcTypes = append(funcTypes, t)
				case 1:
					sec.refType()
					sec.limits()
				case 2:
					sec.limits()
				case 3:
					sec.valType()
					sec.byte() // mutability
				case 4:
					sec.byte() // attribute
					sec.u32()  // type index
				}
				info.Imports = append(info.Imports, imp)
			}
		case secFunction:
			n := sec.count()
			for i := uint32(0); i < n && sec.err == nil; i++ {
				funcTypes = append(funcTypes, sec.u32())
			}
		case secExport:
			n := sec.count()
			for i := uint32(0); i < n && sec.err == nil; i++ {
				e := Export{Name: sec.name()}
				kind := sec.byte()
				idx := sec.u32()
				if sec.err == nil && int(kind) >= len(externKinds) {
					sec.fail("export %q: unknown kind %d", e.Name, kind)
				}
				if sec.err != nil {
					break
				}
				e.Kind = externKinds[kind]
				info.Exports = append(info.Exports, e)
				exportIdxs = append(exportIdxs, idx)
			}
		}
		if sec.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, sec.err)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	// Signatures, where the type section could be read.
	if typesOK {
		sig := func(t uint32) *Func {
			if int(t) < len(types) {
				return types[t]
			}
			return nil
		}
		fi := 0
		for i := range info.Imports {
			if info.Imports[i].Kind == "func" {
				info.Imports[i].Type = sig(funcTypes[fi])
				fi++
			}
		}
		for i := range info.Exports {
			if info.Exports[i].Kind == "func" && int(exportIdxs[i]) < len(funcTypes) {
				info.Exports[i].Type = sig(funcTypes[exportIdxs[i]])
			}
		}
	}
	return info, nil
}

// reader reads LEB128 numbers, names and types; the first error sticks and
// every later read returns zero values.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format+" (at byte %d)", append(args, r.off)...)
	}
}

func (r *reader) more() bool { return r.err == nil && r.off < len(r.b) }

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail("unexpected end")
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

func (r *reader) leb(maxBits uint) uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= maxBits+7 {
			r.fail("LEB128 number too long")
			return 0
		}
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
}

func (r *reader) u32() uint32 {
	v := r.leb(32)
	if v > 0xffffffff {
		r.fail("number over 32 bits")
		return 0
	}
	return uint32(v)
}

// count reads a vector length, bounded by the bytes left (every element
// takes at least one), so that a hostile length cannot make us allocate.
func (r *reader) count() uint32 {
	n := r.u32()
	if r.err == nil && int64(n) > int64(len(r.b)-r.off) {
		r.fail("vector of %d elements in %d bytes", n, len(r.b)-r.off)
		return 0
	}
	return n
}

func (r *reader) name() string {
	n := r.count()
	if r.err != nil {
		return ""
	}
	s := string(r.b[r.off : r.off+int(n)])
	r.off += int(n)
	return s
}

func (r *reader) limits() {
	flags := r.byte()
	num := func() {
		if flags&0x04 != 0 {
			r.leb(64) // memory64
		} else {
			r.u32()
		}
	}
	num()
	if flags&0x01 != 0 {
		num()
	}
}

var valTypes = map[byte]string{0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64", 0x7b: "v128", 0x70: "funcref", 0x6f: "externref"}

func (r *reader) valType() string {
	c := r.byte()
	if t, ok := valTypes[c]; ok {
		return t
	}
	if c == 0x63 || c == 0x64 { // (ref null? heaptype), function references / GC
		r.leb(33)
		return "ref"
	}
	r.fail("unknown value type 0x%02x", c)
	return ""
}

func (r *reader) refType() { r.valType() }

// types reads the type section. Anything but plain function types (GC
// proposal rec groups, struct and array types) makes it give up on
// signatures without failing: the compiler decides whether the module is
// acceptable.
func (r *reader) types() ([]*Func, bool) {
	n := r.count()
	out := make([]*Func, 0, n)
	for i := uint32(0); i < n; i++ {
		if r.byte() != 0x60 {
			r.err = nil
			return nil, false
		}
		f := &Func{}
		for _, list := range []*[]string{&f.Params, &f.Results} {
			m := r.count()
			*list = make([]string, 0, m)
			for j := uint32(0); j < m; j++ {
				*list = append(*list, r.valType())
			}
		}
		if r.err != nil {
			r.err = nil
			return nil, false
		}
		out = append(out, f)
	}
	return out, true
}

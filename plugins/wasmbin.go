package plugins

import (
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/plugins/internal/wasmbin"
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

// parseModule reads the imports and exports of a core WebAssembly module.
// It never panics; any input it cannot read is an error.
func parseModule(data []byte) (*moduleInfo, error) {
	sections, err := wasmbin.Sections(data)
	if err != nil {
		return nil, err
	}
	var (
		types      []*Func
		typesOK    = true
		funcTypes  []uint32 // type index of each function, imported ones first
		info       = &moduleInfo{}
		exportIdxs []uint32
	)
	for _, s := range sections {
		sec := &wasmbin.Reader{B: s.Payload}
		switch s.ID {
		case wasmbin.SecType:
			types, typesOK = readTypes(sec)
		case wasmbin.SecImport:
			n := sec.Count()
			for i := uint32(0); i < n && sec.Err == nil; i++ {
				imp := Import{Module: sec.Name(), Name: sec.Name()}
				kind := sec.Byte()
				if int(kind) >= len(wasmbin.ExternKinds) {
					sec.Fail("import %d: unknown kind %d", i, kind)
					break
				}
				imp.Kind = wasmbin.ExternKinds[kind]
				if kind == wasmbin.KindFunc {
					funcTypes = append(funcTypes, sec.U32())
				} else {
					sec.SkipImportDesc(kind)
				}
				info.Imports = append(info.Imports, imp)
			}
		case wasmbin.SecFunction:
			n := sec.Count()
			for i := uint32(0); i < n && sec.Err == nil; i++ {
				funcTypes = append(funcTypes, sec.U32())
			}
		case wasmbin.SecExport:
			n := sec.Count()
			for i := uint32(0); i < n && sec.Err == nil; i++ {
				e := Export{Name: sec.Name()}
				kind := sec.Byte()
				idx := sec.U32()
				if sec.Err == nil && int(kind) >= len(wasmbin.ExternKinds) {
					sec.Fail("export %q: unknown kind %d", e.Name, kind)
				}
				if sec.Err != nil {
					break
				}
				e.Kind = wasmbin.ExternKinds[kind]
				info.Exports = append(info.Exports, e)
				exportIdxs = append(exportIdxs, idx)
			}
		}
		if sec.Err != nil {
			return nil, fmt.Errorf("section %d: %w", s.ID, sec.Err)
		}
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

// readTypes reads the type section. Anything but plain function types (GC
// proposal rec groups, struct and array types) makes it give up on
// signatures without failing: the compiler decides whether the module is
// acceptable.
func readTypes(r *wasmbin.Reader) ([]*Func, bool) {
	n := r.Count()
	out := make([]*Func, 0, n)
	for i := uint32(0); i < n; i++ {
		if r.Byte() != 0x60 {
			r.Err = nil
			return nil, false
		}
		f := &Func{}
		for _, list := range []*[]string{&f.Params, &f.Results} {
			m := r.Count()
			*list = make([]string, 0, m)
			for j := uint32(0); j < m; j++ {
				*list = append(*list, r.ValType())
			}
		}
		if r.Err != nil {
			r.Err = nil
			return nil, false
		}
		out = append(out, f)
	}
	return out, true
}

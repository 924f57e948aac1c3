package kernel

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// What extism:host/env offers, with the semantics of Extism's kernel:
// loads and stores outside the memory in use read 0 and write nothing;
// length of something that is not a block is 0; alloc(0) is 0.
// config_get leaves its key block alone; var_get and var_set free theirs.
// The guest's log_* blocks are left to the guest (a PDK frees them after the
// call; freeing them here could free a block the guest reused).
func envFuncs(cfg *Config) []HostFunc {
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	fn := func(name string, params, results []api.ValueType, f func(ctx context.Context, i *Instance, s []uint64)) HostFunc {
		return HostFunc{Module: EnvModule, Name: name, Params: params, Results: results, Fn: f}
	}
	p1 := []api.ValueType{i64}
	p2 := []api.ValueType{i64, i64}
	r64 := []api.ValueType{i64}
	fns := []HostFunc{
		fn("alloc", p1, r64, func(_ context.Context, i *Instance, s []uint64) {
			i.Charge(s[0]) // a new block is cleared
			s[0] = i.mem.alloc(s[0])
		}),
		fn("free", p1, nil, func(_ context.Context, i *Instance, s []uint64) { i.freeBlock(s[0]) }),
		fn("length", p1, r64, func(_ context.Context, i *Instance, s []uint64) { s[0] = i.mem.length(s[0]) }),
		fn("length_unsafe", p1, r64, func(_ context.Context, i *Instance, s []uint64) { s[0] = i.mem.length(s[0]) }),
		fn("load_u8", p1, []api.ValueType{i32}, func(_ context.Context, i *Instance, s []uint64) {
			if b := i.mem.span(s[0], 1); b != nil {
				s[0] = uint64(b[0])
			} else {
				s[0] = 0
			}
		}),
		fn("load_u64", p1, r64, func(_ context.Context, i *Instance, s []uint64) {
			if b := i.mem.span(s[0], 8); b != nil {
				s[0] = binary.LittleEndian.Uint64(b)
			} else {
				s[0] = 0
			}
		}),
		fn("store_u8", []api.ValueType{i64, i32}, nil, func(_ context.Context, i *Instance, s []uint64) {
			if b := i.mem.span(s[0], 1); b != nil {
				b[0] = byte(s[1])
			}
		}),
		fn("store_u64", p2, nil, func(_ context.Context, i *Instance, s []uint64) {
			if b := i.mem.span(s[0], 8); b != nil {
				binary.LittleEndian.PutUint64(b, s[1])
			}
		}),
		fn("input_length", nil, r64, func(_ context.Context, i *Instance, s []uint64) { s[0] = i.inputLen }),
		fn("input_offset", nil, r64, func(_ context.Context, i *Instance, s []uint64) { s[0] = i.input }),
		fn("input_load_u8", p1, []api.ValueType{i32}, func(_ context.Context, i *Instance, s []uint64) {
			at := s[0]
			s[0] = 0
			if at < i.inputLen {
				if b := i.mem.span(i.input+at, 1); b != nil {
					s[0] = uint64(b[0])
				}
			}
		}),
		fn("input_load_u64", p1, r64, func(_ context.Context, i *Instance, s []uint64) {
			at := s[0]
			s[0] = 0
			if at < i.inputLen && i.inputLen-at >= 8 {
				if b := i.mem.span(i.input+at, 8); b != nil {
					s[0] = binary.LittleEndian.Uint64(b)
				}
			}
		}),
		fn("input_set", p2, nil, func(_ context.Context, i *Instance, s []uint64) { i.input, i.inputLen = s[0], s[1] }),
		fn("output_set", p2, nil, func(_ context.Context, i *Instance, s []uint64) { i.output, i.outputLen = s[0], s[1] }),
		fn("output_length", nil, r64, func(_ context.Context, i *Instance, s []uint64) { s[0] = i.outputLen }),
		fn("output_offset", nil, r64, func(_ context.Context, i *Instance, s []uint64) { s[0] = i.output }),
		fn("error_set", p1, nil, func(_ context.Context, i *Instance, s []uint64) { i.errOff = s[0] }),
		fn("error_get", nil, r64, func(_ context.Context, i *Instance, s []uint64) { s[0] = i.errOff }),
		fn("reset", nil, nil, func(_ context.Context, i *Instance, _ []uint64) { i.resetCall() }),
		fn("memory_bytes", nil, r64, func(_ context.Context, i *Instance, s []uint64) { s[0] = i.mem.size() }),
		fn("config_get", p1, r64, func(_ context.Context, i *Instance, s []uint64) {
			key, ok := i.mem.bytes(s[0])
			s[0] = 0
			if !ok {
				return
			}
			i.Charge(uint64(len(key))) // hashed to look it up; the value's copy is charged by put
			if v, found := cfg.Config[string(key)]; found {
				s[0] = i.mem.put([]byte(v))
			}
		}),
		fn("var_get", p1, r64, func(_ context.Context, i *Instance, s []uint64) {
			key, ok := i.mem.bytes(s[0])
			off := s[0]
			s[0] = 0
			if !ok {
				return
			}
			i.Charge(uint64(len(key)))
			v, found := i.vars[string(key)]
			i.freeBlock(off)
			if found {
				s[0] = i.mem.put(v)
			}
		}),
		fn("var_set", p2, nil, func(_ context.Context, i *Instance, s []uint64) { i.setVar(cfg.MaxVarBytes, s[0], s[1]) }),
		fn("get_log_level", nil, []api.ValueType{i32}, func(_ context.Context, _ *Instance, s []uint64) { s[0] = uint64(cfg.LogLevel) }),
		fn("http_request", p2, r64, noHTTP),
		fn("http_status_code", nil, []api.ValueType{i32}, noHTTP),
		fn("http_headers", nil, r64, noHTTP),
	}
	for level, name := range []string{"log_trace", "log_debug", "log_info", "log_warn", "log_error"} {
		level := Level(level)
		fns = append(fns, fn(name, p1, nil, func(ctx context.Context, i *Instance, s []uint64) {
			if level < cfg.LogLevel || cfg.Log == nil {
				return
			}
			if msg, ok := i.mem.bytes(s[0]); ok {
				i.Charge(uint64(len(msg)))
				cfg.Log(ctx, i, level, msg)
			}
		}))
	}
	return fns
}

// ErrNoHTTP is the trap of a guest that calls Extism's http_request.
const ErrNoHTTP = "Extism's http_request is not available (it follows redirects to any host); an auth plugin uses mcphost_http"

func noHTTP(context.Context, *Instance, []uint64) { panic(ErrNoHTTP) }

// varEntryBytes is what a variable costs against MaxVarBytes beside its
// key and value: the map's entry and the two headers, so that many tiny
// variables are held to the limit too.
const varEntryBytes = 64

func (i *Instance) setVar(limit int, keyOff, valOff uint64) {
	if limit == 0 {
		panic("var_set: variables are disabled")
	}
	key, ok := i.mem.bytes(keyOff)
	if !ok {
		return
	}
	i.Charge(uint64(len(key)))
	k := string(key)
	i.freeBlock(keyOff)
	old, had := i.vars[k]
	if valOff == 0 {
		if had {
			i.varBytes -= varEntryBytes + len(k) + len(old)
			delete(i.vars, k)
			if len(i.vars) == 0 {
				// A Go map never shrinks: let an emptied one go.
				i.vars = nil
			}
		}
		return
	}
	val, ok := i.mem.bytes(valOff)
	if !ok {
		return
	}
	i.Charge(uint64(len(val)))
	size := i.varBytes - len(old) + len(val)
	if !had {
		size += varEntryBytes + len(k)
	}
	if size > limit {
		panic(fmt.Sprintf("var_set: variables would take %d bytes, over the limit of %d", size, limit))
	}
	if i.vars == nil {
		i.vars = map[string][]byte{}
	}
	i.vars[k] = append([]byte(nil), val...)
	i.varBytes = size
	i.freeBlock(valOff)
}

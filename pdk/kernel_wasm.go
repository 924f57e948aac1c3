//go:build wasip1 || tinygo.wasm

package pdk

import (
	"encoding/binary"
	"runtime"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The Extism kernel (module extism:host/env). Memory "offsets" are addresses
// in the kernel's own memory, not in the guest's: every byte crosses by
// load/store calls, eight at a time where possible. The kernel's memory is
// reset before each call, so a block the guest forgets to free costs
// nothing beyond that call. Signatures as in Extism's go-sdk host.go (i64 is
// uint64, i32 is uint32).

//go:wasmimport extism:host/env input_length
func extismInputLength() uint64

//go:wasmimport extism:host/env input_load_u8
func extismInputLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env input_load_u64
func extismInputLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env alloc
func extismAlloc(n uint64) uint64

//go:wasmimport extism:host/env free
func extismFree(offset uint64)

//go:wasmimport extism:host/env length
func extismLength(offset uint64) uint64

//go:wasmimport extism:host/env load_u8
func extismLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env load_u64
func extismLoadU64(offset uint64) uint64

//go:wasmimport extism:host/env store_u8
func extismStoreU8(offset uint64, value uint32)

//go:wasmimport extism:host/env store_u64
func extismStoreU64(offset uint64, value uint64)

//go:wasmimport extism:host/env output_set
func extismOutputSet(offset uint64, n uint64)

//go:wasmimport extism:host/env error_set
func extismErrorSet(offset uint64)

//go:wasmimport extism:host/env config_get
func extismConfigGet(key uint64) uint64

// mcphost's host functions (abi.HostModule). Each takes ownership of the
// blocks passed to it (the host frees them); blocks it returns belong to the
// guest. The Go linker emits an import only for a function the plugin can
// reach, so a plugin that never calls HTTP does not import mcphost_http.

//go:wasmimport mcphost:host/v1 mcphost_log
func mcphostLog(level int32, msg uint64)

//go:wasmimport mcphost:host/v1 mcphost_secret
func mcphostSecret(name uint64) uint64

//go:wasmimport mcphost:host/v1 mcphost_http
func mcphostHTTP(request uint64) uint64

// Run is the body of a hook's export: it reads the input, calls the
// registered handler (see Call), and sets the output, or sets the error and
// returns 1. The hook packages call it from their //go:wasmexport function;
// a plugin declares its own export only for a hook this PDK does not know
// yet:
//
//	//go:wasmexport mcphost_newhook_v1
//	func newHook() int32 { return pdk.Run("newhook") }
func Run(hook abi.Hook) int32 {
	rc := respond(Call(hook, readInput()))
	// The Go runtime runs its background work (the GC among it) only when
	// the running goroutine yields. A reactor's export never blocks, so
	// without this the heap grows call after call.
	runtime.Gosched()
	return rc
}

//go:wasmexport mcphost_describe
func exportDescribe() int32 {
	rc := respond(describeJSON())
	runtime.Gosched()
	return rc
}

// respond hands a hook's outcome to the host: the output and 0, or the
// error message and 1.
func respond(out []byte, err error) int32 {
	if err != nil {
		msg := err.Error()
		if msg == "" {
			msg = "error without a message"
		}
		extismErrorSet(store([]byte(msg)))
		return 1
	}
	extismOutputSet(store(out), uint64(len(out)))
	return 0
}

func readInput() []byte {
	n := extismInputLength()
	buf := make([]byte, n)
	i := uint64(0)
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], extismInputLoadU64(i))
	}
	if i < n && n >= 8 {
		// The tail as one overlapping 8-byte read: byte-wise kernel calls
		// cost microseconds each under a timeout.
		binary.LittleEndian.PutUint64(buf[n-8:], extismInputLoadU64(n-8))
		return buf
	}
	for ; i < n; i++ {
		buf[i] = byte(extismInputLoadU8(i))
	}
	return buf
}

// load copies a kernel block into guest memory. Offset 0 is no block.
func load(offset uint64) []byte {
	if offset == 0 {
		return nil
	}
	n := extismLength(offset)
	buf := make([]byte, n)
	i := uint64(0)
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], extismLoadU64(offset+i))
	}
	if i < n && n >= 8 {
		binary.LittleEndian.PutUint64(buf[n-8:], extismLoadU64(offset+n-8))
		return buf
	}
	for ; i < n; i++ {
		buf[i] = byte(extismLoadU8(offset + i))
	}
	return buf
}

// store copies b into a new kernel block and returns its offset.
func store(b []byte) uint64 {
	n := uint64(len(b))
	offset := extismAlloc(n)
	i := uint64(0)
	for ; i+8 <= n; i += 8 {
		extismStoreU64(offset+i, binary.LittleEndian.Uint64(b[i:]))
	}
	if i < n && n >= 8 {
		// Rewrites a few bytes already stored, with the same values.
		extismStoreU64(offset+n-8, binary.LittleEndian.Uint64(b[n-8:]))
		return offset
	}
	for ; i < n; i++ {
		extismStoreU8(offset+i, uint32(b[i]))
	}
	return offset
}

// kernelHost is the real host.
type kernelHost struct{}

func defaultHost() host { return kernelHost{} }

// configCache keeps every config value the plugin has read. The config map
// is fixed for the life of an instance (ABI.md), and one config_get costs
// several kernel crossings (~40 µs under a timeout, measured), more than
// the rest of a small hook. A guest runs one call at a time: no lock.
var configCache = map[string]configValue{}

type configValue struct {
	value string
	ok    bool
}

func (kernelHost) config(key string) (string, bool) {
	if c, hit := configCache[key]; hit {
		return c.value, c.ok
	}
	k := store([]byte(key))
	v := extismConfigGet(k)
	extismFree(k) // config_get, unlike mcphost's functions, leaves the key to the guest
	var c configValue
	if v != 0 {
		b := load(v)
		extismFree(v)
		c = configValue{string(b), len(b) > 0}
	}
	configCache[key] = c
	return c.value, c.ok
}

func (kernelHost) secret(name string) (string, bool) {
	v := mcphostSecret(store([]byte(name)))
	if v == 0 {
		return "", false
	}
	b := load(v)
	extismFree(v)
	return string(b), len(b) > 0
}

func (kernelHost) log(level int32, msg string) {
	mcphostLog(level, store([]byte(msg)))
}

func (kernelHost) http(request []byte) []byte {
	v := mcphostHTTP(store(request))
	if v == 0 {
		// ABI.md: the host always answers with a document; be safe anyway.
		return []byte(`{"status":0,"error":"mcphost_http returned no response"}`)
	}
	b := load(v)
	extismFree(v)
	return b
}

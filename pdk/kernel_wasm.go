//go:build wasip1 || tinygo.wasm

package pdk

import (
	"runtime"
	"unsafe"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The Extism kernel (module extism:host/env). Memory "offsets" are addresses
// in the kernel's own memory, not in the guest's: bytes cross with
// mcphost_block_read and mcphost_block_write, one host call a block. The
// kernel's memory is reset before each call, so a block the guest forgets
// to free costs nothing beyond that call. Signatures as in Extism (i64 is
// uint64, i32 is uint32).

//go:wasmimport extism:host/env input_length
func extismInputLength() uint64

//go:wasmimport extism:host/env input_offset
func extismInputOffset() uint64

//go:wasmimport extism:host/env free
func extismFree(offset uint64)

//go:wasmimport extism:host/env length
func extismLength(offset uint64) uint64

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

//go:wasmimport mcphost:host/v1 mcphost_block_read
func mcphostBlockRead(block uint64, dst unsafe.Pointer, n uint32) int32

//go:wasmimport mcphost:host/v1 mcphost_block_write
func mcphostBlockWrite(src unsafe.Pointer, n uint32) uint64

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
	return read(extismInputOffset(), extismInputLength())
}

// load copies a kernel block into guest memory. Offset 0 is no block.
func load(offset uint64) []byte {
	if offset == 0 {
		return nil
	}
	return read(offset, extismLength(offset))
}

// read copies the n bytes of the kernel block at offset.
func read(offset, n uint64) []byte {
	if n == 0 {
		return nil
	}
	buf := make([]byte, n)
	if got := mcphostBlockRead(offset, unsafe.Pointer(&buf[0]), uint32(n)); got < 0 || uint64(got) != n {
		panic("pdk: mcphost_block_read failed")
	}
	return buf
}

// store copies b into a new kernel block and returns its offset (0 for no
// bytes: an empty block is no block in Extism's ABI).
func store(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	return mcphostBlockWrite(unsafe.Pointer(&b[0]), uint32(len(b)))
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

package wasmbin

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// wasmFiles are the modules of the repository's fixtures, and the built
// example plugins when MCPHOST_BUILT_PLUGINS names their directory.
func wasmFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, glob := range []string{"../../../testdata/plugins/*.wasm", "../kernel/testdata/*.wasm", "../../../internal/demo/plugins/*.wasm"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	if dir := os.Getenv("MCPHOST_BUILT_PLUGINS"); dir != "" {
		m, _ := filepath.Glob(filepath.Join(dir, "*.wasm"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no .wasm files found")
	}
	return files
}

// runtimeModule instantiates RuntimeModule with a yield that stops the
// guest once stop is set, and counts its calls.
func runtimeModule(t testing.TB, rt wazero.Runtime, stop *atomic.Bool, yields *atomic.Int64) {
	t.Helper()
	_, err := rt.NewHostModuleBuilder(RuntimeModule).NewFunctionBuilder().
		WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
			yields.Add(1)
			if stop.Load() {
				panic(sys.NewExitError(sys.ExitCodeDeadlineExceeded))
			}
			stack[0] = Quantum
		}), nil, []api.ValueType{api.ValueTypeI64}).Export(YieldFunc).
		Instantiate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
}

// instantiate instruments wasm and instantiates it with a yield that stops
// the guest once stop is set and counts its calls in yields.
func instantiate(t *testing.T, wasm []byte) (mod api.Module, stop *atomic.Bool, yields *atomic.Int64) {
	t.Helper()
	ctx := context.Background()
	out, err := Instrument(wasm)
	if err != nil {
		t.Fatal(err)
	}
	rt := wazero.NewRuntime(ctx)
	t.Cleanup(func() { rt.Close(ctx) })
	stop, yields = new(atomic.Bool), new(atomic.Int64)
	runtimeModule(t, rt, stop, yields)
	if mod, err = rt.Instantiate(ctx, out); err != nil {
		t.Fatal(err)
	}
	return mod, stop, yields
}

// Every module wazero compiles still compiles instrumented, its exports
// name the same functions, and the rewrite is deterministic.
func TestInstrumentKeepsModulesValid(t *testing.T) {
	ctx := context.Background()
	for _, path := range wasmFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rt := wazero.NewRuntime(ctx)
			defer rt.Close(ctx)
			orig, err := rt.CompileModule(ctx, data)
			if err != nil {
				t.Skipf("the original does not compile: %v", err)
			}
			out, err := Instrument(data)
			if err != nil {
				t.Fatal(err)
			}
			cm, err := rt.CompileModule(ctx, out)
			if err != nil {
				t.Fatalf("instrumented module does not compile: %v", err)
			}
			imports := cm.ImportedFunctions()
			last := imports[len(imports)-1]
			if mod, name, _ := last.Import(); mod != RuntimeModule || name != YieldFunc {
				t.Fatalf("last import %s.%s", mod, name)
			}
			for name, f := range orig.ExportedFunctions() {
				g := cm.ExportedFunctions()[name]
				want := f.Index()
				if mod, _, _ := f.Import(); mod == "" {
					want++ // a defined function: after the yield import
				}
				if g == nil || g.Index() != want || g.Name() != f.Name() || len(g.ParamTypes()) != len(f.ParamTypes()) {
					t.Fatalf("export %s: %s became %v", name, f.DebugName(), g)
				}
			}
			again, err := Instrument(data)
			if err != nil || !bytes.Equal(out, again) {
				t.Fatal("instrumenting is not deterministic")
			}
		})
	}
}

// module assembles a module from its sections (id, payload).
func module(sections ...[]byte) []byte {
	out := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		out = append(out, s[0], byte(len(s)-1))
		out = append(out, s[1:]...)
	}
	return out
}

// spinModule: (func (export "spin") (loop (br 0))) and
// (func (export "fan") (param i32) ...) calling itself twice per level with
// no loop: 2^n calls at depth n, which wazero's own loop-header checks
// never interrupt.
var spinModule = module(
	[]byte{SecType, 2, 0x60, 0, 0, 0x60, 1, 0x7f, 0},
	[]byte{SecFunction, 2, 0, 1},
	[]byte{SecExport, 2, 4, 's', 'p', 'i', 'n', 0, 0, 3, 'f', 'a', 'n', 0, 1},
	[]byte{SecCode, 2,
		7, 0, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b, // loop br 0 end end
		// if (local.get 0) { fan(n-1); fan(n-1) } end
		21, 0, 0x20, 0, 0x04, 0x40,
		0x20, 0, 0x41, 1, 0x6b, 0x10, 1,
		0x20, 0, 0x41, 1, 0x6b, 0x10, 1,
		0x0b, 0x0b},
)

// A guest that spins in a loop, or recurses without one, yields every
// Quantum checks: garbage collection can stop the world meanwhile (on two
// threads it would otherwise wait for the guest forever), and the host
// stops it at the next yield.
func TestYieldStopsLoopsAndRecursion(t *testing.T) {
	ctx := context.Background()
	mod, stop, yields := instantiate(t, spinModule)
	for _, call := range []struct {
		name string
		args []uint64
	}{{"spin", nil}, {"fan", []uint64{60}}} {
		stop.Store(false)
		before := yields.Load()
		done := make(chan error, 1)
		go func() {
			_, err := mod.ExportedFunction(call.name).Call(ctx, call.args...)
			done <- err
		}()
		for yields.Load() < before+10 {
			runtime.Gosched()
		}
		gc := make(chan struct{})
		go func() {
			runtime.GC()
			close(gc)
		}()
		select {
		case <-gc:
		case <-time.After(time.Minute):
			t.Fatalf("%s: garbage collection waited for the guest", call.name)
		}
		select {
		case err := <-done:
			t.Fatalf("%s returned before it was stopped: %v", call.name, err)
		default:
		}
		stop.Store(true)
		select {
		case err := <-done:
			var exit *sys.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
				t.Fatalf("%s: err = %v", call.name, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: not stopped", call.name)
		}
	}
}

// A bulk operation is charged by its size: a loop that fills 64 KiB per
// iteration yields every Quantum/17 iterations, not every Quantum.
func TestBulkOperationsAreCharged(t *testing.T) {
	m := module(
		[]byte{SecType, 1, 0x60, 1, 0x7f, 0},
		[]byte{SecFunction, 1, 0},
		[]byte{5, 1, 0x00, 2}, // memory: 2 pages
		[]byte{SecExport, 1, 4, 'f', 'i', 'l', 'l', 0, 0},
		[]byte{SecCode, 1, 25, 0,
			0x03, 0x40, // loop
			0x41, 0x00, 0x41, 0x00, 0x41, 0x80, 0x80, 0x04, 0xfc, 0x0b, 0x00, // memory.fill 0 0 65536
			0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, // br_if 0 (local.tee 0 (n-1))
			0x0b, 0x0b},
	)
	ctx := context.Background()
	mod, _, yields := instantiate(t, m)
	const n = 10 * Quantum
	if _, err := mod.ExportedFunction("fill").Call(ctx, n); err != nil {
		t.Fatal(err)
	}
	// 17 units an iteration (one for the check, 16 for 64 KiB).
	if got, want := yields.Load(), int64(n*17/Quantum-1); got < want {
		t.Fatalf("%d yields for %d fills of 64 KiB, want %d", got, n, want)
	}
}

func TestInstrumentRefusesTheFuelsIndex(t *testing.T) {
	// (func (i32.const 1) (global.set 0)) in a module without globals: index
	// 0 would be the fuel after instrumentation.
	m := module(
		[]byte{SecType, 1, 0x60, 0, 0},
		[]byte{SecFunction, 1, 0},
		[]byte{SecCode, 1, 6, 0, 0x41, 1, 0x24, 0, 0x0b},
	)
	if _, err := Instrument(m); err == nil {
		t.Fatal("a module that sets the fuel was instrumented")
	}
}

func TestInstrumentUnknownOpcode(t *testing.T) {
	m := module(
		[]byte{SecType, 1, 0x60, 0, 0},
		[]byte{SecFunction, 1, 0},
		[]byte{SecCode, 1, 3, 0, 0xd5, 0x0b},
	)
	if _, err := Instrument(m); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("err = %v, want ErrUnsupported", err)
	}
}

func FuzzInstrument(f *testing.F) {
	for _, path := range wasmFiles(f) {
		if data, err := os.ReadFile(path); err == nil && len(data) < 64<<10 {
			f.Add(data)
		}
	}
	f.Add(spinModule)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Instrument(data)
		if err != nil {
			return
		}
		// A loop header (2 bytes) gains a check of about 20.
		if len(out) > 16*len(data)+64 {
			t.Fatalf("%d bytes grew to %d", len(data), len(out))
		}
		if _, err := Sections(out); err != nil {
			t.Fatalf("the output does not split into sections: %v", err)
		}
	})
}

// BenchmarkInstrument: MCPHOST_BENCH_WASM names the module (default the
// largest fixture).
func BenchmarkInstrument(b *testing.B) {
	path := os.Getenv("MCPHOST_BENCH_WASM")
	if path == "" {
		path = "../../../testdata/plugins/probe.wasm"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Instrument(data); err != nil {
			b.Fatal(err)
		}
	}
}

// Every weight a check may charge is written as i64.const reads it
// (signed LEB128: Go's AppendVarint is zig-zag, and once made weights of
// 32-63 refuel the guest instead).
func TestWeightsAreSignedLEB(t *testing.T) {
	for w := int64(-70000); w <= 70000; w++ {
		b := appendSLEB(nil, w)
		r := &Reader{B: b}
		var v int64
		var shift uint
		for {
			c := r.Byte()
			v |= int64(c&0x7f) << shift
			shift += 7
			if c&0x80 == 0 {
				if shift < 64 && c&0x40 != 0 {
					v |= -1 << shift
				}
				break
			}
		}
		if r.Err != nil || r.Off != len(b) || v != w {
			t.Fatalf("%d encodes as % x, which reads %d", w, b, v)
		}
	}
}

// A loop whose body weighs 32 units (16000 bytes of code) yields like any
// other.
func TestHeavyLoopYields(t *testing.T) {
	body := []byte{0, 0x03, 0x40}
	for range 16000 {
		body = append(body, 0x01) // nop
	}
	body = append(body, 0x0c, 0x00, 0x0b, 0x0b) // br 0 end end
	code := binary.AppendUvarint([]byte{1}, uint64(len(body)))
	code = append(code, body...)
	m := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range [][]byte{
		{SecType, 1, 0x60, 0, 0},
		{SecFunction, 1, 0},
		{SecExport, 1, 4, 's', 'p', 'i', 'n', 0, 0},
	} {
		m = append(m, s[0], byte(len(s)-1))
		m = append(m, s[1:]...)
	}
	m = append(m, SecCode)
	m = binary.AppendUvarint(m, uint64(len(code)))
	m = append(m, code...)
	mod, stop, yields := instantiate(t, m)
	stop.Store(true) // the first yield stops it
	if _, err := mod.ExportedFunction("spin").Call(context.Background()); err == nil || yields.Load() != 1 {
		t.Fatalf("err %v after %d yields", err, yields.Load())
	}
}

// Encodings wazero reads otherwise than as a LEB128 number are refused, so
// that the rewriter never sees other instructions than the compiler: here
// `fd 80 02` is i16x8.abs and a block to wazero, a two-byte opcode to a
// LEB reader, and the loop behind it would go unchecked.
func TestInstrumentRefusesAmbiguousSIMD(t *testing.T) {
	body := []byte{0, 0xfd, 0x0c}
	body = append(body, make([]byte, 16)...)
	body = append(body, 0xfd, 0x80, 0x02, 0x02, 0x03, 0x02, 0x0c, 0x00, 0x0b, 0x0b, 0x1a, 0x0b)
	m := module(
		[]byte{SecType, 3, 0x60, 0, 0, 0x60, 0, 0, 0x60, 0, 0},
		[]byte{SecFunction, 1, 0},
		append([]byte{SecCode, 1, byte(len(body))}, body...),
	)
	if _, err := Instrument(m); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("err = %v, want ErrUnsupported", err)
	}
}

// A block type written in two parts, (ref null func) as 0x63 0x70, is read
// whole: the check goes after it, and the module still compiles.
func TestTwoPartBlockType(t *testing.T) {
	m := module(
		[]byte{SecType, 1, 0x60, 0, 0},
		[]byte{SecFunction, 1, 0},
		[]byte{SecCode, 1, 9, 0, 0x03, 0x63, 0x70, 0xd0, 0x70, 0x0b, 0x1a, 0x0b}, // loop (result funcref) ref.null func end drop
	)
	out, err := Instrument(m)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	var stop atomic.Bool
	var yields atomic.Int64
	runtimeModule(t, rt, &stop, &yields)
	if _, err := rt.CompileModule(ctx, out); err != nil {
		t.Fatalf("instrumented: %v", err)
	}
}

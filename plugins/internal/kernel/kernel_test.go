package kernel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero/sys"

	"github.com/mcphost/mcphost/plugins/internal/wasmbin"
)

type logLine struct {
	level Level
	msg   string
}

func compileFixture(t testing.TB, cfg Config) *Module {
	t.Helper()
	wasm, err := os.ReadFile(filepath.Join("testdata", "kernel.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.KernelBytes == 0 {
		cfg.KernelBytes = 4 << 20
	}
	m, err := Compile(context.Background(), wasm, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

func newInstance(t testing.TB, m *Module) *Instance {
	t.Helper()
	inst, err := m.Instantiate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func call(t *testing.T, inst *Instance, name string, input []byte) Outcome {
	t.Helper()
	out, err := inst.Call(context.Background(), name, input, time.Minute)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out
}

func TestEcho(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	for _, n := range []int{0, 1, 7, 8, 9, 64, 1000, 100_003} {
		in := bytes.Repeat([]byte("abcdefghijk"), n/11+1)[:n]
		for _, export := range []string{"echo", "echo_direct"} {
			out := call(t, inst, export, in)
			if out.Code != 0 || !bytes.Equal(out.Output, in) || out.Error != "" {
				t.Fatalf("%s of %d bytes: code %d, error %q, %d bytes out", export, n, out.Code, out.Error, len(out.Output))
			}
		}
	}
}

func TestGuestError(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	out := call(t, inst, "fail", nil)
	if out.Code != 1 || out.Error != "it failed" {
		t.Fatalf("got %+v", out)
	}
	// The error belongs to its call.
	if out := call(t, inst, "echo", []byte("x")); out.Error != "" {
		t.Fatalf("error survived the call: %q", out.Error)
	}
}

func TestConfig(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{Config: map[string]string{"greeting": "hi there"}}))
	if out := call(t, inst, "config", nil); out.Code != 0 || string(out.Output) != "hi there" {
		t.Fatalf("got %+v", out)
	}
	inst = newInstance(t, compileFixture(t, Config{}))
	if out := call(t, inst, "config", nil); out.Code != 3 {
		t.Fatalf("unset key: got %+v", out)
	}
}

func TestVarsPerInstance(t *testing.T) {
	m := compileFixture(t, Config{MaxVarBytes: 1024})
	a, b := newInstance(t, m), newInstance(t, m)
	for want := byte(1); want <= 3; want++ {
		if out := call(t, a, "count", nil); !bytes.Equal(out.Output, []byte{want}) {
			t.Fatalf("count %d: got %v", want, out.Output)
		}
	}
	if out := call(t, b, "count", nil); !bytes.Equal(out.Output, []byte{1}) {
		t.Fatalf("another instance shares variables: %v", out.Output)
	}
}

// Each variable costs its entry as well as its key and value, so a guest
// cannot hold the host's memory with millions of one-byte variables; an
// instance whose variables are all deleted lets the map go.
func TestVarsCountTheirEntries(t *testing.T) {
	const limit = 100 * (varEntryBytes + 3 + 1)
	inst := newInstance(t, compileFixture(t, Config{MaxVarBytes: limit}))
	set := func(key string, val []byte) (refused any) {
		defer func() { refused = recover() }()
		valOff := uint64(0)
		if val != nil {
			valOff = inst.Put(val)
		}
		inst.setVar(limit, inst.Put([]byte(key)), valOff)
		return nil
	}
	n := 0
	for ; n < 1000 && set(fmt.Sprintf("%03d", n), []byte{1}) == nil; n++ {
	}
	if n != 100 {
		t.Fatalf("%d variables of 4 bytes fit in %d bytes, want 100", n, limit)
	}
	for k := range n {
		set(fmt.Sprintf("%03d", k), nil)
	}
	if inst.vars != nil || inst.varBytes != 0 {
		t.Fatalf("after deleting every variable: %d left, %d bytes", len(inst.vars), inst.varBytes)
	}
}

func TestVarsDisabled(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	_, err := inst.Call(context.Background(), "count", nil, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "variables are disabled") {
		t.Fatalf("err = %v", err)
	}
}

func TestKernelMemoryLimit(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{KernelBytes: 8 << 20}))
	out := call(t, inst, "hog", nil)
	if out.Code != 2 || !inst.KernelRefused() {
		t.Fatalf("hog: %+v, refused %v", out, inst.KernelRefused())
	}
	if got := inst.KernelBytes(); got > 8<<20 {
		t.Fatalf("kernel memory %d over its limit", got)
	}
	// What the call held is released when it returns, down to the floor.
	if got := inst.mem.size(); got > kernelFloor {
		t.Fatalf("after the call the instance holds %d bytes of kernel memory, over the floor of %d", got, kernelFloor)
	}
	// The next call starts afresh.
	if out := call(t, inst, "echo", []byte("again")); string(out.Output) != "again" || inst.KernelRefused() {
		t.Fatalf("after hog: %+v", out)
	}
	if _, err := inst.Call(context.Background(), "echo", make([]byte, 9<<20), time.Minute); err == nil || !strings.Contains(err.Error(), "exceeds the kernel memory limit") {
		t.Fatalf("oversized input: %v", err)
	}
}

func TestOutOfBoundsIsHarmless(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	if out := call(t, inst, "oob", nil); out.Code != 0 {
		t.Fatalf("oob: %+v", out)
	}
}

func TestFreedBlockReused(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	if out := call(t, inst, "reuse", nil); out.Code != 0 {
		t.Fatalf("reuse: %+v", out)
	}
}

func TestTimeoutStopsTheGuest(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	_, err := inst.Call(context.Background(), "spin", nil, 20*time.Millisecond)
	var exit *sys.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
		t.Fatalf("err = %v", err)
	}
	if !inst.Closed() {
		t.Fatal("instance not closed after its deadline")
	}
	if _, err := inst.Call(context.Background(), "echo", nil, time.Minute); err == nil {
		t.Fatal("a closed instance answered")
	}
}

func TestCancelStopsTheGuest(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(10 * time.Millisecond)
		cancel()
	}()
	_, err := inst.Call(ctx, "spin", nil, 0)
	var exit *sys.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeContextCanceled {
		t.Fatalf("err = %v", err)
	}
}

// A module's start section runs when it is instantiated: under the
// instantiation's deadline. (module (func $s (loop (br 0))) (start $s))
func TestEndlessStartFunctionIsStopped(t *testing.T) {
	wasm := []byte("\x00asm\x01\x00\x00\x00" +
		"\x01\x04\x01\x60\x00\x00" + // type () -> ()
		"\x03\x02\x01\x00" + // one function
		"\x08\x01\x00" + // start: function 0
		"\x0a\x09\x01\x07\x00\x03\x40\x0c\x00\x0b\x0b") // loop br 0 end end
	m, err := Compile(context.Background(), wasm, Config{KernelBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = m.Instantiate(ctx)
	var exit *sys.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
		t.Fatalf("err = %v", err)
	}
}

// A module that cannot be prepared for the deadline checks is refused,
// not run with weaker ones; an invalid one is refused for what is wrong.
func TestUnstoppableModuleIsRefused(t *testing.T) {
	wasm, err := os.ReadFile(filepath.Join("testdata", "kernel.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	instrument = func([]byte) ([]byte, error) { return nil, wasmbin.ErrUnsupported }
	defer func() { instrument = wasmbin.Instrument }()
	if _, err := Compile(context.Background(), wasm, Config{KernelBytes: 1 << 20}); !errors.Is(err, ErrNotStoppable) {
		t.Fatalf("err = %v, want ErrNotStoppable", err)
	}
	if _, err := Compile(context.Background(), []byte("\x00asm\x01\x00\x00\x00\x0a"), Config{KernelBytes: 1 << 20}); err == nil || errors.Is(err, ErrNotStoppable) {
		t.Fatalf("invalid module: err = %v", err)
	}
}

func TestExtismHTTPTraps(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	_, err := inst.Call(context.Background(), "http", nil, time.Minute)
	if err == nil || !strings.Contains(err.Error(), ErrNoHTTP) {
		t.Fatalf("err = %v", err)
	}
}

func TestLogLevel(t *testing.T) {
	var lines []logLine
	inst := newInstance(t, compileFixture(t, Config{
		LogLevel: LevelInfo,
		Log: func(_ context.Context, _ *Instance, level Level, msg []byte) {
			lines = append(lines, logLine{level, string(msg)})
		},
	}))
	call(t, inst, "log", nil)
	if len(lines) != 1 || lines[0] != (logLine{LevelInfo, "hello"}) {
		t.Fatalf("log lines: %+v", lines)
	}
}

func TestUnknownExport(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	if _, err := inst.Call(context.Background(), "nope", nil, time.Minute); err == nil || !strings.Contains(err.Error(), "no exported function nope") {
		t.Fatalf("err = %v", err)
	}
}

func TestCompileNeedsKernelBytes(t *testing.T) {
	if _, err := Compile(context.Background(), nil, Config{}); err == nil {
		t.Fatal("compiled without KernelBytes")
	}
}

// The committed module is its source assembled (wabt's wat2wasm).
func TestFixtureMatchesWAT(t *testing.T) {
	wat2wasm, err := exec.LookPath("wat2wasm")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("wat2wasm not found: install Debian's wabt package")
		}
		t.Skip("wat2wasm not found")
	}
	out := filepath.Join(t.TempDir(), "kernel.wasm")
	if msg, err := exec.Command(wat2wasm, filepath.Join("testdata", "kernel.wat"), "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm: %v\n%s", err, msg)
	}
	got, _ := os.ReadFile(out)
	want, _ := os.ReadFile(filepath.Join("testdata", "kernel.wasm"))
	if !bytes.Equal(got, want) {
		t.Fatal("testdata/kernel.wasm is not kernel.wat assembled: run wat2wasm kernel.wat -o kernel.wasm in testdata")
	}
}

// BenchmarkCall is the kernel's cost of a call: an input echoed back
// through input_load_u64 and store_u64 (8 bytes a host call, as PDKs copy),
// with a timeout set.
func BenchmarkCall(b *testing.B) {
	for _, size := range []int{200, 1 << 20} {
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			inst := newInstance(b, compileFixture(b, Config{}))
			in := bytes.Repeat([]byte("x"), size)
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := inst.Call(context.Background(), "echo", in, time.Second); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Every host call is charged: a guest calling a cheap one in a loop is
// checked every 1024 calls, well before its code has spent a quantum of
// fuel (about 10,000 iterations of such a loop).
func TestHostCallsAreCharged(t *testing.T) {
	calls := 0
	inst := newInstance(t, compileFixture(t, Config{
		LogLevel: LevelInfo,
		Log:      func(context.Context, *Instance, Level, []byte) { calls++ },
	}))
	_, err := inst.Call(context.Background(), "log_loop", nil, time.Nanosecond)
	var exit *sys.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
		t.Fatalf("err = %v", err)
	}
	if calls >= chargeQuantum/hostCallCost {
		t.Fatalf("%d host calls past the deadline before a check", calls)
	}
}

// Host functions that do work in proportion to a size (alloc, block copies)
// check the deadline every MiB of it, so that a loop of them is stopped
// like any loop.
func TestChargeChecksTheDeadline(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	inst.deadline = time.Now().Add(-time.Second)
	defer func() {
		exit, ok := recover().(*sys.ExitError)
		if !ok || exit.ExitCode() != sys.ExitCodeDeadlineExceeded || inst.stopped != sys.ExitCodeDeadlineExceeded {
			t.Fatalf("recovered %v, stopped %d", exit, inst.stopped)
		}
	}()
	inst.Charge(512 << 10) // under a MiB: no check yet
	inst.Charge(512 << 10)
	t.Fatal("a MiB of work past the deadline did not stop the guest")
}

// The guest's random source gives wazero's deterministic bytes, a chunk at
// a time, each charged: a random_get past the deadline is stopped after
// its first MiB.
func TestRandomSourceIsCharged(t *testing.T) {
	inst := newInstance(t, compileFixture(t, Config{}))
	got := make([]byte, 3*workChunk+5)
	if _, err := io.ReadFull(&chargedRand{inst: inst, src: rand.New(rand.NewSource(randSeed))}, got); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, len(got))
	rand.New(rand.NewSource(randSeed)).Read(want)
	if !bytes.Equal(got, want) {
		t.Fatal("the random bytes differ from wazero's deterministic source")
	}
	inst.deadline = time.Now().Add(-time.Second)
	defer func() {
		if exit, ok := recover().(*sys.ExitError); !ok || exit.ExitCode() != sys.ExitCodeDeadlineExceeded {
			t.Fatalf("recovered %v", exit)
		}
	}()
	io.ReadFull(&chargedRand{inst: inst, src: rand.New(rand.NewSource(randSeed))}, make([]byte, 64*workChunk))
	t.Fatal("64 MiB of random bytes past the deadline were not stopped")
}

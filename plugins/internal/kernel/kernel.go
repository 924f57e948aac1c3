// Package kernel runs WebAssembly modules written against Extism's guest
// ABI (the functions a guest imports from module extism:host/env) on
// wazero, with that ABI's kernel written in Go.
//
// Extism's Go SDK keeps the kernel in a second Wasm module and reaches it
// through wazero's exported-function API: every guest call of load_u64,
// alloc or output_set, and the host's own set-up before and after a call,
// builds a new call engine (a 10 KiB stack) and, with a timeout set, starts
// a goroutine to watch the deadline. A hook call with a few hundred bytes of
// JSON makes dozens of these. Here the kernel functions are Go host
// functions over a Go slice: a guest's call of one is a function call, and
// a hook call costs one wazero call of the guest's export. See RATIONALE.md.
//
// Every module is instrumented before it is compiled (wasmbin.Instrument):
// it counts fuel down as it runs and calls the host's yield each time it
// spent a quantum, which stops it at its call's deadline or when the
// caller gave up. A module that cannot be instrumented is refused.
//
// One Module per plugin (a wazero runtime holding the compiled guest and
// the host modules); one Instance per concurrent caller. An Instance is not
// safe for concurrent use.
package kernel

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/mcphost/mcphost/plugins/internal/wasmbin"
)

// EnvModule is the import module of Extism's guest ABI.
const EnvModule = "extism:host/env"

// Level is a log level as Extism's get_log_level reports it.
type Level int32

const (
	LevelTrace Level = iota
	LevelDebug
	LevelInfo
	LevelWarn
	LevelError
)

// HostFunc is a host function offered to guests beside Extism's.
type HostFunc struct {
	Module, Name    string
	Params, Results []api.ValueType
	// Fn gets the Instance making the call, to read and write its blocks.
	// A panic in Fn traps the guest.
	Fn func(ctx context.Context, inst *Instance, stack []uint64)
}

// Config describes how a Module runs its guests.
type Config struct {
	// Cache, if set, keeps compiled code between runtimes and processes.
	Cache wazero.CompilationCache
	// MemoryLimitPages bounds the guest's linear memory (wazero's limit).
	MemoryLimitPages uint32
	// KernelBytes bounds an instance's kernel memory (its blocks: input,
	// output and what the guest allocates). Required.
	KernelBytes uint64
	// Config is what config_get returns.
	Config map[string]string
	// MaxVarBytes bounds an instance's variables (var_set); 0 disables them.
	MaxVarBytes int
	// Log receives what a guest logs with log_* at LogLevel or above. The
	// message is a view, valid during the call to Log.
	Log      func(ctx context.Context, inst *Instance, level Level, msg []byte)
	LogLevel Level
	// WASI offers wasi_snapshot_preview1 (with wazero's defaults: no
	// files, environment, arguments or sockets, output discarded, a fake
	// clock and a deterministic random source).
	WASI      bool
	HostFuncs []HostFunc
}

// Module is a compiled guest with the runtime its instances live in.
type Module struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	cfg      Config
	// initExport is the guest's initialiser (a WASI reactor's
	// _initialize, or __wasm_call_ctors), run before its first call.
	initExport string
}

// Compile compiles wasm into a new runtime with Extism's functions, WASI
// if cfg asks for it, and cfg's host functions.
func Compile(ctx context.Context, wasm []byte, cfg Config) (*Module, error) {
	if cfg.KernelBytes == 0 || cfg.KernelBytes > MaxKernelBytes {
		return nil, fmt.Errorf("kernel: KernelBytes must be from 1 to %d, not %d", uint64(MaxKernelBytes), cfg.KernelBytes)
	}
	// The guest must be stoppable: instrumented, it counts down fuel at
	// every function entry and loop header and calls the host's yield
	// each time it spent wasmbin.Quantum, which checks the call's deadline
	// and cancellation. A module that cannot be instrumented is refused:
	// wazero's own checks (WithCloseOnContextDone) would let a recursion
	// without loops run forever, and a module could choose them by using an
	// encoding the rewriter does not take.
	code, ierr := instrument(wasm)
	if ierr == nil {
		m, err := compile(ctx, code, cfg)
		if err == nil {
			return m, nil
		}
		ierr = fmt.Errorf("the module prepared for deadline checks does not compile: %w", err)
	}
	// An invalid module is refused for what is wrong with it.
	m, err := compile(ctx, wasm, cfg)
	if err != nil {
		return nil, err
	}
	m.Close(ctx)
	return nil, fmt.Errorf("%w: %v", ErrNotStoppable, ierr)
}

// ErrNotStoppable: the module cannot be prepared for mcphost's deadline
// checks.
var ErrNotStoppable = errors.New("the module cannot be prepared for deadline checks")

// instrument is wasmbin.Instrument; tests replace it.
var instrument = wasmbin.Instrument

// compile makes the runtime and compiles code into it.
func compile(ctx context.Context, code []byte, cfg Config) (*Module, error) {
	rc := wazero.NewRuntimeConfig()
	if cfg.Cache != nil {
		rc = rc.WithCompilationCache(cfg.Cache)
	}
	if cfg.MemoryLimitPages > 0 {
		rc = rc.WithMemoryLimitPages(cfg.MemoryLimitPages)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	m := &Module{rt: rt, cfg: cfg}
	fail := func(err error) (*Module, error) {
		rt.Close(ctx)
		return nil, err
	}
	if cfg.WASI {
		// WASI's functions are wazero's: a listener charges each call, by
		// its sizes and counts, as the kernel's own functions are charged.
		wctx := experimental.WithFunctionListenerFactory(ctx, wasiCharges{})
		if _, err := wasi_snapshot_preview1.Instantiate(wctx, rt); err != nil {
			return fail(fmt.Errorf("kernel: WASI: %w", err))
		}
	}
	if err := m.instantiateHostModules(ctx); err != nil {
		return fail(err)
	}
	compiled, err := rt.CompileModule(ctx, code)
	if err != nil {
		return fail(err)
	}
	m.compiled = compiled
	exports := compiled.ExportedFunctions()
	for _, name := range []string{"_initialize", "__wasm_call_ctors"} {
		if f, ok := exports[name]; ok && len(f.ParamTypes()) == 0 && len(f.ResultTypes()) == 0 {
			m.initExport = name
			break
		}
	}
	return m, nil
}

func (m *Module) instantiateHostModules(ctx context.Context) error {
	byModule := map[string][]HostFunc{
		EnvModule: envFuncs(&m.cfg),
		wasmbin.RuntimeModule: {{
			Module: wasmbin.RuntimeModule, Name: wasmbin.YieldFunc, Results: []api.ValueType{api.ValueTypeI64},
			Fn: func(_ context.Context, inst *Instance, stack []uint64) { inst.yield(stack) },
		}},
	}
	order := []string{EnvModule, wasmbin.RuntimeModule}
	for _, f := range m.cfg.HostFuncs {
		if _, ok := byModule[f.Module]; !ok {
			order = append(order, f.Module)
		}
		byModule[f.Module] = append(byModule[f.Module], f)
	}
	for _, name := range order {
		b := m.rt.NewHostModuleBuilder(name)
		for _, f := range byModule[name] {
			fn := f.Fn
			b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
				inst, _ := ctx.Value(instanceKey{}).(*Instance)
				if inst == nil {
					panic("kernel: host function called outside a call")
				}
				// Every call is charged, before it runs: a guest making
				// millions of cheap calls is stopped like any loop.
				inst.Charge(hostCallCost)
				fn(ctx, inst, stack)
			}), f.Params, f.Results).Export(f.Name)
		}
		if _, err := b.Instantiate(ctx); err != nil {
			return fmt.Errorf("kernel: host module %s: %w", name, err)
		}
	}
	return nil
}

// Close releases the runtime and every instance still open.
func (m *Module) Close(ctx context.Context) error { return m.rt.Close(ctx) }

// instanceKey carries the Instance of a call to the host functions.
type instanceKey struct{}

// Instance is one instantiation of a Module's guest.
type Instance struct {
	m    *Module
	mod  api.Module
	fns  map[string]api.Function
	init api.Function

	mem               memory
	input, inputLen   uint64
	output, outputLen uint64
	errOff            uint64
	vars              map[string][]byte
	varBytes          int
	stack             [1]uint64
	initialized       bool

	// For yield, during a call of an instrumented guest: when the call's
	// time runs out (zero: never), its caller's context, and why yield
	// stopped the guest (a sys.ExitCode*, 0 if it did not).
	deadline time.Time
	callCtx  context.Context
	stopped  uint32
	charged  uint64 // bytes of host work since the last check (Charge)

	// What the kernel memory held at the end of the last call, and whether
	// it refused an allocation, for the caller to report once it is
	// released.
	lastKernelBytes uint64
	lastRefused     bool
}

// Instantiate makes an instance. ctx may carry wazero's experimental
// memory allocator and close notifier; the guest's start section (if any)
// runs under it.
func (m *Module) Instantiate(ctx context.Context) (*Instance, error) {
	inst := &Instance{m: m, fns: map[string]api.Function{}, mem: memory{limit: m.cfg.KernelBytes}}
	inst.mem.charge = inst.Charge
	// The module's start section runs here: under ctx's deadline, which
	// yield enforces as for a call.
	inst.deadline, _ = ctx.Deadline()
	inst.callCtx = ctx
	mod, err := m.rt.InstantiateModule(context.WithValue(ctx, instanceKey{}, inst), m.compiled,
		// Anonymous, so that a runtime holds many; no start functions
		// (exports run at instantiation, such as _start): the initialiser
		// runs under the first call's deadline.
		wazero.NewModuleConfig().WithName("").WithStartFunctions().
			WithRandSource(&chargedRand{inst: inst, src: rand.New(rand.NewSource(randSeed))}))
	inst.deadline, inst.callCtx = time.Time{}, nil
	if err != nil {
		if inst.stopped != 0 {
			return nil, sys.NewExitError(inst.stopped)
		}
		return nil, err
	}
	inst.mod = mod
	if m.initExport != "" {
		inst.init = mod.ExportedFunction(m.initExport)
	}
	return inst, nil
}

// Outcome is what a call returned.
type Outcome struct {
	// Code is the export's return value (0: success).
	Code uint32
	// Output is what the guest set with output_set (a copy).
	Output []byte
	// Error is what the guest set with error_set, "" if nothing.
	Error string
	// OutputLen is the length the guest gave output_set, even when the
	// call then failed (so a caller can tell an oversized output from
	// another failure).
	OutputLen uint64
}

// Call calls the guest's export name with input, bounded by timeout (0:
// none) and ctx. A trap, a panic in a host function, a closed module or
// the deadline is an error (wazero's: a *sys.ExitError with
// sys.ExitCodeDeadlineExceeded or sys.ExitCodeContextCanceled for the last
// two); what the guest reports itself is in the Outcome.
func (i *Instance) Call(ctx context.Context, name string, input []byte, timeout time.Duration) (Outcome, error) {
	if i.mod.IsClosed() {
		return Outcome{}, errors.New("kernel: the instance is closed")
	}
	fn := i.fns[name]
	if fn == nil {
		fn = i.mod.ExportedFunction(name)
		if fn == nil {
			return Outcome{}, fmt.Errorf("kernel: no exported function %s", name)
		}
		if d := fn.Definition(); len(d.ParamTypes()) != 0 || len(d.ResultTypes()) > 1 {
			return Outcome{}, fmt.Errorf("kernel: export %s must take no parameters and return at most one value", name)
		}
		i.fns[name] = fn
	}
	i.resetCall()
	defer func() {
		// An idle instance keeps no more than a reset leaves: its blocks
		// are of no use once the output is copied.
		i.lastKernelBytes, i.lastRefused = i.mem.size(), i.mem.refused
		i.resetCall()
	}()
	if len(input) > 0 {
		if i.input = i.mem.put(input); i.input == 0 {
			return Outcome{}, fmt.Errorf("kernel: input of %d bytes exceeds the kernel memory limit of %d bytes", len(input), i.m.cfg.KernelBytes)
		}
		i.inputLen = uint64(len(input))
	}
	cctx := context.WithValue(ctx, instanceKey{}, i)
	i.deadline, i.callCtx, i.stopped, i.charged = time.Time{}, ctx, 0, 0
	if timeout > 0 {
		i.deadline = time.Now().Add(timeout)
	}
	defer func() { i.deadline, i.callCtx = time.Time{}, nil }()
	inInit, err := i.callGuest(cctx, fn)
	if i.stopped != 0 {
		// yield stopped the guest. Closing the module with the reason
		// tells a close notifier what happened, as wazero's own mechanism
		// does, and the instance is not used again.
		_ = i.mod.CloseWithExitCode(ctx, i.stopped)
		err = sys.NewExitError(i.stopped)
	}
	if inInit && err != nil {
		return Outcome{}, fmt.Errorf("initialising (%s): %w", i.m.initExport, err)
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 0 {
		// WASI proc_exit(0): a success, though the instance is now closed.
		err = nil
	}
	if err != nil {
		return Outcome{Code: 1, OutputLen: i.outputLen}, err
	}
	out := Outcome{Code: uint32(i.stack[0]), OutputLen: i.outputLen}
	if i.errOff != 0 {
		msg, ok := i.mem.bytes(i.errOff)
		if !ok {
			// The guest said it failed but its message cannot be read:
			// that is still a failure, never a success.
			return out, fmt.Errorf("kernel: error_set(%d) names no block in the kernel memory", i.errOff)
		}
		out.Error = string(msg)
	}
	if i.outputLen > 0 {
		data := i.mem.span(i.output, i.outputLen)
		if data == nil {
			return out, fmt.Errorf("kernel: output_set(%d, %d) names bytes outside the kernel memory", i.output, i.outputLen)
		}
		out.Output = append([]byte(nil), data...)
	}
	return out, nil
}

// callGuest runs the initialiser (before the first call) and fn; inInit
// reports an error of the initialiser.
func (i *Instance) callGuest(ctx context.Context, fn api.Function) (inInit bool, err error) {
	if !i.initialized {
		// Once, whatever happens: an instance whose initialiser failed is
		// not used again.
		i.initialized = true
		if i.init != nil {
			if err := i.init.CallWithStack(ctx, nil); err != nil {
				return true, err
			}
		}
	}
	i.stack[0] = 0 // stays 0 for an export without a result
	return false, fn.CallWithStack(ctx, i.stack[:])
}

// Deadline is when the call in progress runs out of time (zero: none),
// for host functions that wait (an HTTP request).
func (i *Instance) Deadline() time.Time { return i.deadline }

// What host functions are charged, in bytes of work: each host call costs
// hostCallCost, and each chargeQuantum charged checks the deadline and the
// caller's cancellation. A MiB of copying or clearing is tens of
// microseconds, as are a thousand host calls.
const (
	hostCallCost  = 1 << 10
	chargeQuantum = 1 << 20
)

// Charge accounts for n bytes of work a host function does for the guest
// (copying, clearing, hashing; the kernel charges each call as well):
// each MiB of it checks the deadline and the caller's cancellation, as a
// yield does, and stops the guest (a trap, by panicking) if either is
// due, so that a loop of host calls, cheap or costly, is stopped like any
// loop. Outside a call it never stops anything.
func (i *Instance) Charge(n uint64) {
	i.charged += n
	if i.charged >= chargeQuantum {
		i.charged = 0
		i.stopIfDue()
	}
}

// yield is the instrumented guest's call each time it spent
// wasmbin.Quantum of fuel: it stops the guest when the call's time is up
// or its caller gave up, and otherwise refuels it.
func (i *Instance) yield(stack []uint64) {
	i.stopIfDue()
	stack[0] = wasmbin.Quantum
}

// stopIfDue stops the guest (a trap, by panicking with the exit error,
// which wazero returns as it is) when the call's time is up or its caller
// gave up.
func (i *Instance) stopIfDue() {
	code := uint32(0)
	switch {
	case !i.deadline.IsZero() && !time.Now().Before(i.deadline):
		code = sys.ExitCodeDeadlineExceeded
	case i.callCtx != nil && i.callCtx.Err() != nil:
		code = sys.ExitCodeContextCanceled
		if errors.Is(i.callCtx.Err(), context.DeadlineExceeded) {
			code = sys.ExitCodeDeadlineExceeded
		}
	}
	if code != 0 {
		i.stopped = code
		panic(sys.NewExitError(code))
	}
}

func (i *Instance) resetCall() {
	i.mem.reset()
	i.input, i.inputLen, i.output, i.outputLen, i.errOff = 0, 0, 0, 0, 0
}

// Closed reports whether the instance's module was closed (after a
// deadline, a cancellation or WASI proc_exit).
func (i *Instance) Closed() bool { return i.mod.IsClosed() }

// Close releases the instance.
func (i *Instance) Close(ctx context.Context) error { return i.mod.Close(ctx) }

// GuestMemory is the guest's linear memory (nil if it has none), for host
// functions that copy to or from it.
func (i *Instance) GuestMemory() api.Memory { return i.mod.Memory() }

// KernelBytes is the kernel memory the last call held at its end, its
// blocks' bytes and records (after it, the instance holds at most
// kernelFloor).
func (i *Instance) KernelBytes() uint64 { return i.lastKernelBytes }

// kernelFloor is the most kernel memory an instance keeps between calls.
const kernelFloor = keepAtReset + keepRecordsAtReset*recordBytes

// KernelRefused reports whether an allocation was refused at KernelBytes
// during the last call.
func (i *Instance) KernelRefused() bool { return i.lastRefused }

// Block returns the content of the kernel block at off (a view, valid
// until the call returns) and whether off is a block.
func (i *Instance) Block(off uint64) ([]byte, bool) { return i.mem.bytes(off) }

// Free frees the kernel block at off.
func (i *Instance) Free(off uint64) { i.freeBlock(off) }

// Put copies data into a new kernel block and returns its offset, or 0 if
// data is empty or does not fit.
func (i *Instance) Put(data []byte) uint64 { return i.mem.put(data) }

func (i *Instance) freeBlock(off uint64) {
	i.mem.free(off)
	if off != 0 && off == i.input {
		// As Extism's kernel does: the input is gone.
		i.inputLen = 0
	}
}

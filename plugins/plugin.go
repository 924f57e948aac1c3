package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/tetratelabs/wazero/sys"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/safefile"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins/internal/kernel"
)

const (
	// maxWasmBytes bounds the file read at load. A Go guest is ~3.5 MB.
	maxWasmBytes = 128 << 20
	// maxVarBytes bounds an instance's Extism variables (var_set); 1 MiB
	// is Extism's own default. Vars live in one instance of the pool, so a
	// plugin cannot use them as state shared between calls.
	maxVarBytes = 1 << 20
	// maxGuestMessage caps a guest's error message and log line.
	maxGuestMessage = 4 << 10
	mib             = 1 << 20
)

// minInitTimeout bounds making an instance: the start function, the
// guest's initialiser (a Go guest's runtime start) and the describe check.
// It is max(timeout_ms, minInitTimeout), so that a tight timeout_ms does not
// fail every new instance of a Go plugin. A variable for the fuzz test.
var minInitTimeout = 5 * time.Second

// Plugin is one loaded plugin: a compiled module, a bounded pool of
// instances and the hook adapters. It implements host.PolicyStage,
// host.FilterStage, host.NameStage, host.TransformStage and host.AuthStage;
// which of them the chain uses is Hooks(). A Plugin that failed to load
// (Err() != nil) still implements them all, and every call fails with its
// load error, so that with on_error deny a broken plugin denies rather than
// lets calls through.
//
// It is safe for concurrent use: each call takes an instance of its own
// (an instance is not thread-safe).
type Plugin struct {
	name        string
	spec        config.Plugin
	log         hclog.Logger
	size        int64
	sha         string
	info        *moduleInfo
	desc        *abi.Description
	hooks       []abi.Hook
	hookSet     map[abi.Hook]bool
	limits      config.PluginLimits
	maxInput    int64
	initTimeout time.Duration
	client      *http.Client // auth plugins only: mcphost_http
	guard       *httpGuard
	cache       *Cache
	ownsCache   bool
	compiled    *kernel.Module
	pool        *pool
	loadErr     *Error
	loadTime    time.Duration

	closeOnce   sync.Once
	closeErr    error
	runtimeOnce sync.Once
	runtimeErr  error

	calls, failures, faults, created, discarded atomic.Int64
}

// instance is one instance of the guest, used by one call at a time.
type instance struct {
	k     *kernel.Instance
	t     *tracker
	desc  *abi.Description
	calls int
}

func (i *instance) close() {
	// Closing never fails in a way the host could act on; a closed module
	// reports an error we do not need.
	_ = i.k.Close(context.Background())
}

// Open loads one plugin described by spec (see SpecForFile to make one for
// a file). On error the Plugin is nil; the error is an *Error of KindLoad
// naming the plugin and the problem. The caller closes the Plugin.
func Open(ctx context.Context, spec *config.Plugin, opts Options) (*Plugin, error) {
	cache, owned := opts.openCache()
	p := load(ctx, spec, opts, cache, owned)
	if p.loadErr != nil {
		err := p.loadErr
		p.Close(context.Background())
		return nil, err
	}
	return p, nil
}

// load makes a Plugin from spec; on failure the Plugin has loadErr set and
// holds nothing to close but the cache it may own.
func load(ctx context.Context, spec *config.Plugin, opts Options, cache *Cache, ownsCache bool) *Plugin {
	start := time.Now()
	p := &Plugin{
		name:      spec.Name,
		spec:      *spec,
		limits:    spec.Limits,
		cache:     cache,
		ownsCache: ownsCache,
	}
	if p.name == "" {
		p.name = "unnamed"
	}
	def := config.DefaultPluginLimits()
	if p.limits.Timeout <= 0 {
		p.limits.Timeout = def.Timeout
	}
	if p.limits.MemoryMB <= 0 {
		p.limits.MemoryMB = def.MemoryMB
	}
	if p.limits.MaxOutputBytes <= 0 {
		p.limits.MaxOutputBytes = def.MaxOutputBytes
	}
	p.maxInput = int64(p.limits.MemoryMB) * mib / 2
	p.initTimeout = max(p.limits.Timeout, minInitTimeout)
	p.log = opts.logger().Named(p.name)
	if err := p.load(ctx, opts); err != nil {
		p.loadErr = err
		if p.pool != nil {
			p.pool.close(ctx)
		}
		p.closeRuntime()
	}
	p.loadTime = time.Since(start)
	return p
}

// loadError is a load failure; its message names the file.
func (p *Plugin) loadError(format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if p.spec.Path != "" {
		msg = p.spec.Path + ": " + msg
	}
	return &Error{Plugin: p.name, Kind: KindLoad, Msg: msg}
}

func (p *Plugin) load(ctx context.Context, opts Options) *Error {
	spec := &p.spec
	if spec.Err != nil {
		return &Error{Plugin: p.name, Kind: KindLoad, Msg: "invalid configuration: " + spec.Err.Error(), Err: spec.Err}
	}
	if spec.Untrusted {
		return p.loadError("not loaded: it comes from a project file that has not been trusted (mcphost trust)")
	}
	if spec.Path == "" {
		return p.loadError("no path")
	}
	data, err := readWasm(spec.Path)
	if err != nil {
		return &Error{Plugin: p.name, Kind: KindLoad, Msg: err.Error(), Err: err}
	}
	p.size = int64(len(data))
	sum := sha256.Sum256(data)
	p.sha = hex.EncodeToString(sum[:])
	// The pin is checked before anything reads the module's content.
	if spec.SHA256 != "" && !strings.EqualFold(spec.SHA256, p.sha) {
		return p.loadError("sha256 mismatch: the configuration pins %s but the file's is %s (if the file was changed on purpose, update the pin)", strings.ToLower(spec.SHA256), p.sha)
	}
	info, err := parseModule(data)
	if err != nil {
		return p.loadError("%v", err)
	}
	p.info = info

	exported := exportedHooks(info)
	for _, h := range spec.Hooks {
		if !exported[h] {
			return p.loadError("does not export %s, but the configuration lists hook %s", h.Export(), h)
		}
	}
	// mcphost_http is given to auth plugins only. Which hooks a plugin has
	// is only known after describe, which needs the compiled module, which
	// needs its host functions: decide from the configuration, or from the
	// exports when the configuration does not list hooks, and check against
	// describe below.
	wantsAuth := slices.Contains(spec.Hooks, abi.HookAuth) || (len(spec.Hooks) == 0 && exported[abi.HookAuth])
	if err := checkImports(info, wantsAuth); err != nil {
		return p.loadError("%v", err)
	}
	for _, name := range append([]string{abi.ExportDescribe}, exportNames(exported)...) {
		e := info.export(name)
		if e == nil {
			return p.loadError("no %s export: not an mcphost plugin (ABI v%d)", abi.ExportDescribe, abi.Version)
		}
		if e.Kind != "func" {
			return p.loadError("export %s is a %s, not a function", name, e.Kind)
		}
		if e.Type != nil && !e.Type.is(nil, []string{"i32"}) {
			return p.loadError("export %s has type %s, want func() i32", name, e.Type)
		}
	}
	if len(spec.AllowedHosts) > 0 && !wantsAuth {
		return p.loadError("allowed_hosts is set but the plugin has no auth hook (only auth plugins may make HTTP requests)")
	}
	if wantsAuth {
		p.guard = &httpGuard{allowed: spec.AllowedHosts, allowPrivate: spec.AllowPrivate}
		p.client = p.guard.client()
	}
	for _, imp := range info.Imports {
		if imp.Module == extismEnv && strings.HasPrefix(imp.Name, "http_") {
			p.log.Warn("the plugin imports Extism's "+imp.Name+", which mcphost does not allow: a call of it fails the hook (use mcphost_http in an auth plugin)", "import", imp.Name)
			break
		}
	}

	guestConfig := make(map[string]string, len(spec.Config))
	for k, v := range spec.Config {
		guestConfig[k] = v
	}
	compiled, err := kernel.Compile(ctx, data, kernel.Config{
		Cache: p.cache.c,
		// memory_mb is enforced exactly by the instances' allocator
		// (tracker), which can tell that a grow was refused. wazero's own
		// limit, at twice the cap, is a backstop.
		MemoryLimitPages: uint32(min(2*p.limits.MemoryMB*(mib/65536), 65536)),
		// The kernel's blocks (input, output, what the guest allocates)
		// are held to the same cap as the guest's own memory.
		KernelBytes: uint64(p.limits.MemoryMB) * mib,
		Config:      guestConfig,
		MaxVarBytes: maxVarBytes,
		Log:         p.extismLog,
		LogLevel:    kernel.LevelTrace,
		// Go guests need WASI: wazero's defaults give them no filesystem,
		// environment, arguments or sockets, discard stdout and stderr, and
		// a fake clock and deterministic random source.
		WASI:      true,
		HostFuncs: p.hostFunctions(wantsAuth),
	})
	if err != nil {
		return p.loadError("compiling: %v", firstLine(err.Error()))
	}
	p.compiled = compiled
	p.pool = newPool(opts.poolSize(), p.newInstance)

	// The first instance checks that the plugin starts and describes itself.
	inst, gerr := p.pool.get(ctx)
	if gerr != nil {
		e := asError(p.name, "", gerr)
		e.Kind, e.Msg = KindLoad, spec.Path+": first instance: "+e.Msg
		return e
	}
	p.pool.put(inst, true)
	return p.checkDescription(inst.desc, exported)
}

func readWasm(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, maxWasmBytes)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, fmt.Errorf("%s: larger than %d MiB", path, maxWasmBytes/mib)
	}
	return data, err
}

func exportedHooks(info *moduleInfo) map[abi.Hook]bool {
	out := map[abi.Hook]bool{}
	for _, h := range abi.Hooks {
		if e := info.export(h.Export()); e != nil {
			out[h] = true
		}
	}
	return out
}

func exportNames(hooks map[abi.Hook]bool) []string {
	var out []string
	for _, h := range abi.Hooks {
		if hooks[h] {
			out = append(out, h.Export())
		}
	}
	return out
}

// Import modules a plugin may use.
const (
	extismEnv = "extism:host/env"
	wasiP1    = "wasi_snapshot_preview1"
)

// extismEnvFuncs are the functions Extism defines in extism:host/env.
var extismEnvFuncs = map[string]bool{
	"alloc": true, "free": true, "load_u8": true, "input_load_u8": true, "store_u64": true,
	"store_u8": true, "input_set": true, "output_set": true, "input_length": true,
	"input_offset": true, "output_length": true, "output_offset": true, "length": true,
	"length_unsafe": true, "reset": true, "error_set": true, "error_get": true,
	"memory_bytes": true, "input_load_u64": true, "load_u64": true, "config_get": true,
	"var_get": true, "var_set": true, "http_request": true, "http_status_code": true,
	"http_headers": true, "get_log_level": true, "log_trace": true, "log_debug": true,
	"log_info": true, "log_warn": true, "log_error": true,
}

// hostFuncTypes are the signatures of mcphost's host functions.
var hostFuncTypes = map[string]*Func{
	abi.FuncLog:        {Params: []string{"i32", "i64"}},
	abi.FuncSecret:     {Params: []string{"i64"}, Results: []string{"i64"}},
	abi.FuncHTTP:       {Params: []string{"i64"}, Results: []string{"i64"}},
	abi.FuncBlockRead:  {Params: []string{"i64", "i32", "i32"}, Results: []string{"i32"}},
	abi.FuncBlockWrite: {Params: []string{"i32", "i32"}, Results: []string{"i64"}},
}

// checkImports refuses imports the host does not provide, with a message
// about the plugin rather than a link error at instantiation.
func checkImports(info *moduleInfo, auth bool) error {
	for _, imp := range info.Imports {
		if imp.Kind != "func" {
			return fmt.Errorf("imports a %s (%s %s); mcphost provides only functions", imp.Kind, imp.Module, imp.Name)
		}
		switch imp.Module {
		case extismEnv:
			if !extismEnvFuncs[imp.Name] {
				return fmt.Errorf("imports %s from %s, which Extism does not define", imp.Name, imp.Module)
			}
		case wasiP1:
			// wazero checks the names and types of WASI functions.
		case abi.HostModule:
			want, ok := hostFuncTypes[imp.Name]
			if !ok {
				return fmt.Errorf("imports %s from %s, which ABI v%d does not define (known: %s, %s, %s, %s, %s)", imp.Name, imp.Module, abi.Version, abi.FuncLog, abi.FuncSecret, abi.FuncHTTP, abi.FuncBlockRead, abi.FuncBlockWrite)
			}
			if imp.Type != nil && !imp.Type.is(want.Params, want.Results) {
				return fmt.Errorf("imports %s with type %s, want %s", imp.Name, imp.Type, want)
			}
			if imp.Name == abi.FuncHTTP && !auth {
				return fmt.Errorf("imports %s, which only auth plugins are given (the plugin has no auth hook)", abi.FuncHTTP)
			}
		default:
			return fmt.Errorf("imports %s from module %q; mcphost provides only %s, %s and %s", imp.Name, imp.Module, extismEnv, abi.HostModule, wasiP1)
		}
	}
	return nil
}

// checkDescription validates what mcphost_describe returned and fixes the
// plugin's effective hooks.
func (p *Plugin) checkDescription(d *abi.Description, exported map[abi.Hook]bool) *Error {
	if d.ABI != abi.Version {
		return p.loadError("ABI version %d is not supported (mcphost speaks ABI v%d; rebuild the plugin with a matching PDK)", d.ABI, abi.Version)
	}
	if strings.TrimSpace(d.Name) == "" {
		return p.loadError("%s: the description has no name", abi.ExportDescribe)
	}
	described := map[abi.Hook]bool{}
	for _, h := range d.Hooks {
		if !h.Valid() {
			return p.loadError("%s lists hook %q, which ABI v%d does not have", abi.ExportDescribe, h, abi.Version)
		}
		if described[h] {
			return p.loadError("%s lists hook %s twice", abi.ExportDescribe, h)
		}
		if !exported[h] {
			return p.loadError("describes hook %s but does not export %s", h, h.Export())
		}
		described[h] = true
	}
	hooks := p.spec.Hooks
	for _, h := range hooks {
		if !described[h] {
			return p.loadError("the configuration lists hook %s, but the plugin describes only %s", h, HookList(d.Hooks))
		}
	}
	if len(hooks) == 0 {
		hooks = d.Hooks
	}
	if len(hooks) == 0 {
		return p.loadError("%s lists no hooks", abi.ExportDescribe)
	}
	hooks = sortHooks(hooks)
	if p.spec.OnError == config.OnErrorFallback && (len(hooks) != 1 || hooks[0] != abi.HookMapNames) {
		return p.loadError("on_error fallback is only for map_names, but the plugin's hooks are %s", HookList(hooks))
	}
	auth := slices.Contains(hooks, abi.HookAuth)
	if len(p.spec.AllowedHosts) > 0 && !auth {
		return p.loadError("allowed_hosts is set but the plugin has no auth hook (its hooks are %s)", HookList(hooks))
	}
	if !auth {
		for _, imp := range p.info.Imports {
			if imp.Module == abi.HostModule && imp.Name == abi.FuncHTTP {
				return p.loadError("imports %s, which only auth plugins are given (its hooks are %s)", abi.FuncHTTP, HookList(hooks))
			}
		}
	}
	p.desc = d
	p.hooks = hooks
	p.hookSet = map[abi.Hook]bool{}
	for _, h := range hooks {
		p.hookSet[h] = true
	}
	return nil
}

// sortHooks orders hooks as abi.Hooks (pipeline order).
func sortHooks(hooks []abi.Hook) []abi.Hook {
	out := append([]abi.Hook(nil), hooks...)
	rank := map[abi.Hook]int{}
	for i, h := range abi.Hooks {
		rank[h] = i
	}
	sort.SliceStable(out, func(i, j int) bool { return rank[out[i]] < rank[out[j]] })
	return out
}

// HookList writes hooks for a message: "policy, auth", or "none".
func HookList(hooks []abi.Hook) string {
	if len(hooks) == 0 {
		return "none"
	}
	s := make([]string, len(hooks))
	for i, h := range hooks {
		s[i] = string(h)
	}
	return strings.Join(s, ", ")
}

// newInstance makes an instance and calls mcphost_describe on it: that runs
// the guest's initialiser (the kernel does it before the first call) under the
// init timeout rather than the first hook call's timeout_ms, and checks
// that the instance works before any hook uses it.
func (p *Plugin) newInstance(ctx context.Context) (*instance, error) {
	t := &tracker{limit: uint64(p.limits.MemoryMB) * mib}
	ictx, cancel := context.WithTimeout(t.with(ctx), p.initTimeout)
	defer cancel()
	k, err := p.compiled.Instantiate(ictx)
	if err != nil {
		e := &Error{Plugin: p.name, Kind: KindTrap, Err: err}
		var exit *sys.ExitError
		switch {
		case ctx.Err() != nil:
			e.Kind, e.Msg, e.Err = KindCanceled, "canceled: "+ctx.Err().Error(), ctx.Err()
		case errors.As(err, &exit) && exit.ExitCode() == sys.ExitCodeDeadlineExceeded:
			e.Kind, e.Msg = KindTimeout, fmt.Sprintf("instantiating took longer than %s (a start function that does not return?)", p.initTimeout)
		case errors.As(err, &exit):
			e.Kind, e.Msg = KindExit, fmt.Sprintf("instantiating: exited with code %d", exit.ExitCode())
		default:
			e.Msg = "instantiating: " + strings.TrimPrefix(firstLine(err.Error()), "instantiating module: ")
		}
		return nil, e
	}
	p.created.Add(1)
	inst := &instance{k: k, t: t}
	if over, size := t.initialOverCap(); over {
		inst.close()
		p.discarded.Add(1)
		return nil, &Error{Plugin: p.name, Kind: KindMemory, Msg: fmt.Sprintf("exceeded memory_mb %d: the module declares %.1f MiB of initial memory", p.limits.MemoryMB, float64(size)/mib)}
	}
	out, healthy, cerr := p.run(ctx, inst, "", abi.ExportDescribe, nil, p.initTimeout,
		fmt.Sprintf("%s (with the guest's initialiser) took longer than %s", abi.ExportDescribe, p.initTimeout))
	if cerr == nil && int64(len(out)) > p.limits.MaxOutputBytes {
		cerr = &Error{Plugin: p.name, Kind: KindOutput, Msg: fmt.Sprintf("%s: output of %d bytes exceeds max_output_bytes %d", abi.ExportDescribe, len(out), p.limits.MaxOutputBytes)}
	}
	if cerr == nil {
		var d abi.Description
		if err := strictUnmarshal(out, &d); err != nil {
			cerr = &Error{Plugin: p.name, Kind: KindOutput, Msg: fmt.Sprintf("%s: %v", abi.ExportDescribe, err)}
		} else {
			inst.desc = &d
		}
	}
	if cerr != nil {
		if !healthy {
			p.discarded.Add(1)
		}
		inst.close()
		if !strings.HasPrefix(cerr.Msg, abi.ExportDescribe) && cerr.Kind != KindTimeout {
			cerr.Msg = abi.ExportDescribe + ": " + cerr.Msg
		}
		return nil, cerr
	}
	return inst, nil
}

// Name is the plugin's name (the stage name).
func (p *Plugin) Name() string { return p.name }

// StageName implements host.Stage.
func (p *Plugin) StageName() string { return p.name }

// Path is the plugin's file.
func (p *Plugin) Path() string { return p.spec.Path }

// SHA256 is the hash of the file as loaded ("" if it could not be read).
func (p *Plugin) SHA256() string { return p.sha }

// Size is the file's size in bytes.
func (p *Plugin) Size() int64 { return p.size }

// Description is what mcphost_describe returned (nil if not loaded).
func (p *Plugin) Description() *abi.Description {
	if p.desc == nil {
		return nil
	}
	d := *p.desc
	d.Hooks = append([]abi.Hook(nil), p.desc.Hooks...)
	return &d
}

// Hooks are the hooks the chain should use: the configured ones, or every
// hook the plugin describes. For a plugin that failed to load: the
// configured hooks, or every hook of the ABI when none are configured (the
// plugin's hooks are unknown, so it fails closed everywhere).
func (p *Plugin) Hooks() []abi.Hook {
	switch {
	case p.loadErr == nil:
		return append([]abi.Hook(nil), p.hooks...)
	case len(p.spec.Hooks) > 0:
		return sortHooks(p.spec.Hooks)
	}
	return append([]abi.Hook(nil), abi.Hooks...)
}

// Spec is the configuration the plugin was loaded from.
func (p *Plugin) Spec() config.Plugin { return p.spec }

// Limits are the limits in force (defaults filled in).
func (p *Plugin) Limits() config.PluginLimits { return p.limits }

// Err is the load error (an *Error of KindLoad), or nil.
func (p *Plugin) Err() error {
	if p.loadErr == nil {
		return nil
	}
	return p.loadErr
}

// LoadDuration is how long loading took (read, hash, compile, first
// instance).
func (p *Plugin) LoadDuration() time.Duration { return p.loadTime }

// Stats counts a plugin's calls and instances.
type Stats struct {
	Calls              int64 // hook calls (Invoke and the typed methods)
	Failures           int64 // calls that returned an error of any kind
	Faults             int64 // of which traps, timeouts, out of memory, exits
	InstancesCreated   int64
	InstancesDiscarded int64 // thrown away after a fault
	Idle               int   // instances waiting in the pool now
}

// Stats returns the plugin's counters.
func (p *Plugin) Stats() Stats {
	s := Stats{
		Calls:              p.calls.Load(),
		Failures:           p.failures.Load(),
		Faults:             p.faults.Load(),
		InstancesCreated:   p.created.Load(),
		InstancesDiscarded: p.discarded.Load(),
	}
	if p.pool != nil {
		s.Idle = len(p.pool.idle)
	}
	return s
}

// Close waits (until ctx ends) for calls in flight, then releases every
// instance and the compiled module. Calls after Close fail with KindClosed.
func (p *Plugin) Close(ctx context.Context) error {
	p.closeOnce.Do(func() {
		if p.pool != nil {
			p.pool.close(ctx)
		}
		p.closeErr = p.closeRuntime()
		if p.ownsCache && p.cache != nil {
			if err := p.cache.Close(); err != nil && p.closeErr == nil {
				p.closeErr = err
			}
		}
	})
	return p.closeErr
}

func (p *Plugin) closeRuntime() error {
	p.runtimeOnce.Do(func() {
		if p.compiled != nil {
			p.runtimeErr = p.compiled.Close(context.Background())
		}
		if p.client != nil {
			p.client.CloseIdleConnections()
		}
	})
	return p.runtimeErr
}

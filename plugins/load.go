package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcphost/mcphost/internal/safefile"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins/internal/kernel"
)

// Loading a plugin: reading, pinning and checking the module, then compiling it.

// Open loads one plugin described by spec (see SpecForFile to make one for
// a file). On error the Plugin is nil; the error is an *Error of KindLoad
// naming the plugin and the problem. The caller closes the Plugin.
func Open(ctx context.Context, spec *Spec, opts Options) (*Plugin, error) {
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
func load(ctx context.Context, spec *Spec, opts Options, cache *Cache, ownsCache bool) *Plugin {
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
	def := DefaultLimits()
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
	if spec.Blocked != "" {
		return p.loadError("not loaded: %s", spec.Blocked)
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

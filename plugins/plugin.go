package plugins

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins/internal/kernel"
)

// A loaded plugin: what it holds, what it reports as a stage, and closing it.

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
// instances and the hook adapters. It implements abi.PolicyStage,
// abi.FilterStage, abi.NameStage, abi.TransformStage and abi.AuthStage;
// which of them the chain uses is Hooks(). A Plugin that failed to load
// (Err() != nil) still implements them all, and every call fails with its
// load error, so that with on_error deny a broken plugin denies rather than
// lets calls through.
//
// It is safe for concurrent use: each call takes an instance of its own
// (an instance is not thread-safe).
type Plugin struct {
	name        string
	spec        Spec
	log         hclog.Logger
	size        int64
	sha         string
	info        *moduleInfo
	desc        *abi.Description
	hooks       []abi.Hook
	hookSet     map[abi.Hook]bool
	limits      Limits
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

// Name is the plugin's name (the stage name).
func (p *Plugin) Name() string { return p.name }

// StageName implements abi.Stage.
func (p *Plugin) StageName() string { return p.name }

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

// Spec is the spec the plugin was loaded from.
func (p *Plugin) Spec() Spec { return p.spec }

// Limits are the limits in force (defaults filled in).
func (p *Plugin) Limits() Limits { return p.limits }

// Err is the load error (an *Error of KindLoad), or nil.
func (p *Plugin) Err() error {
	if p.loadErr == nil {
		return nil
	}
	return p.loadErr
}

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

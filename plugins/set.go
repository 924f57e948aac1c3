package plugins

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Set is the plugins of a configuration, loaded, in chain order.
type Set struct {
	plugins   []*Plugin // trusted entries, loaded or failed, in chain order
	status    []Status  // every entry, untrusted included
	cache     *Cache
	ownsCache bool
	closeOnce sync.Once
	closeErr  error
}

// Status describes one configured plugin after Load.
type Status struct {
	Name   string
	Path   string
	Source string // the config file of the entry
	// SHA256 and Size are those of the file as read ("" and 0 if unread).
	SHA256 string
	Size   int64
	// Description is what mcphost_describe returned (nil if not loaded).
	Description *abi.Description
	// Hooks are the hooks the chain uses (see Plugin.Hooks).
	Hooks []abi.Hook
	// Untrusted: from a project file not yet trusted; not loaded, not in
	// the chain. Err is nil for such entries.
	Untrusted bool
	// Blocked is Spec.Blocked: not loaded, not in the chain.
	Blocked string
	// Err is why the plugin did not load (an *Error of KindLoad). Its stage
	// is still in the chain and fails every call.
	Err          error
	LoadDuration time.Duration
}

// Load loads every plugin of specs, in parallel. A plugin
// that fails to load does not stop the others: its Status has Err, and it
// is still in Plugins, and so in the chain, as a stage that fails every call, so that on_error
// decides (deny by default). Untrusted entries are skipped. Load itself
// fails only when ctx is already done.
// The caller closes the Set.
func Load(ctx context.Context, specs []*Spec, opts Options) (*Set, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &Set{status: make([]Status, len(specs))}
	s.cache, s.ownsCache = opts.openCache()
	loaded := make([]*Plugin, len(specs))
	var wg sync.WaitGroup
	// Compiling is CPU-bound; more at once would only compete.
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for i, spec := range specs {
		if spec == nil {
			continue
		}
		if spec.Untrusted || spec.Blocked != "" {
			s.status[i] = Status{Name: spec.Name, Path: spec.Path, Source: spec.Source, Untrusted: spec.Untrusted, Blocked: spec.Blocked, Hooks: spec.Hooks}
			continue
		}
		wg.Add(1)
		go func(i int, spec *Spec) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			loaded[i] = load(ctx, spec, opts, s.cache, false)
		}(i, spec)
	}
	wg.Wait()
	for i, p := range loaded {
		if p == nil {
			continue
		}
		s.plugins = append(s.plugins, p)
		if p.loadErr != nil {
			// At info: the caller reports Status (mcphost prints one
			// warning per plugin that did not load); at the usual
			// warn level the reason would be said twice.
			opts.logger().Info("plugin not loaded; its hooks fail every call", "plugin", p.name, "error", p.loadErr)
		}
		s.status[i] = Status{
			Name:         p.name,
			Path:         p.spec.Path,
			Source:       p.spec.Source,
			SHA256:       p.sha,
			Size:         p.size,
			Description:  p.Description(),
			Hooks:        p.Hooks(),
			Err:          p.Err(),
			LoadDuration: p.loadTime,
		}
	}
	var compact []Status
	for i, st := range s.status {
		if specs[i] != nil {
			compact = append(compact, st)
		}
	}
	s.status = compact
	return s, nil
}

// Plugins returns the plugins in chain order (untrusted entries left out,
// failed ones included).
func (s *Set) Plugins() []*Plugin { return append([]*Plugin(nil), s.plugins...) }

// Status describes every configured plugin, in configuration order.
func (s *Set) Status() []Status { return append([]Status(nil), s.status...) }

// Err joins the load errors of the plugins that failed, or is nil.
func (s *Set) Err() error {
	var errs []error
	for _, p := range s.plugins {
		if p.loadErr != nil {
			errs = append(errs, p.loadErr)
		}
	}
	return errors.Join(errs...)
}

// Close closes every plugin (waiting until ctx ends for calls in flight)
// and the compilation cache the Set opened.
func (s *Set) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		var errs []error
		var wg sync.WaitGroup
		errc := make(chan error, len(s.plugins))
		for _, p := range s.plugins {
			wg.Add(1)
			go func(p *Plugin) {
				defer wg.Done()
				errc <- p.Close(ctx)
			}(p)
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			if err != nil {
				errs = append(errs, err)
			}
		}
		if s.ownsCache {
			if err := s.cache.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

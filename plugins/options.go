package plugins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/tetratelabs/wazero"
)

// Options configure Load and Open. The zero value works: no logging, the
// compilation cache in the user's cache directory, the default pool size.
type Options struct {
	// Logger receives the plugins' own log lines (mcphost_log), each through
	// a logger named after the plugin, and the runtime's warnings. nil: none.
	Logger hclog.Logger
	// Cache is a compilation cache to share (e.g. between the Sets of a
	// process that reloads its config). When nil, Load and Open make one
	// from CacheDir and close it with the Set or Plugin.
	Cache *Cache
	// CacheDir is the directory of the on-disk compilation cache. "" means
	// mcphost/wazero under os.UserCacheDir() (~/.cache/mcphost/wazero on
	// Linux); if that cannot be used, the cache is in memory only.
	CacheDir string
	// PoolSize bounds the instances of each plugin, that is its concurrent
	// calls (more calls wait for a free instance). 0 means
	// min(2*GOMAXPROCS, 8).
	PoolSize int
}

func (o Options) logger() hclog.Logger {
	if o.Logger == nil {
		return hclog.NewNullLogger()
	}
	return o.Logger
}

func (o Options) poolSize() int {
	if o.PoolSize > 0 {
		return o.PoolSize
	}
	return min(2*runtime.GOMAXPROCS(0), 8)
}

// defaultCacheDir is where compiled plugins are cached:
// os.UserCacheDir()/mcphost/wazero (on Linux $XDG_CACHE_HOME/mcphost/wazero
// or ~/.cache/mcphost/wazero). wazero keys entries by its version, the
// CPU's features and the hash of the module as compiled (the plugin
// instrumented for its deadline), so a changed plugin or a new mcphost is
// compiled anew. NewCache refuses a directory others could write to.
func defaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("plugins: no user cache directory: %w", err)
	}
	return filepath.Join(d, "mcphost", "wazero"), nil
}

// Cache is a wazero compilation cache, shared by every plugin compiled with
// it: a plugin loaded again (the next run, another Set, the same file under
// two names) is not compiled again.
type Cache struct {
	c    wazero.CompilationCache
	dir  string
	once sync.Once
}

// NewCache opens a compilation cache in dir (created if missing, mode
// 0700). dir "" gives an in-memory cache.
var diskCacheMu sync.Mutex

func NewCache(dir string) (*Cache, error) {
	if dir == "" {
		return &Cache{c: wazero.NewCompilationCache()}, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("plugins: compilation cache: %w", err)
	}
	if err := checkPrivateDir(dir); err != nil {
		return nil, fmt.Errorf("plugins: compilation cache: %w", err)
	}
	// wazero fills a lazily cached version string without locking the
	// first time a disk cache is made: serialise.
	diskCacheMu.Lock()
	c, err := wazero.NewCompilationCacheWithDir(dir)
	diskCacheMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("plugins: compilation cache %s: %w", dir, err)
	}
	return &Cache{c: c, dir: dir}, nil
}

// Dir is the cache's directory, "" for an in-memory cache.
func (c *Cache) Dir() string { return c.dir }

// Close releases the cache. Plugins compiled with it must be closed first.
func (c *Cache) Close() error {
	var err error
	c.once.Do(func() { err = c.c.Close(context.Background()) })
	return err
}

// openCache returns opts.Cache, or a new cache from CacheDir (falling back
// to memory, with a warning, when the directory cannot be used) that the
// caller owns.
func (o Options) openCache() (c *Cache, owned bool) {
	if o.Cache != nil {
		return o.Cache, false
	}
	dir := o.CacheDir
	if dir == "" {
		d, err := defaultCacheDir()
		if err != nil {
			o.logger().Warn("plugins: compiling without an on-disk cache", "error", err)
		}
		dir = d
	}
	if dir != "" {
		c, err := NewCache(dir)
		if err == nil {
			return c, true
		}
		o.logger().Warn("plugins: compiling without an on-disk cache", "error", err)
	}
	c, _ = NewCache("")
	return c, true
}

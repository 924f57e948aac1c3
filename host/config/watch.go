package config

import (
	"context"
	"crypto/sha256"
	"path/filepath"
	"time"
)

// WatchedFiles lists every file Load reads with opts when it exists: the
// managed file in each format and the managed.d fragments, the global
// file in each format, the project files, the local file of the
// work directory in each format and the --config file. (The env_file of a
// server is not watched.)
// A file that does not exist yet is listed too, so that creating it counts
// as a change.
func WatchedFiles(opts LoadOptions) ([]string, error) {
	r, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	var out []string
	if r.managedDir != "" {
		for _, ext := range fileExts {
			out = append(out, filepath.Join(r.managedDir, managedBase+ext))
		}
		// The fragments there now: Run lists them again at every look,
		// so that a new one counts as a change.
		frags, _ := managedFragments(filepath.Join(r.managedDir, managedDropIn))
		out = append(out, frags...)
	}
	if r.globalDir != "" {
		for _, ext := range fileExts {
			out = append(out, filepath.Join(r.globalDir, globalBase+ext))
		}
	}
	for _, name := range projectFiles() {
		out = append(out, filepath.Join(r.workDir, name))
	}
	if r.globalDir != "" {
		dir, base := filepath.Join(r.globalDir, localDirName), localBase(r.workDir)
		for _, ext := range fileExts {
			out = append(out, filepath.Join(dir, base+ext))
		}
	}
	if r.configFile != "" {
		out = append(out, r.configFile)
	}
	return out, nil
}

// DefaultWatchInterval is how often Watch looks at the files.
const DefaultWatchInterval = time.Second

// Watcher notices changes to the configuration files. It compares them
// with how they were when it was made: make it before loading the
// configuration it is to watch, and an edit made in between is seen as a
// change, never missed.
type Watcher struct {
	opts   LoadOptions
	files  []string
	loaded [sha256.Size]byte
}

// NewWatcher takes a snapshot of WatchedFiles(opts).
func NewWatcher(opts LoadOptions) (*Watcher, error) {
	files, err := WatchedFiles(opts)
	if err != nil {
		return nil, err
	}
	return &Watcher{opts: opts, files: files, loaded: fingerprint(files)}, nil
}

// Run calls onChange with a freshly loaded configuration (or the error of
// loading it) each time the content of the watched files differs from the
// last one loaded (at first, the snapshot), looking every interval
// (DefaultWatchInterval if 0), until ctx ends. A change is loaded once the
// files have stayed the same for an interval, so that an editor (or a
// program) writing a file in several steps is not caught half-way. Editors
// that save by renaming a new file over the old one are seen too: files
// are compared by content. A file that cannot be read counts as absent.
// Run is not for concurrent use.
func (w *Watcher) Run(ctx context.Context, interval time.Duration, onChange func(*Config, error)) error {
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	seen, seenAt := w.loaded, time.Now()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if files, err := WatchedFiles(w.opts); err == nil {
			w.files = files
		}
		now := fingerprint(w.files)
		if now != seen {
			seen, seenAt = now, time.Now()
			continue
		}
		if now == w.loaded || time.Since(seenAt) < interval {
			continue
		}
		w.loaded = now
		onChange(Load(w.opts))
	}
}

// Watch is NewWatcher and Run: it watches from the moment it is called.
func Watch(ctx context.Context, opts LoadOptions, interval time.Duration, onChange func(*Config, error)) error {
	w, err := NewWatcher(opts)
	if err != nil {
		return err
	}
	return w.Run(ctx, interval, onChange)
}

// fingerprint hashes the names and contents of the files that exist.
func fingerprint(files []string) [sha256.Size]byte {
	h := sha256.New()
	for _, f := range files {
		data, err := readConfigFile(f)
		if err != nil {
			continue
		}
		h.Write([]byte(f))
		h.Write([]byte{0})
		h.Write(data)
		h.Write([]byte{0})
	}
	var sum [sha256.Size]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

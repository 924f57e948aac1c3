package config

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"time"
)

// WatchedFiles lists every file Load reads with opts when it exists: the
// global file in each format, the project files and the --config file.
// A file that does not exist yet is listed too, so that creating it counts
// as a change.
func WatchedFiles(opts LoadOptions) ([]string, error) {
	r, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	var out []string
	if r.globalDir != "" {
		for _, ext := range fileExts {
			out = append(out, filepath.Join(r.globalDir, globalBase+ext))
		}
	}
	for _, name := range projectFiles() {
		out = append(out, filepath.Join(r.workDir, name))
	}
	if r.configFile != "" {
		out = append(out, r.configFile)
	}
	return out, nil
}

// DefaultWatchInterval is how often Watch looks at the files.
const DefaultWatchInterval = time.Second

// Watch calls onChange with a freshly loaded configuration (or the error of
// loading it) each time the content of one of WatchedFiles(opts) changes,
// looking every interval (DefaultWatchInterval if 0), until ctx ends. A
// change is loaded once the files have stayed the same for an interval.
// Editors that save by renaming a new file over the old one are seen too:
// files are compared by content, not by handle. A file that cannot be read
// counts as absent.
func Watch(ctx context.Context, opts LoadOptions, interval time.Duration, onChange func(*Config, error)) error {
	files, err := WatchedFiles(opts)
	if err != nil {
		return err
	}
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	loaded := fingerprint(files)
	seen, seenAt := loaded, time.Now()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		// A change is loaded once it has held for a whole interval: an
		// editor (or a program) writing a file in several steps must not
		// be caught half-way.
		now := fingerprint(files)
		if now != seen {
			seen, seenAt = now, time.Now()
			continue
		}
		if now == loaded || time.Since(seenAt) < interval {
			continue
		}
		loaded = now
		onChange(Load(opts))
	}
}

// fingerprint hashes the names and contents of the files that exist.
func fingerprint(files []string) [sha256.Size]byte {
	h := sha256.New()
	for _, f := range files {
		data, err := os.ReadFile(f)
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

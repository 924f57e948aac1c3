package pinstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/mcphost/mcphost/internal/safefile"
)

// FileVersion is the version of the store's format this package reads and
// writes.
const FileVersion = 1

// Bounds on what a store holds. A definition over MaxDefinitionBytes is
// pinned by its fingerprint alone (a change is still caught, but the diff
// cannot show it); a store over MaxFileBytes is refused rather than read
// or written.
const (
	MaxDefinitionBytes = 256 << 10
	MaxFileBytes       = 64 << 20
	// MaxToolsPerServer bounds one server's pins (a server lists at most
	// 50,000 tools to the host).
	MaxToolsPerServer = 50_000
)

// lockWait is how long a writer waits for another process's write.
const lockWait = 10 * time.Second

// Pin is one approved tool.
type Pin struct {
	Fingerprint string    `json:"fingerprint"`
	ApprovedAt  time.Time `json:"approved_at"`
	// Definition is what was approved, for the diff; nil when it was over
	// MaxDefinitionBytes (TooLarge says how large it was).
	Definition *Definition `json:"definition,omitempty"`
	TooLarge   int         `json:"too_large,omitempty"`
}

// ServerPins are the pins of one server identity.
type ServerPins struct {
	ID        string          `json:"id"`
	Transport string          `json:"transport,omitempty"`
	Target    string          `json:"target,omitempty"`
	Tools     map[string]*Pin `json:"tools"`
}

// File is the store's document.
type File struct {
	Version int `json:"version"`
	// Servers are keyed by Identity.Key.
	Servers map[string]*ServerPins `json:"servers"`
}

// Parse decodes a store file. name is the file, for messages; no error
// quotes the file's content.
func Parse(name string, data []byte) (*File, error) {
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("pinstore: %s is %d bytes, over the limit of %d MiB; %s", name, len(data), MaxFileBytes>>20, fixHint(name))
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		what := "is not valid JSON"
		switch {
		case errors.As(err, &syn):
			what = fmt.Sprintf("is not valid JSON (at byte %d)", syn.Offset)
		case errors.As(err, &typ):
			what = fmt.Sprintf("is not a pin store (field %q has the wrong type)", typ.Field)
		}
		return nil, fmt.Errorf("pinstore: %s %s; %s", name, what, fixHint(name))
	}
	if dec.More() {
		return nil, fmt.Errorf("pinstore: %s has data after its JSON document; %s", name, fixHint(name))
	}
	if f.Version != FileVersion {
		return nil, fmt.Errorf("pinstore: %s has version %d, this mcphost reads version %d; %s", name, f.Version, FileVersion, fixHint(name))
	}
	if f.Servers == nil {
		f.Servers = map[string]*ServerPins{}
	}
	for key, sp := range f.Servers {
		if sp == nil {
			return nil, fmt.Errorf("pinstore: %s: server entry %q is null; %s", name, key, fixHint(name))
		}
		if len(sp.Tools) > MaxToolsPerServer {
			return nil, fmt.Errorf("pinstore: %s: server %q has %d pinned tools, over the limit of %d; %s", name, sp.ID, len(sp.Tools), MaxToolsPerServer, fixHint(name))
		}
		if sp.Tools == nil {
			sp.Tools = map[string]*Pin{}
		}
		for tool, p := range sp.Tools {
			if p == nil || p.Fingerprint == "" {
				return nil, fmt.Errorf("pinstore: %s: tool %q of server %q has no fingerprint; %s", name, tool, sp.ID, fixHint(name))
			}
		}
	}
	return &f, nil
}

func fixHint(name string) string {
	return fmt.Sprintf("mcphost refuses to use it rather than trust every tool anew: restore it from a backup, or move it away (every server's tools are then pinned again when next listed), e.g. mv %s %s.broken", name, name)
}

// Store is a pin file, shared safely by concurrent processes: reads are
// bounded, writes are atomic and made under a lock.
type Store struct {
	Path string
	// LockDir holds the lock of Path (safefile.LockIn); "": beside Path.
	LockDir string
}

// Stamp tells whether the file changed since it was read: a cheap stat.
type Stamp struct {
	ModTime time.Time
	Size    int64
	Exists  bool
}

// Stat is the file's stamp now.
func (s *Store) Stat() Stamp {
	fi, err := os.Stat(s.Path)
	if err != nil {
		return Stamp{}
	}
	return Stamp{ModTime: fi.ModTime(), Size: fi.Size(), Exists: true}
}

// Load reads the store; a missing file is an empty store.
func (s *Store) Load() (*File, Stamp, error) {
	stamp := s.Stat()
	f, err := ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return &File{Version: FileVersion, Servers: map[string]*ServerPins{}}, stamp, nil
	}
	return f, stamp, err
}

// ReadFile reads and parses the store file at path (a managed pin file
// too). A missing file wraps fs.ErrNotExist.
func ReadFile(path string) (*File, error) {
	data, err := safefile.ReadFile(path, MaxFileBytes)
	if err != nil {
		if errors.Is(err, safefile.ErrTooLarge) {
			return nil, fmt.Errorf("pinstore: %s is over the limit of %d MiB; %s", path, MaxFileBytes>>20, fixHint(path))
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("pinstore: %w", err)
	}
	return Parse(path, data)
}

// Update reads the store, lets edit change it and writes it back, under
// the lock: two processes approving at once do not lose a write.
func (s *Store) Update(edit func(*File) error) error {
	var (
		unlock func()
		err    error
	)
	if s.LockDir != "" {
		unlock, err = safefile.LockIn(s.LockDir, s.Path, lockWait)
	} else {
		if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
			return fmt.Errorf("pinstore: %s: %w", s.Path, err)
		}
		unlock, err = safefile.Lock(s.Path, lockWait)
	}
	if err != nil {
		return fmt.Errorf("pinstore: locking %s: %w", s.Path, err)
	}
	defer unlock()
	f, _, err := s.Load()
	if err != nil {
		return err
	}
	if err := edit(f); err != nil {
		return err
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("pinstore: encoding %s: %w", s.Path, err)
	}
	if len(data) > MaxFileBytes {
		return fmt.Errorf("pinstore: %s would be %d bytes, over the limit of %d MiB: nothing was written; remove the pins of servers you no longer use", s.Path, len(data), MaxFileBytes>>20)
	}
	if err := safefile.WriteAtomicPrivate(s.Path, append(data, '\n')); err != nil {
		return fmt.Errorf("pinstore: writing %s: %w", s.Path, err)
	}
	return nil
}

// NewPin pins d as approved at now. A definition over MaxDefinitionBytes
// is pinned by its fingerprint alone, and TooLarge says so.
func NewPin(d Definition, now time.Time) (*Pin, error) {
	fp, err := Fingerprint(d)
	if err != nil {
		return nil, err
	}
	p := &Pin{Fingerprint: fp, ApprovedAt: now.UTC().Truncate(time.Second)}
	size := len(d.Name) + len(d.Title) + len(d.Description) + len(d.InputSchema) + len(d.OutputSchema) + len(d.Annotations)
	if size > MaxDefinitionBytes {
		p.TooLarge = size
	} else {
		dc := d
		p.Definition = &dc
	}
	return p, nil
}

// Set records pins for the tools of the server with identity id.
func (f *File) Set(id Identity, pins map[string]*Pin) error {
	key := id.Key()
	sp := f.Servers[key]
	if sp == nil {
		sp = &ServerPins{ID: id.ID, Transport: id.Transport, Target: id.Target(), Tools: map[string]*Pin{}}
		if f.Servers == nil {
			f.Servers = map[string]*ServerPins{}
		}
		f.Servers[key] = sp
	}
	for name, p := range pins {
		sp.Tools[name] = p
	}
	if len(sp.Tools) > MaxToolsPerServer {
		return fmt.Errorf("pinstore: server %q would have %d pinned tools, over the limit of %d", id.ID, len(sp.Tools), MaxToolsPerServer)
	}
	return nil
}

// SortedServers are the store's servers by id, then key.
func (f *File) SortedServers() []*ServerPins {
	keys := make([]string, 0, len(f.Servers))
	for k := range f.Servers {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := f.Servers[keys[i]], f.Servers[keys[j]]
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return keys[i] < keys[j]
	})
	out := make([]*ServerPins, len(keys))
	for i, k := range keys {
		out[i] = f.Servers[k]
	}
	return out
}

// Count is the number of servers and of tools pinned.
func (f *File) Count() (servers, tools int) {
	for _, sp := range f.Servers {
		servers++
		tools += len(sp.Tools)
	}
	return servers, tools
}

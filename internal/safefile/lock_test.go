//go:build unix || windows

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A second editor of the same file waits, then gets ErrBusy (which
// host/config re-exports), and gets the lock once the first lets go.
func TestLockIsExclusive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	unlock, err := Lock(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(path, 0); !errors.Is(err, ErrBusy) {
		t.Fatalf("second Lock while held: %v, want ErrBusy", err)
	}
	unlock()
	unlock2, err := Lock(path, 0)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	unlock2()
}

// Two writers of one file in a lock directory exclude each other; the lock
// is in that directory, nothing beside the file; the same base name in
// another project has a lock of its own.
func TestLockInExcludesWritersOfOneFile(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state", "locks")
	project, other := t.TempDir(), t.TempDir()
	path := filepath.Join(project, ".mcphost.yaml")
	unlock, err := LockIn(state, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LockIn(state, path, 0); !errors.Is(err, ErrBusy) {
		t.Fatalf("second writer while held: %v, want ErrBusy", err)
	}
	unlockOther, err := LockIn(state, filepath.Join(other, ".mcphost.yaml"), 0)
	if err != nil {
		t.Fatalf("another project's file of the same name: %v", err)
	}
	unlockOther()
	unlock()
	unlock2, err := LockIn(state, path, 0)
	if err != nil {
		t.Fatalf("LockIn after unlock: %v", err)
	}
	unlock2()
	for _, dir := range []string{project, other} {
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%s holds %v, want nothing", dir, entries)
		}
	}
	entries, err := os.ReadDir(state)
	if err != nil || len(entries) != 2 {
		t.Fatalf("lock directory holds %v (%v), want one lock per file", entries, err)
	}
	if name := entries[0].Name(); !strings.HasPrefix(name, "mcphost.yaml-") || !strings.HasSuffix(name, ".lock") {
		t.Errorf("lock named %q, want mcphost.yaml-<hash>.lock", name)
	}
}

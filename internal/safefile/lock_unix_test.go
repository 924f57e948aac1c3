//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/userdirs"
)

// The lock directory is made private, and a symbolic link planted at a
// lock's name (or a directory others may write to) is refused rather than
// followed.
func TestLockInRefusesWhatItWouldFollow(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, "state", "locks")
	path := filepath.Join(root, "project", ".mcphost.yaml")
	unlock, err := LockIn(state, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("lock directory: %v, mode %v, want 0700", err, fi.Mode().Perm())
	}

	victim := filepath.Join(root, "victim")
	other := filepath.Join(root, "other", "config.yaml")
	if err := os.Symlink(victim, filepath.Join(state, userdirs.KeyedName(other)+".lock")); err != nil {
		t.Fatal(err)
	}
	if _, err := LockIn(state, other, 0); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("lock at a symbolic link: %v, want a refusal", err)
	}
	if _, err := os.Lstat(victim); err == nil {
		t.Fatal("the link's target was created")
	}

	open := filepath.Join(root, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := LockIn(open, path, 0); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Fatalf("lock directory writable by others: %v, want a refusal", err)
	}
}

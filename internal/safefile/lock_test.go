//go:build unix || windows

package safefile

import (
	"errors"
	"path/filepath"
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

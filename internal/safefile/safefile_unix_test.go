//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO with no writer would block a plain open for ever, and /dev/zero
// never ends: both are refused at once.
func TestReadFileRefusesFIFOAndDevices(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	linkToFIFO := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(fifo, linkToFIFO); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, linkToFIFO, "/dev/zero", "/dev/urandom"} {
		_, err := ReadFile(p, 4<<20)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("ReadFile(%s): %v, want not a regular file", p, err)
		}
	}
}

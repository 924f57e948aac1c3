//go:build unix

package plugins

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A plugin path that is not a regular file (a FIFO nobody writes to, a
// device that never ends) is refused at once with an error naming the
// plugin and the path, instead of blocking the load or reading without
// end; a symlink to a regular file is followed.
func TestPluginFileMustBeRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.wasm")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	toFIFO := filepath.Join(dir, "to-fifo.wasm")
	if err := os.Symlink(fifo, toFIFO); err != nil {
		t.Fatal(err)
	}
	good, err := filepath.Abs(fixture("allow-all"))
	if err != nil {
		t.Fatal(err)
	}
	toGood := filepath.Join(dir, "to-good.wasm")
	if err := os.Symlink(good, toGood); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct{ path, want string }{
		{fifo, "not a regular file"},
		{toFIFO, "not a regular file"},
		{"/dev/zero", "not a regular file"},
	} {
		s := spec("odd", "allow-all")
		s.Path = tc.path
		opts, _ := testOptions(t)
		// Before the check this blocked forever (FIFO) or read without
		// end (/dev/zero): the generous bound turns that into a failure.
		done := make(chan error, 1)
		go func() {
			p, err := Open(ctx(t), s, opts)
			if p != nil {
				p.Close(ctx(t))
			}
			done <- err
		}()
		select {
		case err := <-done:
			wantError(t, err, KindLoad, `plugins: plugin "odd": `, tc.path, tc.want)
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: Open did not return", tc.path)
		}
	}

	s := spec("linked", "allow-all")
	s.Path = toGood
	opts, _ := testOptions(t)
	p, err := Open(ctx(t), s, opts)
	if err != nil {
		t.Fatalf("a symlink to a plugin file: %v", err)
	}
	p.Close(ctx(t))
}

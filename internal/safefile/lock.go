//go:build unix || windows

package safefile

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// lockWith is Lock's loop around a system's non-blocking lock call: try
// reports whether another process holds the lock (busy) or failed (err);
// release undoes a lock try took.
func lockWith(path string, wait time.Duration, try func(*os.File) (busy bool, err error), release func(*os.File)) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	lp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	deadline := time.Now().Add(wait)
	for {
		busy, err := try(f)
		switch {
		case err != nil:
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		case !busy:
			return func() {
				release(f)
				f.Close()
			}, nil
		case time.Now().After(deadline):
			f.Close()
			return nil, fmt.Errorf("%s: %w (waited %s); try again", path, ErrBusy, wait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

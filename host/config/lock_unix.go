//go:build unix

package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockWait bounds how long an edit waits for another mcphost editing the
// same file.
const lockWait = 10 * time.Second

// ErrBusy: another process holds a configuration file's lock.
var ErrBusy = errors.New("another mcphost is editing it")

// lockFile takes an exclusive advisory lock for editing path: a flock on
// .NAME.lock beside it (the file itself is replaced by a rename, so its own
// lock would not outlive the edit). The lock file stays (removing it would
// race with a waiting process). It waits at most lockWait.
func lockFile(path string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	lp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("config: locking %s: %w", path, err)
	}
	deadline := time.Now().Add(lockWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("config: locking %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("config: %s: %w (waited %s); try again", path, ErrBusy, lockWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

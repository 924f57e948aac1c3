//go:build unix || windows

package safefile

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mcphost/mcphost/internal/userdirs"
)

// Lock takes an exclusive advisory lock for a read-modify-write of path: a
// lock on .NAME.lock beside it (path itself is replaced by a rename, so its
// own lock would not outlive the write). For files in the user's own
// directories; a file that may lie in a project is locked with LockIn. The
// lock file stays (removing it would race with a waiting process). It waits
// at most wait, then fails with ErrBusy.
func Lock(path string, wait time.Duration) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return lockFile(path, filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock"), wait)
}

// LockIn is Lock with the lock file in dir (the user's state directory),
// named after path (userdirs.KeyedName), instead of beside path: nothing is
// left in a project, where it would be committed, and a project cannot
// choose where the lock is written. dir is created private (0700); an
// existing one that others may write to, or a symbolic link at the lock's
// name, is refused.
func LockIn(dir, path string, wait time.Duration) (unlock func(), err error) {
	if err := PrivateDir(dir); err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return lockFile(path, filepath.Join(dir, userdirs.KeyedName(path)+".lock"), wait)
}

// lockFile locks the lock file lp for path, waiting at most wait.
func lockFile(path, lp string, wait time.Duration) (unlock func(), err error) {
	f, err := openLock(lp)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	deadline := time.Now().Add(wait)
	for {
		busy, err := tryLock(f)
		switch {
		case err != nil:
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		case !busy:
			return func() {
				releaseLock(f)
				f.Close()
			}, nil
		case time.Now().After(deadline):
			f.Close()
			return nil, fmt.Errorf("%s: %w (waited %s); try again", path, ErrBusy, wait)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

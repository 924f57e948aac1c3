//go:build unix

package safefile

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Lock takes an exclusive advisory lock for a read-modify-write of path: a
// flock on .NAME.lock beside it (path itself is replaced by a rename, so its
// own lock would not outlive the write). The lock file stays (removing it
// would race with a waiting process). It waits at most wait, then fails
// with ErrBusy.
func Lock(path string, wait time.Duration) (unlock func(), err error) {
	return lockWith(path, wait, func(f *os.File) (bool, error) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
			return true, nil
		}
		return false, err
	}, func(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) })
}

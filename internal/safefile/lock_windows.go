//go:build windows

package safefile

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// Lock takes an exclusive lock for a read-modify-write of path: LockFileEx
// on .NAME.lock beside it, as flock does on Unix. It waits at most wait,
// then fails with ErrBusy.
func Lock(path string, wait time.Duration) (unlock func(), err error) {
	return lockWith(path, wait, func(f *os.File) (bool, error) {
		err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return true, nil
		}
		return false, err
	}, func(f *os.File) { _ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped)) })
}

//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// tryLock takes a flock without waiting: busy when another holds it.
func tryLock(f *os.File) (busy bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
		return true, nil
	}
	return false, err
}

func releaseLock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// openLock opens (creating) a lock file without following a symbolic link
// at its name: the lock is never taken on, nor creates, a file elsewhere.
func openLock(lp string) (*os.File, error) {
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symbolic link: remove it", lp)
	}
	return f, err
}

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

// privateDir makes dir (mode 0700) if it is missing, and refuses one that
// is not a directory of this user's that only this user may write to: a
// lock in a directory others write to could be replaced under a writer.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory (a symbolic link?): remove it, mcphost makes it", dir)
	case ok && int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%s belongs to another user: remove it, or set XDG_STATE_HOME to a directory of yours", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s may be written by others (mode %04o): run chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

//go:build unix

package safefile

import (
	"fmt"
	"os"
	"syscall"
)

// PrivateDir makes dir (mode 0700) if it is missing, and refuses one that
// is not a directory of this user's that only this user may write to:
// there, a lock or a backup could be replaced or read by someone else.
func PrivateDir(dir string) error {
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
		return fmt.Errorf("%s belongs to another user: remove it, or point XDG_STATE_HOME (XDG_CACHE_HOME for the cache) at a directory of yours", dir)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s may be written by others (mode %04o): run chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

//go:build unix

package plugins

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// checkPrivateDir makes sure that nobody but the user (and root) can put
// files in the compilation cache directory dir: its entries are machine
// code that wazero loads and runs without checking where it came from.
// The directory, its symbolic links resolved, must be a directory of the
// user's that no one else may write to (one that was open to others is
// refused, not repaired: what others put in it meanwhile would stay), and
// no directory above it may be replaced by someone else: each must belong
// to the user or root and be writable by others only with the sticky bit
// (as /tmp is).
func checkPrivateDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if fi, err := os.Lstat(abs); err != nil {
		return err
	} else if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; use a real directory", abs)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return err
	}
	uid := uint32(os.Getuid())
	fi, err := os.Lstat(real)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", abs)
	case !ok:
		return fmt.Errorf("%s: cannot tell its owner", abs)
	case st.Uid != uid:
		return fmt.Errorf("%s belongs to user %d, not to you (%d): remove it, or choose another directory", abs, st.Uid, uid)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s may be written by other users, who could have put code in it: remove it (mcphost makes it anew, private), or choose another directory", abs)
	}
	for p := filepath.Dir(real); ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		switch {
		case !ok:
			return fmt.Errorf("%s: cannot tell its owner", p)
		case st.Uid != uid && st.Uid != 0:
			return fmt.Errorf("%s, above the cache directory, belongs to user %d: that user could replace the cache; choose a directory of yours", p, st.Uid)
		case fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0:
			return fmt.Errorf("%s, above the cache directory, may be written by other users (and is not sticky): they could replace the cache; choose a directory of yours", p)
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}

//go:build unix

package doctor

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// euid is the effective user id; tests pretend to be another user.
var euid = os.Geteuid

// writableBy says who, other than root, can change path: "you (NAME)" when
// the running user can write it, "others (mode 0666)" when its mode lets
// group or others write, "its owner NAME" when it is not owned by root;
// "" when nobody but root can.
func writableBy(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if uid := euid(); uid != 0 && unix.Access(path, unix.W_OK) == nil {
		return "you (" + userName(uid) + ")", nil
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Sprintf("others (mode %04o)", fi.Mode().Perm()), nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
		return "its owner " + userName(int(st.Uid)), nil
	}
	return "", nil
}

func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid " + strconv.Itoa(uid)
}

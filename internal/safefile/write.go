package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrBusy: another process holds the lock of a file (see Lock).
var ErrBusy = errors.New("another mcphost is writing it")

// WriteAtomic writes through a temporary file and a rename, so a crash never
// leaves half a file. A symlinked file is written at its target. New files
// get mode 0600 (they may hold secrets); existing files keep their mode.
func WriteAtomic(path string, data []byte) error {
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	mode := fs.FileMode(0o600)
	if st, err := os.Stat(target); err == nil {
		mode = st.Mode().Perm()
	}
	return writeAtomic(target, data, mode)
}

// WriteAtomicPrivate is WriteAtomic that always leaves the file at mode
// 0600, whatever the existing file's mode: for files of secrets.
func WriteAtomicPrivate(path string, data []byte) error {
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	return writeAtomic(target, data, 0o600)
}

func writeAtomic(target string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	fail := func(err error) error {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

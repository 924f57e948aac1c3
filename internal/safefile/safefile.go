// Package safefile reads files that someone else may have put in place: a
// project's configuration, a plugin, an --args file. It reads only regular
// files (a symlink is followed, then its target is checked) and never more
// than a cap, so a FIFO, a device or an endless file is a clear error at
// once instead of a hang or an unbounded allocation.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// ErrNotRegular is returned for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a file over the cap.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads path whole if it is a regular file of at most max bytes.
// Errors wrap fs.ErrNotExist, ErrNotRegular or ErrTooLarge and name the
// path.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (it is %s); give a plain file", path, ErrNotRegular, kind(fi.Mode()))
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w: %d bytes, over the limit of %d", path, ErrTooLarge, fi.Size(), max)
	}
	return ReadAll(f, path, max)
}

// ReadAll reads r to its end, failing once more than max bytes came (for
// standard input and files whose size the stat did not tell).
func ReadAll(r io.Reader, name string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w: over the limit of %d bytes", name, ErrTooLarge, max)
	}
	return data, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

//go:build !unix

package safefile

import (
	"fmt"
	"os"
)

// open checks the type before opening where O_NONBLOCK is not available.
func open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (it is %s); give a plain file", path, ErrNotRegular, kind(fi.Mode()))
	}
	return os.Open(path)
}

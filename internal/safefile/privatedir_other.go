//go:build !unix

package safefile

import "os"

// PrivateDir makes dir if it is missing. Without Unix modes there is
// nothing more to check: under the user's profile it is the user's.
func PrivateDir(dir string) error { return os.MkdirAll(dir, 0o700) }

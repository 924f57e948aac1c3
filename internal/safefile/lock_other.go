//go:build !unix && !windows

package safefile

import "time"

// Lock is a no-op where neither flock nor LockFileEx is available: two processes writing at
// once can then lose one write (each write itself stays atomic).
func Lock(path string, wait time.Duration) (unlock func(), err error) { return func() {}, nil }

// LockIn is Lock's no-op for a lock kept in dir.
func LockIn(dir, path string, wait time.Duration) (unlock func(), err error) {
	return func() {}, nil
}

package config

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/mcphost/mcphost/internal/safefile"
	"github.com/mcphost/mcphost/internal/userdirs"
)

// lockWait bounds how long an edit waits for another mcphost editing the
// same file.
const lockWait = 10 * time.Second

// ErrBusy: another process holds a configuration file's lock.
var ErrBusy = safefile.ErrBusy

// lockFile takes an exclusive advisory lock for editing path, its lock file
// in the user's state directory (safefile.LockIn): a lock beside a
// project's file was left in the project and committed with it. It waits
// at most lockWait.
func lockFile(r *resolved, path string) (unlock func(), err error) {
	dir := r.stateDir
	if dir == "" {
		if dir, err = userdirs.ProcessState(); err != nil {
			return nil, fmt.Errorf("config: cannot lock %s for the edit: %w", path, err)
		}
	}
	unlock, err = safefile.LockIn(filepath.Join(dir, "locks"), path, lockWait)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return unlock, nil
}

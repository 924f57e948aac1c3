package config

import (
	"fmt"
	"time"

	"github.com/mcphost/mcphost/internal/safefile"
)

// lockWait bounds how long an edit waits for another mcphost editing the
// same file.
const lockWait = 10 * time.Second

// ErrBusy: another process holds a configuration file's lock.
var ErrBusy = safefile.ErrBusy

// lockFile takes an exclusive advisory lock for editing path
// (safefile.Lock); it waits at most lockWait.
func lockFile(path string) (unlock func(), err error) {
	unlock, err = safefile.Lock(path, lockWait)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return unlock, nil
}

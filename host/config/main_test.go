package config

import (
	"fmt"
	"os"
	"testing"
)

// TestMain points the user state directory (the locks of edits) at a
// directory of the test run's, so that tests which leave LoadOptions.StateDir
// at its default write nothing into the real user's.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcphost-config-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_STATE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

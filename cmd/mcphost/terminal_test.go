package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// /dev/null is a character device but no terminal: a command run with
// </dev/null, as in CI, must not take itself for interactive.
func TestIsTerminalNotForDevNullOrFiles(t *testing.T) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, v := range []any{null, file, &strings.Builder{}, nil} {
		if isTerminal(v) {
			t.Errorf("isTerminal(%T %v) = true", v, v)
		}
	}
}

//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcphost/mcphost/internal/safefile"
)

// Configuration files must be regular files of at most MaxConfigBytes: a
// FIFO (which would block a plain read for ever), a device or a huge file
// is a clear error, and an untrusted project's is only a warning.
func TestConfigFilesThatAreNotFiles(t *testing.T) {
	e := newEnv(t)
	fifo := filepath.Join(e.work, ".mcphost.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	e.writeGlobal("config.yaml", "servers:\n  g: {command: x}\n")
	cfg := e.load()
	if server(t, cfg, "g").Err != nil || !strings.Contains(strings.Join(cfg.Warnings, "\n"), "not a regular file") {
		t.Fatalf("warnings = %q", cfg.Warnings)
	}

	e = newEnv(t)
	if err := os.Symlink("/dev/zero", filepath.Join(e.global, "config.yaml")); err != nil {
		t.Fatal(err)
	}
	err := e.loadErr()
	if !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("/dev/zero as the global file: %v", err)
	}

	e = newEnv(t)
	big := e.writeGlobal("config.yaml", "# "+strings.Repeat("x", MaxConfigBytes)+"\n")
	wantErrContains(t, e.loadErr(), big, "too large")

	opts := newEnv(t).opts()
	opts.ConfigFile = "/dev/urandom"
	_, err = Load(opts)
	wantErrContains(t, err, "--config", "/dev/urandom", "not a regular file")
}

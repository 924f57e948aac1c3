package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.yaml")
	if err := os.WriteFile(plain, []byte("servers: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(plain, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{plain, link} {
		data, err := ReadFile(p, 1<<20)
		if err != nil || string(data) != "servers: {}\n" {
			t.Errorf("ReadFile(%s) = %q, %v", p, data, err)
		}
	}
	if _, err := ReadFile(plain, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), plain) {
		t.Errorf("over the cap: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := ReadFile(dir, 10); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}
}

func TestReadAllCaps(t *testing.T) {
	if _, err := ReadAll(strings.NewReader(strings.Repeat("x", 11)), "stdin", 10); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "stdin") {
		t.Errorf("ReadAll over cap: %v", err)
	}
	if data, err := ReadAll(strings.NewReader("0123456789"), "stdin", 10); err != nil || len(data) != 10 {
		t.Errorf("ReadAll at cap: %q %v", data, err)
	}
}

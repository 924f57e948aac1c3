//go:build unix

package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The compilation cache holds machine code that is loaded and run: a
// directory someone else could write to is made private or refused.
func TestCacheDirMustBePrivate(t *testing.T) {
	base := t.TempDir()

	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	c, err := NewCache(open)
	if err != nil {
		t.Fatalf("a private directory of the user's: %v", err)
	}
	c.Close()
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCache(open); err == nil || !strings.Contains(err.Error(), "may be written by other users") {
		t.Fatalf("a directory open to others: %v", err)
	}
	if err := os.Chmod(open, 0o700); err != nil {
		t.Fatal(err)
	}

	link := filepath.Join(base, "link")
	if err := os.Symlink(open, link); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCache(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("a symbolic link: %v", err)
	}

	shared := filepath.Join(base, "shared")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777); err != nil { // world-writable, not sticky
		t.Fatal(err)
	}
	if _, err := NewCache(filepath.Join(shared, "cache")); err == nil || !strings.Contains(err.Error(), "may be written by other users (and is not sticky)") {
		t.Fatalf("under a world-writable directory: %v", err)
	}

	// The same, reached through a symbolic link higher up: the real path
	// is what is checked.
	viaLink := filepath.Join(base, "via")
	if err := os.Symlink(shared, viaLink); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCache(filepath.Join(viaLink, "cache2")); err == nil || !strings.Contains(err.Error(), "not sticky") {
		t.Fatalf("under a world-writable directory reached through a link: %v", err)
	}

	if os.Getuid() == 0 {
		theirs := filepath.Join(base, "theirs")
		if err := os.Mkdir(theirs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := NewCache(theirs); err == nil || !strings.Contains(err.Error(), "belongs to user 65534") {
			t.Fatalf("another user's directory: %v", err)
		}
	}

	// Options fall back to an in-memory cache, with a warning naming why.
	opts, logs := testOptions(t)
	opts.Cache, opts.CacheDir = nil, link
	cache, owned := opts.openCache()
	if !owned || cache.Dir() != "" || !strings.Contains(logs.String(), "symbolic link") {
		t.Fatalf("fallback: dir %q owned %v, log %q", cache.Dir(), owned, logs.String())
	}
	cache.Close()
}

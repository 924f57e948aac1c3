package config_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host/config"
)

func TestWatchReloadsOnChange(t *testing.T) {
	global, work := t.TempDir(), t.TempDir()
	opts := config.LoadOptions{GlobalDir: global, WorkDir: work, Environ: []string{}}
	files, err := config.WatchedFiles(opts)
	if err != nil {
		t.Fatal(err)
	}
	projectFile := filepath.Join(work, ".mcphost.yaml")
	if !slices.Contains(files, projectFile) || !slices.Contains(files, filepath.Join(global, "config.yaml")) {
		t.Fatalf("watched files %v", files)
	}
	// Written as editors do, to a new file renamed over the old one: a
	// file caught half-written is the writer's problem (Watch waits for a
	// change to hold for an interval, which narrows but cannot close it).
	write := func(body string) {
		t.Helper()
		tmp := filepath.Join(global, "config.yaml.tmp")
		if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(global, "config.yaml")); err != nil {
			t.Fatal(err)
		}
	}
	write("servers:\n  a: {command: x}\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan []string, 4)
	done := make(chan error, 1)
	go func() {
		done <- config.Watch(ctx, opts, 5*time.Millisecond, func(cfg *config.Config, err error) {
			if err != nil {
				t.Errorf("load: %v", err)
				return
			}
			var ids []string
			for _, s := range cfg.Servers {
				ids = append(ids, s.ID)
			}
			got <- ids
		})
	}()
	// Wait until the watcher has taken its first look (a write before that
	// would be its starting point, not a change): keep writing new
	// contents until one is reported.
	deadline := time.After(20 * time.Second)
	for i := 0; ; i++ {
		write("servers:\n  a: {command: x}\n  b: {command: y}\n# " + time.Now().String() + "\n")
		select {
		case ids := <-got:
			if !slices.Equal(ids, []string{"a", "b"}) {
				t.Fatalf("servers after the edit: %v", ids)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			return
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatal("no change reported")
		}
	}
}

// An administrator's new managed.d fragment is a change: a running
// gateway with --watch applies it.
func TestWatchSeesNewManagedFragment(t *testing.T) {
	global, work, managed := t.TempDir(), t.TempDir(), t.TempDir()
	opts := config.LoadOptions{GlobalDir: global, WorkDir: work, ManagedDir: managed, Environ: []string{}}
	if err := os.WriteFile(filepath.Join(global, "config.yaml"), []byte("servers:\n  a: {command: x}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := config.NewWatcher(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(managed, "managed.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(managed, "managed.d", "10-deny.yaml"), []byte("managed: {denied_servers: [{id: a}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	blocked := ""
	_ = w.Run(ctx, 5*time.Millisecond, func(cfg *config.Config, err error) {
		if err != nil {
			t.Errorf("load: %v", err)
		} else {
			blocked = cfg.Servers[0].Blocked
		}
		cancel()
	})
	if blocked == "" {
		t.Fatalf("the new fragment was not applied (ctx: %v)", ctx.Err())
	}
}

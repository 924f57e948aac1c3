package testenv

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// fakeTB records what CheckGoroutines reports, and runs cleanups on demand.
type fakeTB struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (f *fakeTB) Helper()                   {}
func (f *fakeTB) Cleanup(fn func())         { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(s string, a ...any) { f.errors = append(f.errors, fmt.Sprintf(s, a...)) }

func (f *fakeTB) runCleanups() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func TestCheckGoroutinesReportsALeakAndPassesWithout(t *testing.T) {
	defer func(d time.Duration) { leakWait = d }(leakWait)
	leakWait = 500 * time.Millisecond
	stop := make(chan struct{})
	defer close(stop)
	f := &fakeTB{TB: t}
	CheckGoroutines(f)
	go leakyWorker(stop)
	// Ended in time: not a leak.
	go func() { time.Sleep(50 * time.Millisecond) }()
	f.runCleanups()
	if len(f.errors) != 1 || !strings.Contains(f.errors[0], "goroutines still running") ||
		strings.Count(f.errors[0], "leakyWorker(") != 1 || strings.Contains(f.errors[0], "time.Sleep") {
		t.Fatalf("want the one leakyWorker reported, got %q", f.errors)
	}

	// The leakyWorker above started before this check: not counted.
	g := &fakeTB{TB: t}
	CheckGoroutines(g)
	go func() { time.Sleep(50 * time.Millisecond) }()
	g.runCleanups()
	if len(g.errors) != 0 {
		t.Fatalf("a goroutine that ended, or one from before, was reported: %q", g.errors)
	}
}

func leakyWorker(stop chan struct{}) { <-stop }

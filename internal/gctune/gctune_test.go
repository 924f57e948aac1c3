package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		floor, live, scannable uint64
		want                   int
	}{
		{64 * mib, 12 * mib, 13 * mib, 400},     // small live heap: the floor is the target
		{64 * mib, 32 * mib, 32 * mib, 100},     // half the floor: Go's default target is the floor
		{64 * mib, 100 * mib, 101 * mib, 100},   // over the floor: Go's default
		{64 * mib, 0, 1 * mib, 1600},            // nothing live: the minimum heap target (4 MiB at 100) bounds it
		{64 * mib, 1024, 2048, 1599},            // a tiny heap: the same
		{64 * mib, 0, 0, 1600},                  // nothing known (before the first collection)
		{64 * mib, 60 * mib, 120 * mib, 100},    // never below 100
		{128 * mib, 12 * mib, 16 * mib, 725},    // stacks and globals count
		{64 * mib, 64 * mib, 64 * mib, 100},     // at the floor
		{64 * mib, 20 * mib, 20 * mib, 220},     // in between
		{64 * mib, 4 * mib, 4*mib + 1, 1499},    // rounding down
		{4 * mib, 1 * mib, 1 * mib, 100},        // small floors work the same
		{1 << 40, 1 << 30, 1 << 30, 1023 * 100}, // large values do not overflow (then bounded)
	} {
		want := min(c.want, maxPercent)
		if got := percentFor(c.floor, c.live, c.scannable); got != want {
			t.Errorf("percentFor(%d, %d, %d) = %d, want %d", c.floor, c.live, c.scannable, got, want)
		}
	}
}

func heapGoal() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// HeapFloor raises GOGC while the live heap is small, follows every
// collection, and stop puts the default back.
func TestHeapFloor(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	runtime.GC()
	stop := HeapFloor(256 << 20)
	if got := gogc(); got <= 100 {
		t.Fatalf("GOGC %d after HeapFloor with a small heap, want more than 100", got)
	}
	// The heap target is the floor, not more (the runtime's minimum
	// target grows with GOGC too).
	for range 3 {
		if goal := heapGoal(); goal > 260<<20 {
			t.Fatalf("heap target %d MiB under a 256 MiB floor", goal>>20)
		}
		runtime.GC()
	}
	// A live heap over half the floor brings it back to 100 at the next
	// collections.
	keep := make([][]byte, 0, 160)
	for range 160 {
		keep = append(keep, make([]byte, 1<<20))
	}
	deadline := time.Now().Add(10 * time.Second)
	for gogc() != 100 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := gogc(); got != 100 {
		t.Fatalf("GOGC %d with 160 MiB live under a 256 MiB floor, want 100", got)
	}
	runtime.KeepAlive(keep)
	keep = nil
	for gogc() == 100 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if got := gogc(); got <= 100 {
		t.Fatalf("GOGC %d once the heap is small again, want more than 100", got)
	}
	stop()
	runtime.GC()
	runtime.GC()
	if got := gogc(); got != 100 {
		t.Fatalf("GOGC %d after stop, want 100", got)
	}
}

// The operator's GOGC or GOMEMLIMIT wins.
func TestHeapFloorLeavesOperatorSettings(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, map[string]string{"GOGC": "150", "GOMEMLIMIT": "1GiB"}[env])
			debug.SetGCPercent(150)
			stop := HeapFloor(DefaultHeapFloor)
			defer stop()
			runtime.GC()
			if got := gogc(); got != 150 {
				t.Fatalf("GOGC %d with %s set, want it left at 150", got, env)
			}
		})
	}
}

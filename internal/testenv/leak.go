package testenv

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// leakWait bounds how long CheckGoroutines waits for goroutines to end: a
// closed connection's reader, say, needs a moment to notice. A variable for
// its own test.
var leakWait = 10 * time.Second

// CheckGoroutines fails t if goroutines that started after this call are
// still running when the test's cleanups have run (it registers itself as
// the first cleanup, so it runs last). It waits for them up to 10 s and
// prints the stacks of those left. Tests that use it must not run in
// parallel with others (their goroutines would count).
func CheckGoroutines(t testing.TB) {
	t.Helper()
	before := goroutineIDs()
	t.Cleanup(func() {
		deadline := time.Now().Add(leakWait)
		for {
			left := newGoroutines(before)
			if len(left) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutines still running after the test:\n\n%s", len(left), strings.Join(left, "\n\n"))
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// goroutineIDs is the set of goroutines running now.
func goroutineIDs() map[int]bool {
	ids := map[int]bool{}
	for _, g := range goroutineStacks() {
		if id, ok := goroutineID(g); ok {
			ids[id] = true
		}
	}
	return ids
}

// newGoroutines returns the stacks of goroutines not in before, leaving out
// the runtime's and the testing package's own.
func newGoroutines(before map[int]bool) []string {
	var left []string
	for _, g := range goroutineStacks() {
		id, ok := goroutineID(g)
		if !ok || before[id] || ignorable(g) {
			continue
		}
		left = append(left, g)
	}
	return left
}

func goroutineStacks() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range bytes.Split(buf, []byte("\n\n")) {
		if s := strings.TrimSpace(string(g)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// goroutineID reads N from a stack's header "goroutine N [state]:".
func goroutineID(stack string) (int, bool) {
	rest, ok := strings.CutPrefix(stack, "goroutine ")
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, " ")
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(num)
	return id, err == nil
}

// ignorable: goroutines that belong to the runtime or the test framework,
// not to the code under test.
func ignorable(stack string) bool {
	for _, f := range []string{
		"testing.(*T).Run(", "testing.tRunner(", "testing.runTests(", "testing.(*M).",
		"runtime.goexit0", "os/signal.signal_recv", "runtime.ensureSigM",
		"testing.(*T).Parallel(",
	} {
		if strings.Contains(stack, f) {
			return true
		}
	}
	return false
}

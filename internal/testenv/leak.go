package testenv

import (
	"testing"
	"time"

	"go.uber.org/goleak"
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
//
// goleak does the work: IgnoreCurrent leaves out the goroutines running
// now, and its default filters those of the runtime and the testing
// package. One goleak.Find retries for about half a second only, so it is
// called again until leakWait has passed.
func CheckGoroutines(t testing.TB) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		deadline := time.Now().Add(leakWait)
		for {
			err := goleak.Find(before)
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("goroutines still running %v after the test: %v", leakWait, err)
				return
			}
		}
	})
}

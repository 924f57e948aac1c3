package plugins

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Bench measures many calls of one hook: what "mcphost plugin bench" prints.

// BenchOptions say how many calls Bench makes and from how many callers.
type BenchOptions struct {
	// Calls is the number of measured calls; ignored when Duration is set.
	Calls int
	// Duration, when positive, measures calls for this long instead of
	// counting them.
	Duration time.Duration
	// Concurrency is the number of concurrent callers (default 1). Open the
	// plugin with Options.PoolSize at least this large, so that each caller
	// has an instance of its own and the figures do not include waiting for
	// one.
	Concurrency int
	// Warmup is the number of calls made before the measured ones, the
	// first, checked call included. 0 means the default: Concurrency, or a
	// tenth of Calls up to 100 when that is more.
	Warmup int
}

// BenchResult is what Bench measured. Latencies are of one call as the
// caller sees it (waiting for an instance included), failed calls included.
type BenchResult struct {
	Hook        abi.Hook
	Concurrency int
	Warmup      int // warm-up calls made, the first one included
	// Invalid, when not nil, says why the first call's output is not a
	// valid answer for the hook (DecodeOutput): the host would treat every
	// call as failed although Invoke succeeds.
	Invalid error
	// Calls counts the measured calls; Errors those that failed, FirstError
	// is the first of them.
	Calls      int
	Errors     int
	FirstError error
	Elapsed    time.Duration
	// CallsPerSec is Calls over Elapsed (0 when nothing was measured).
	CallsPerSec float64
	// Median, P90, P99 and Max are nearest-rank percentiles of the
	// latencies (0 when there are none).
	Median, P90, P99, Max time.Duration
	// Latencies are the measured latencies, sorted.
	Latencies []time.Duration
	// Stats are the plugin's counters after the run (warm-up included).
	Stats Stats
}

// FirstCallError is Bench's error when the first call fails: with nothing
// that works there is nothing to measure. Err is the call's error.
type FirstCallError struct{ Err error }

func (e *FirstCallError) Error() string {
	return "the first call failed, nothing to measure: " + e.Err.Error()
}

func (e *FirstCallError) Unwrap() error { return e.Err }

// Bench calls hook with input once (that call must succeed, or the error is
// a *FirstCallError), warms the plugin up, then makes opts.Calls calls (or
// calls for opts.Duration) from opts.Concurrency callers and returns their
// statistics. Failed calls after the first are counted and timed, not
// returned as an error. When ctx ends, Bench returns its error with what it
// knew by then (the first call's verdict in Invalid), or nil before that.
func Bench(ctx context.Context, p *Plugin, hook abi.Hook, input []byte, opts BenchOptions) (*BenchResult, error) {
	conc := opts.Concurrency
	if conc == 0 {
		conc = 1
	}
	switch {
	case conc < 0:
		return nil, fmt.Errorf("bench: concurrency %d: give 1 or more", conc)
	case opts.Duration < 0:
		return nil, fmt.Errorf("bench: duration %s: give a positive duration, or 0 to count calls", opts.Duration)
	case opts.Duration == 0 && opts.Calls < 1:
		return nil, fmt.Errorf("bench: calls %d: give 1 or more, or a duration", opts.Calls)
	case opts.Warmup < 0:
		return nil, fmt.Errorf("bench: warmup %d: give 0 for the default or the number of calls", opts.Warmup)
	}
	warmup := opts.Warmup
	if warmup == 0 {
		warmup = max(conc, min(opts.Calls/10, 100))
	}
	res, err := p.Invoke(ctx, hook, input)
	if err != nil {
		return nil, &FirstCallError{Err: err}
	}
	r := &BenchResult{Hook: hook, Concurrency: conc, Warmup: warmup}
	if _, derr := DecodeOutput(hook, res.Output); derr != nil {
		r.Invalid = derr
	}
	runBench(ctx, p, hook, input, conc, warmup-1, 0)
	if err := ctx.Err(); err != nil {
		return r, err
	}
	st := runBench(ctx, p, hook, input, conc, opts.Calls, opts.Duration)
	if err := ctx.Err(); err != nil {
		return r, err
	}
	lat := st.latencies
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	r.Calls = len(lat)
	r.Errors = st.errors
	r.FirstError = st.firstErr
	r.Elapsed = st.elapsed
	if st.elapsed > 0 {
		r.CallsPerSec = float64(r.Calls) / st.elapsed.Seconds()
	}
	r.Latencies = lat
	r.Median = percentile(lat, 0.50)
	r.P90 = percentile(lat, 0.90)
	r.P99 = percentile(lat, 0.99)
	r.Max = percentile(lat, 1)
	r.Stats = p.Stats()
	return r, nil
}

// benchRun is what one run measured: the latency of every call (failed
// ones included), failures and the wall time of the run.
type benchRun struct {
	latencies []time.Duration
	errors    int
	firstErr  error
	elapsed   time.Duration
}

// runBench calls hook n times (or, when d > 0, for d) from conc
// goroutines. It stops early when ctx ends.
func runBench(ctx context.Context, p *Plugin, hook abi.Hook, input []byte, conc, n int, d time.Duration) benchRun {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		st       benchRun
		deadline time.Time
	)
	start := time.Now()
	if d > 0 {
		deadline = start.Add(d)
	} else if n <= 0 {
		return st
	}
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var (
				lat      []time.Duration
				errs     int
				firstErr error
			)
			for ctx.Err() == nil {
				if d > 0 {
					if !time.Now().Before(deadline) {
						break
					}
				} else if next.Add(1) > int64(n) {
					break
				}
				t0 := time.Now()
				_, err := p.Invoke(ctx, hook, input)
				lat = append(lat, time.Since(t0))
				if err != nil {
					if ctx.Err() != nil {
						break
					}
					errs++
					if firstErr == nil {
						firstErr = err
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			st.latencies = append(st.latencies, lat...)
			st.errors += errs
			if st.firstErr == nil {
				st.firstErr = firstErr
			}
		}()
	}
	wg.Wait()
	st.elapsed = time.Since(start)
	return st
}

// percentile is the nearest-rank percentile p (0 to 1) of sorted durations,
// 0 for none.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	i = min(max(i, 0), len(sorted)-1)
	return sorted[i]
}

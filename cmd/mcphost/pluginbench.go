package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// "plugin bench": many calls of one hook, timed.

// benchReport is `plugin bench --json`. Times are in nanoseconds.
type benchReport struct {
	Plugin      string       `json:"plugin"`
	Path        string       `json:"path"`
	Hook        abi.Hook     `json:"hook"`
	Calls       int          `json:"calls"`
	Errors      int          `json:"errors"`
	FirstError  string       `json:"first_error,omitempty"`
	Concurrency int          `json:"concurrency"`
	Warmup      int          `json:"warmup"`
	ElapsedNS   int64        `json:"elapsed_ns"`
	CallsPerSec float64      `json:"calls_per_sec"`
	MedianNS    int64        `json:"median_ns"`
	P90NS       int64        `json:"p90_ns"`
	P99NS       int64        `json:"p99_ns"`
	MaxNS       int64        `json:"max_ns"`
	Instances   int64        `json:"instances_created"`
	Discarded   int64        `json:"instances_discarded"`
	Limits      reportLimits `json:"limits"`
	reportHTTP
}

func (a *app) pluginBenchCommand() *cobra.Command {
	var (
		f           callFlags
		n           int
		concurrency int
		duration    time.Duration
	)
	cmd := &cobra.Command{
		Use:   "bench FILE [--hook HOOK] --input FILE.json|- [flags]",
		Short: "Call one hook of a plugin many times and show calls/s and latency percentiles",
		Long: `Load a plugin once (one instance pool, as the host does), warm it up, then
call one hook --n times (or for --duration) from --concurrency callers, and
print the calls per second, the median, p90, p99 and maximum latency of a
call as the host sees it (waiting for an instance included), the number of
failed calls and the instances made and thrown away.

The first warm-up call must succeed (use "mcphost plugin test" to see why it
does not); later failures are counted, timed like the others, and make the
exit status 1. Limits, --config, --secret, --allowed-host and
--allow-private are as for "plugin test"; note that timeout_ms (default 100)
applies to every call, HTTP requests of an auth plugin included (they are
made on every call: point --allowed-host at a test server).

Figures depend on the machine and its load: compare runs on one machine.

Exit status: 0 every call succeeded, 1 the plugin did not load or a call
failed, 2 usage error.`,
		Example: `  mcphost plugin bench deny-destructive.wasm --hook policy --input request.json
  mcphost plugin bench deny-destructive.wasm --hook policy --input request.json --n 20000 --concurrency 8
  mcphost plugin bench redact.wasm --hook transform_result --input result.json --duration 10s --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if n < 1 {
				return usageError("--n %d: give the number of calls, 1 or more", n)
			}
			if concurrency < 1 || concurrency > maxBenchConcurrency {
				return usageError("--concurrency %d: give the number of concurrent callers, 1 to %d", concurrency, maxBenchConcurrency)
			}
			if duration < 0 {
				return usageError("--duration %s: give a positive duration like 10s, or 0 to make --n calls", duration)
			}
			if duration > 0 && cmd.Flags().Changed("n") {
				return usageError("--n and --duration: give one of them (calls are counted, or timed)")
			}
			pc, err := a.prepare(cmd.CommandPath(), args[0], &f)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			opts := a.pluginOptions(a.log)
			// One instance per caller, made during the warm-up.
			opts.PoolSize = concurrency
			p, err := a.open(ctx, pc, opts)
			if err != nil {
				return err
			}
			defer p.Close(context.Background())

			res, err := p.Invoke(ctx, pc.hook, pc.input)
			if err != nil {
				fe := pluginFailure(err)
				return &exitError{code: exitFailure, err: fmt.Errorf("the first call failed, nothing to measure: %v (\"mcphost plugin test\" with the same flags shows the call)", fe)}
			}
			if _, derr := plugins.DecodeOutput(pc.hook, res.Output); derr != nil {
				fmt.Fprintf(a.stderr, "warning: the output is not a valid %s answer (%v): the host would treat every call as failed\n", pc.hook, derr)
			}
			warmup := max(concurrency, min(n/10, 100))
			runBench(ctx, p, pc.hook, pc.input, concurrency, warmup-1, 0)
			if err := ctx.Err(); err != nil {
				return err
			}
			st := runBench(ctx, p, pc.hook, pc.input, concurrency, n, duration)
			if err := ctx.Err(); err != nil {
				return err
			}
			stats := p.Stats()
			rep := benchReport{
				Plugin:      pluginName(p),
				Path:        pc.path,
				Hook:        pc.hook,
				Calls:       len(st.latencies),
				Errors:      st.errors,
				Concurrency: concurrency,
				Warmup:      warmup,
				ElapsedNS:   st.elapsed.Nanoseconds(),
				Instances:   stats.InstancesCreated,
				Discarded:   stats.InstancesDiscarded,
				Limits:      newReportLimits(p),
				reportHTTP:  newReportHTTP(pc.spec),
			}
			if st.firstErr != nil {
				rep.FirstError = st.firstErr.Error()
			}
			if st.elapsed > 0 {
				rep.CallsPerSec = float64(rep.Calls) / st.elapsed.Seconds()
			}
			lat := st.latencies
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			rep.MedianNS = percentile(lat, 0.50).Nanoseconds()
			rep.P90NS = percentile(lat, 0.90).Nanoseconds()
			rep.P99NS = percentile(lat, 0.99).Nanoseconds()
			rep.MaxNS = percentile(lat, 1).Nanoseconds()
			if f.asJSON {
				if err := printJSON(a.stdout, rep); err != nil {
					return err
				}
			} else if err := printBench(a.stdout, rep); err != nil {
				return err
			}
			if rep.Errors > 0 {
				return &exitError{code: exitFailure, err: fmt.Errorf("%d of %d calls failed; the first: %v", rep.Errors, rep.Calls, pluginFailure(st.firstErr))}
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().IntVar(&n, "n", 2000, "number of measured calls")
	cmd.Flags().IntVar(&concurrency, "concurrency", 1, fmt.Sprintf("concurrent callers, each with an instance of its own (1 to %d)", maxBenchConcurrency))
	cmd.Flags().DurationVar(&duration, "duration", 0, "call for this long (e.g. 10s) instead of --n times")
	return cmd
}

// benchStats is what one run measured: the latency of every call (failed
// ones included), failures and the wall time of the run.
type benchStats struct {
	latencies []time.Duration
	errors    int
	firstErr  error
	elapsed   time.Duration
}

// runBench calls hook n times (or, when d > 0, for d) from conc
// goroutines. It stops early when ctx ends.
func runBench(ctx context.Context, p *plugins.Plugin, hook abi.Hook, input []byte, conc, n int, d time.Duration) benchStats {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		st       benchStats
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

// percentile is the nearest-rank percentile of sorted durations (0 for
// none).
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	i = min(max(i, 0), len(sorted)-1)
	return sorted[i]
}

func printBench(w io.Writer, rep benchReport) error {
	tw := table(w)
	fmt.Fprintf(tw, "plugin\t%s (%s)\n", rep.Plugin, rep.Path)
	fmt.Fprintf(tw, "hook\t%s\n", rep.Hook)
	fmt.Fprintf(tw, "calls\t%d in %s, concurrency %d, after %d warm-up calls\n", rep.Calls, formatDuration(time.Duration(rep.ElapsedNS)), rep.Concurrency, rep.Warmup)
	errs := strconv.Itoa(rep.Errors)
	if rep.FirstError != "" {
		errs += " (first: " + oneLine(rep.FirstError, 200) + ")"
	}
	fmt.Fprintf(tw, "errors\t%s\n", errs)
	fmt.Fprintf(tw, "calls/s\t%.0f\n", rep.CallsPerSec)
	fmt.Fprintf(tw, "median\t%s\n", formatDuration(time.Duration(rep.MedianNS)))
	fmt.Fprintf(tw, "p90\t%s\n", formatDuration(time.Duration(rep.P90NS)))
	fmt.Fprintf(tw, "p99\t%s\n", formatDuration(time.Duration(rep.P99NS)))
	fmt.Fprintf(tw, "max\t%s\n", formatDuration(time.Duration(rep.MaxNS)))
	fmt.Fprintf(tw, "instances\t%d created, %d discarded\n", rep.Instances, rep.Discarded)
	fmt.Fprintf(tw, "limits\ttimeout_ms %d, memory_mb %d, max_output_bytes %d\n", rep.Limits.TimeoutMS, rep.Limits.MemoryMB, rep.Limits.MaxOutputBytes)
	rep.reportHTTP.print(tw)
	return tw.Flush()
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
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
		Use:   "bench FILE [--hook HOOK] (--input FILE.json|- | --tool NAME [--args JSON]) [flags]",
		Short: "Call one hook of a plugin many times and show calls/s and latency percentiles",
		Long: `Load a plugin once (one instance pool, as the host does), warm it up, then
call one hook --n times (or for --duration) from --concurrency callers, and
print the calls per second, the median, p90, p99 and maximum latency of a
call as the host sees it (waiting for an instance included), the number of
failed calls and the instances made and thrown away.

The first warm-up call must succeed (use "mcphost plugin test" to see why it
does not); later failures are counted, timed like the others, and make the
exit status 1. The request (--input, or --tool with its flags), limits,
--config, --secret, --allowed-host and --allow-private are as for "plugin
test"; note that timeout_ms (default 100)
applies to every call, HTTP requests of an auth plugin included (they are
made on every call: point --allowed-host at a test server).

Figures depend on the machine and its load: compare runs on one machine.

Exit status: 0 every call succeeded, 1 the plugin did not load or a call
failed, 2 usage error.`,
		Example: `  mcphost plugin bench deny-destructive.wasm --hook policy --input request.json
  mcphost plugin bench deny-destructive.wasm --tool delete_file --args '{"path":"/x"}' --n 5000
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
			pc, err := a.prepare(cmd.Context(), cmd.CommandPath(), args[0], &f)
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

			br, err := plugins.Bench(ctx, p, pc.hook, pc.input, plugins.BenchOptions{Calls: n, Duration: duration, Concurrency: concurrency})
			if fe := (*plugins.FirstCallError)(nil); errors.As(err, &fe) {
				return &exitError{code: exitFailure, err: fmt.Errorf("the first call failed, nothing to measure: %v (\"mcphost plugin test\" with the same flags shows the call)", pluginFailure(fe.Err))}
			}
			if br != nil && br.Invalid != nil {
				fmt.Fprintf(a.stderr, "warning: the output is not a valid %s answer (%v): the host would treat every call as failed\n", pc.hook, br.Invalid)
			}
			if err != nil {
				return err
			}
			rep := benchReport{
				Plugin:      pluginName(p),
				Path:        pc.path,
				Hook:        pc.hook,
				Calls:       br.Calls,
				Errors:      br.Errors,
				Concurrency: br.Concurrency,
				Warmup:      br.Warmup,
				ElapsedNS:   br.Elapsed.Nanoseconds(),
				CallsPerSec: br.CallsPerSec,
				MedianNS:    br.Median.Nanoseconds(),
				P90NS:       br.P90.Nanoseconds(),
				P99NS:       br.P99.Nanoseconds(),
				MaxNS:       br.Max.Nanoseconds(),
				Instances:   br.Stats.InstancesCreated,
				Discarded:   br.Stats.InstancesDiscarded,
				Limits:      newReportLimits(p),
				reportHTTP:  newReportHTTP(pc.spec),
			}
			if br.FirstError != nil {
				rep.FirstError = br.FirstError.Error()
			}
			if f.asJSON {
				if err := printJSON(a.stdout, rep); err != nil {
					return err
				}
			} else if err := printBench(a.stdout, rep); err != nil {
				return err
			}
			if rep.Errors > 0 {
				return &exitError{code: exitFailure, err: fmt.Errorf("%d of %d calls failed; the first: %v", rep.Errors, rep.Calls, pluginFailure(br.FirstError))}
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

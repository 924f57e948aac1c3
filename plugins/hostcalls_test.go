package plugins

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
)

// hostCallCases are the host functions the hostcalls fixture loops on,
// by the input byte that picks each (see testdata/plugins/hostcalls.wat).
var hostCallCases = []struct{ pick, name string }{
	{"N", "no host call (a plain loop, for comparison)"},
	{"a", "alloc and free over 200,000 blocks"}, {"b", "free"}, {"c", "length"},
	{"d", "length_unsafe"}, {"e", "load_u8"}, {"f", "load_u64"}, {"g", "store_u8"},
	{"h", "store_u64"}, {"i", "input_length"}, {"j", "input_offset"}, {"k", "input_load_u8"},
	{"l", "input_load_u64"}, {"m", "input_set"}, {"n", "output_set"}, {"o", "output_length"},
	{"p", "output_offset"}, {"q", "error_set"}, {"r", "error_get"}, {"s", "reset"},
	{"t", "memory_bytes"}, {"u", "config_get of 1 MB"}, {"v", "var_get of 1 MB"},
	{"w", "var_set of 64 KiB"}, {"x", "get_log_level"}, {"y", "log_info"}, {"z", "log_trace"},
	{"A", "log_debug"}, {"B", "log_warn"}, {"C", "log_error"}, {"D", "mcphost_log"},
	{"E", "mcphost_secret"}, {"F", "mcphost_block_read"}, {"G", "mcphost_block_write"},
	{"H", "mcphost_http"}, {"I", "WASI random_get"}, {"K", "WASI poll_oneoff of 4096 subscriptions"},
	{"M", "reset and alloc of 32 MiB"},
}

// hostCallHook is the hook that runs pick: mcphost_http, given only to
// plugins with an auth hook, is called from that hook, as a real plugin
// would.
func hostCallHook(pick string) abi.Hook {
	if pick == "H" {
		return abi.HookAuth
	}
	return abi.HookPolicy
}

// maxOverrun is how far past its timeout a call may end in these tests: far
// above what is measured (the test logs it), so that a loaded machine does
// not fail them, and far below the seconds an uncharged loop ran.
const maxOverrun = time.Second

func openHostCalls(t *testing.T, timeout time.Duration) *Plugin {
	return open(t, "hostcalls", func(s *Spec) {
		s.Limits.Timeout = timeout
		s.Config = map[string]string{"u": strings.Repeat("u", 1_000_000)}
	})
}

// A guest that loops on any one host function is stopped at its timeout:
// every host function is charged for the work it does, and a count of host
// calls is charged too, so cheap calls in a loop are stopped like any loop.
func TestHostCallLoopsStopAtTimeout(t *testing.T) {
	const timeout = 200 * time.Millisecond
	p := openHostCalls(t, timeout)
	for _, tc := range hostCallCases {
		t.Run(tc.name, func(t *testing.T) {
			hook := hostCallHook(tc.pick)
			start := time.Now()
			_, err := p.Invoke(ctx(t), hook, []byte(tc.pick))
			overrun := time.Since(start) - timeout
			wantError(t, err, KindTimeout, "exceeded timeout_ms 200")
			t.Logf("%s: overrun past timeout_ms: %v", tc.name, overrun.Round(10*time.Microsecond))
			if overrun > maxOverrun {
				t.Errorf("the call ended %v past its timeout", overrun)
			}
		})
	}
}

// The caller's cancellation stops the same loops, though the timeout is far.
func TestHostCallLoopsStopAtCancel(t *testing.T) {
	p := openHostCalls(t, 30*time.Second)
	for _, tc := range hostCallCases {
		t.Run(tc.name, func(t *testing.T) {
			hook := hostCallHook(tc.pick)
			c, cancel := context.WithCancel(context.Background())
			defer cancel()
			canceledAt := make(chan time.Time, 1)
			timer := time.AfterFunc(100*time.Millisecond, func() { canceledAt <- time.Now(); cancel() })
			defer timer.Stop()
			_, err := p.Invoke(c, hook, []byte(tc.pick))
			wantError(t, err, KindCanceled, "canceled")
			var at time.Time
			select {
			case at = <-canceledAt:
			default:
				t.Fatal("the call ended before it was canceled")
			}
			late := time.Since(at)
			t.Logf("%s: ended %v after the cancellation", tc.name, late.Round(10*time.Microsecond))
			if late > maxOverrun {
				t.Errorf("the call ended %v after its cancellation", late)
			}
		})
	}
}

// A guest that makes one-byte blocks until alloc fails runs into
// memory_mb: the blocks' records count against it, so the host's memory
// stays within the cap however small the blocks. What the call allocated
// from the Go heap in all (the kernel's bytes and records, the garbage of
// growing them, the instance) is held to three times the cap; when the
// records were outside it, 64 MiB of one-byte blocks allocated 1.5 GiB.
func TestManySmallBlocksHitMemoryCap(t *testing.T) {
	const memoryMB = 64
	p := open(t, "hostcalls", func(s *Spec) {
		s.Limits.MemoryMB = memoryMB
		s.Limits.Timeout = 30 * time.Second
	})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := p.Invoke(ctx(t), abi.HookPolicy, []byte("J"))
	runtime.ReadMemStats(&after)
	wantError(t, err, KindMemory, fmt.Sprintf("exceeded memory_mb %d", memoryMB))
	if res == nil || res.KernelMemoryBytes > memoryMB*mib {
		t.Fatalf("kernel memory over the cap: %+v", res)
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 3*memoryMB*mib {
		t.Errorf("the call allocated %.1f MiB from the heap, over three times memory_mb", float64(allocated)/mib)
	}
	t.Logf("kernel memory %.1f MiB; the call allocated %.1f MiB; heap in use %.1f MiB, obtained from the OS %.1f MiB; %s",
		float64(res.KernelMemoryBytes)/mib, float64(after.TotalAlloc-before.TotalAlloc)/mib,
		float64(after.HeapInuse)/mib, float64(after.HeapSys)/mib, peakRSS())
}

// peakRSS is the process's peak resident memory, where the system says it.
func peakRSS() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "peak RSS unknown"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return "peak RSS " + strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "peak RSS unknown"
}

// What host functions log about a guest's calls (a secret not granted, an
// HTTP request refused) shares the call's budget of log lines: a guest
// calling them in a loop cannot flood the host's log.
func TestHostFunctionLinesAreBounded(t *testing.T) {
	s := spec("hostcalls", "hostcalls")
	s.Limits.Timeout = 50 * time.Millisecond
	opts, lb := testOptions(t)
	p, err := Open(ctx(t), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	for _, tc := range []struct {
		pick string
		hook abi.Hook
		line string
	}{{"E", abi.HookPolicy, "mcphost_secret: not granted"}, {"H", abi.HookAuth, "mcphost_http: "}} {
		before := strings.Count(lb.String(), tc.line)
		_, err := p.Invoke(ctx(t), tc.hook, []byte(tc.pick))
		wantError(t, err, KindTimeout)
		if n := strings.Count(lb.String(), tc.line) - before; n > maxLogLines {
			t.Errorf("%d lines %q in one call, over the budget of %d", n, tc.line, maxLogLines)
		}
	}
	if !strings.Contains(lb.String(), "log lines dropped") {
		t.Error("the dropped lines were not reported")
	}
}

// Work inside one WASI call cannot be stopped, so a call with more I/O
// vectors or subscriptions than any real guest passes traps: one
// poll_oneoff of 734,003 subscriptions was 50-150 ms of work.
func TestWASICallCountsAreBounded(t *testing.T) {
	p := openHostCalls(t, 10*time.Second)
	_, err := p.Invoke(ctx(t), abi.HookPolicy, []byte("L"))
	wantError(t, err, KindTrap, "WASI poll_oneoff with 734003 items", "over mcphost's limit of 4096")
}

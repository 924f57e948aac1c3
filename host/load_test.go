//go:build unix

package host_test

// The load test: 64 callers share three servers (two stdio, one Streamable
// HTTP) while one stdio server is killed every second and restarted by its
// supervisor. Every call must either succeed with its own answer or fail
// with an error naming the server; none may hang past its deadline or get
// another call's answer; the heap must not grow with the number of calls.
//
// go test runs a short version (200 calls per caller). The full one, with
// its figures:
//
//	scripts/load.sh           # MCPHOST_LOAD_CALLS=5000 go test -run TestLoad -v ./host/

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/hosttest"
)

const (
	loadCallers      = 64
	loadDefaultCalls = 200
	loadKillEvery    = time.Second
)

func TestLoadWithKilledServer(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	calls := loadDefaultCalls
	if v := os.Getenv("MCPHOST_LOAD_CALLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("MCPHOST_LOAD_CALLS=%q: want a positive number", v)
		}
		calls = n
	}
	fast := config.Reconnect{InitialDelay: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond}
	victim, steady := testServer(t, "victim"), testServer(t, "steady")
	victim.Reconnect = fast
	remote := &config.Server{ID: "remote", Transport: config.TransportHTTP, URL: hosttest.ServeHTTP(t, hosttest.NewEchoServer()), Enabled: true,
		StartupTimeout: bound, RequestTimeout: bound}
	h := startProcHost(t, []*config.Server{victim, steady, remote})
	servers := []string{"victim", "steady", "remote"}

	var (
		mu       sync.Mutex
		failures = map[string]int{}
		wrong    atomic.Int64
		ok       atomic.Int64
		kills    atomic.Int64
		peakHeap atomic.Uint64
	)
	sampleHeap := func() uint64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		for {
			p := peakHeap.Load()
			if ms.HeapInuse <= p || peakHeap.CompareAndSwap(p, ms.HeapInuse) {
				break
			}
		}
		return ms.HeapInuse
	}
	runtime.GC()
	heapBefore := sampleHeap()

	stop := make(chan struct{})
	var killer sync.WaitGroup
	killer.Add(1)
	go func() {
		defer killer.Done()
		tick := time.NewTicker(loadKillEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			sampleHeap()
			ctx, cancel := context.WithTimeout(context.Background(), bound)
			res, err := h.CallTool(ctx, "victim:pid", nil)
			cancel()
			if err != nil {
				continue // it is restarting
			}
			if pid, err := strconv.Atoi(hosttest.Text(res)); err == nil && syscall.Kill(pid, syscall.SIGKILL) == nil {
				kills.Add(1)
			}
		}
	}()

	start := time.Now()
	var callers sync.WaitGroup
	for c := range loadCallers {
		callers.Add(1)
		go func() {
			defer callers.Done()
			for i := range calls {
				id := servers[(c+i)%len(servers)]
				want := fmt.Sprintf("caller %d call %d", c, i)
				ctx, cancel := context.WithTimeout(context.Background(), bound)
				res, err := h.CallTool(ctx, id+":echo", map[string]any{"text": want})
				cancel()
				switch {
				case err != nil:
					if !strings.Contains(err.Error(), fmt.Sprintf("server %q", id)) {
						t.Errorf("error without the server's name: %v", err)
					}
					mu.Lock()
					failures[id+": "+failureCause(err)]++
					mu.Unlock()
				case res.IsError || hosttest.Text(res) != want:
					wrong.Add(1)
					t.Errorf("call %q on %s got %+v", want, id, res)
				default:
					ok.Add(1)
				}
			}
		}()
	}
	callers.Wait()
	took := time.Since(start)
	close(stop)
	killer.Wait()
	runtime.GC()
	heapAfter := sampleHeap()

	total := int64(loadCallers * calls)
	failed := total - ok.Load() - wrong.Load()
	t.Logf("%d callers x %d calls = %d calls over 3 servers in %s: %.0f calls/s; %d ok, %d failed, %d wrong answers; %d kills of victim",
		loadCallers, calls, total, took.Round(time.Millisecond), float64(total)/took.Seconds(), ok.Load(), failed, wrong.Load(), kills.Load())
	var causes []string
	for k, n := range failures {
		causes = append(causes, fmt.Sprintf("  %6d  %s", n, k))
	}
	sort.Strings(causes)
	if len(causes) > 0 {
		t.Logf("failures by cause:\n%s", strings.Join(causes, "\n"))
	}
	t.Logf("heap in use: %.1f MiB before, %.1f MiB peak, %.1f MiB after (after GC)",
		mib(heapBefore), mib(peakHeap.Load()), mib(heapAfter))

	if wrong.Load() != 0 {
		t.Errorf("%d calls got a wrong answer", wrong.Load())
	}
	mu.Lock()
	for k := range failures {
		if !strings.HasPrefix(k, "victim: ") {
			t.Errorf("a server that was not killed failed calls: %s", k)
		}
	}
	mu.Unlock()
	if took > 2*loadKillEvery && kills.Load() == 0 {
		t.Error("the victim was never killed")
	}
	// Flat memory: what is left after the run does not grow with the number
	// of calls (the bound is loose: the point is to catch a leak per call).
	if heapAfter > heapBefore+64<<20 {
		t.Errorf("heap grew from %.1f to %.1f MiB", mib(heapBefore), mib(heapAfter))
	}
	for _, id := range servers {
		waitState(t, h, id, host.StateReady)
		echoWorks(t, h, id)
	}
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// failureCause reduces an error to its kind, for the report.
func failureCause(err error) string {
	msg := err.Error()
	for _, cause := range []string{
		"connection lost during the call", "is reconnecting", "no answer within", "is still connecting",
	} {
		if strings.Contains(msg, cause) {
			return cause
		}
	}
	return msg
}

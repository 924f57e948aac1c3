package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Benchmarks of one hook call through the pool, with timeout_ms set (as
// always in production: it costs, see FACTS on wazero#2466).
//
//	go test -run '^$' -bench . ./plugins/
//	MCPHOST_BENCH_PLUGIN=examples/plugins/deny-destructive/plugin.wasm go test -run '^$' -bench Policy ./plugins/
//
// MCPHOST_BENCH_PLUGIN (default testdata/plugins/allow-all.wasm) is the
// plugin; MCPHOST_BENCH_HOOK (default policy) and MCPHOST_BENCH_INPUT (a
// JSON file; default a typical request for the hook) choose the call.
// Besides ns/op, p50-ns and p99-ns report the distribution of single calls.

func benchPlugin(b *testing.B) (*Plugin, abi.Hook, []byte) {
	b.Helper()
	path := os.Getenv("MCPHOST_BENCH_PLUGIN")
	if path == "" {
		path = fixture("allow-all")
	}
	hook := abi.HookPolicy
	if h := os.Getenv("MCPHOST_BENCH_HOOK"); h != "" {
		var err error
		if hook, err = abi.ParseHook(h); err != nil {
			b.Fatal(err)
		}
	}
	var input []byte
	if f := os.Getenv("MCPHOST_BENCH_INPUT"); f != "" {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		input = data
	} else {
		input = mustJSON(b, benchInputs[hook])
	}
	s := SpecForFile(path)
	opts, _ := testOptions(b)
	p, err := Open(context.Background(), s, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close(context.Background()) })
	if !slices.Contains(p.Hooks(), hook) {
		b.Skipf("%s has no %s hook", path, hook)
	}
	b.Logf("%s: %s, %d-byte input, timeout_ms %d", path, hook, len(input), p.Limits().Timeout.Milliseconds())
	return p, hook, input
}

var benchInputs = map[abi.Hook]any{
	abi.HookPolicy: &abi.PolicyRequest{
		Server: "github", Tool: "delete_repository", Name: "mcp__github__delete_repository",
		Arguments:   map[string]any{"owner": "acme", "repo": "widgets", "confirm": true},
		Annotations: &abi.ToolAnnotations{DestructiveHint: new(true)},
		Caller:      &abi.Caller{Kind: "cli"},
	},
	abi.HookFilterTools: &abi.FilterToolsRequest{Server: "files", Tools: []abi.ToolInfo{{Name: "read_file"}, {Name: "write_file"}, {Name: "delete_file"}}},
	abi.HookMapNames:    &abi.MapNamesRequest{Tools: []abi.NameKey{{Server: "a", Tool: "x"}, {Server: "b", Tool: "y"}}, Constraints: abi.NameConstraints{MaxLength: 64, Pattern: "^[a-zA-Z0-9_-]{1,64}$"}},
	abi.HookTransformResult: &abi.TransformResultRequest{Server: "files", Tool: "read_file", Name: "files_read_file",
		Result: json.RawMessage(`{"content":[{"type":"text","text":"hello world, token ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]}`)},
	abi.HookAuth: &abi.AuthRequest{Server: "api", URL: "https://api.example.com/mcp"},
}

// BenchmarkHook: sequential calls of the raw hook (Invoke: no JSON work on
// the host side).
func BenchmarkHook(b *testing.B) {
	p, hook, input := benchPlugin(b)
	timeEach(b, func(ctx context.Context) error {
		_, err := p.Invoke(ctx, hook, input)
		return err
	})
}

// timeEach runs call in the benchmark loop, timing each call for the
// percentiles.
func timeEach(b *testing.B, call func(context.Context) error) {
	ctx := context.Background()
	durations := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if err := call(ctx); err != nil {
			b.Fatal(err)
		}
		durations = append(durations, time.Since(start))
	}
	reportPercentiles(b, durations)
}

// BenchmarkPolicy: the typed policy adapter, as the host calls it (marshal
// the request, call, decode strictly).
func BenchmarkPolicy(b *testing.B) {
	p, hook, _ := benchPlugin(b)
	if hook != abi.HookPolicy {
		b.Skip("MCPHOST_BENCH_HOOK is not policy")
	}
	req := benchInputs[abi.HookPolicy].(*abi.PolicyRequest)
	timeEach(b, func(ctx context.Context) error {
		_, err := p.Policy(ctx, req)
		return err
	})
}

// BenchmarkPolicyParallel: concurrent callers sharing the pool.
func BenchmarkPolicyParallel(b *testing.B) {
	p, hook, _ := benchPlugin(b)
	if hook != abi.HookPolicy {
		b.Skip("MCPHOST_BENCH_HOOK is not policy")
	}
	req := benchInputs[abi.HookPolicy].(*abi.PolicyRequest)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := p.Policy(context.Background(), req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkTransform: the typed transform_result adapter on text results of
// 1 KiB to 16 MiB (MCPHOST_BENCH_PLUGIN a transform plugin, such as the
// redact-secrets example; memory_mb 256 for the largest).
func BenchmarkTransform(b *testing.B) {
	path := os.Getenv("MCPHOST_BENCH_PLUGIN")
	if path == "" {
		b.Skip("set MCPHOST_BENCH_PLUGIN to a transform_result plugin")
	}
	s := SpecForFile(path)
	s.Limits.MemoryMB = 256
	s.Limits.MaxOutputBytes = 64 << 20
	s.Limits.Timeout = time.Minute
	opts, _ := testOptions(b)
	p, err := Open(context.Background(), s, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close(context.Background()) })
	if !slices.Contains(p.Hooks(), abi.HookTransformResult) {
		b.Skipf("%s has no transform_result hook", path)
	}
	for _, size := range []int{1 << 10, 64 << 10, 1 << 20, 16 << 20} {
		result, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": benchText(size)}}})
		req := &abi.TransformResultRequest{Server: "files", Tool: "read_file", Name: "files_read_file", Result: result}
		b.Run(sizeName(size), func(b *testing.B) {
			b.SetBytes(int64(size))
			timeEach(b, func(ctx context.Context) error {
				_, err := p.TransformResult(ctx, req)
				return err
			})
		})
	}
}

// benchText is size bytes of words with a GitHub token every 1000 words.
func benchText(size int) string {
	words := []string{"lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit"}
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		if i%1000 == 999 {
			sb.WriteString("ghp_" + strings.Repeat("a", 36) + " ")
			continue
		}
		sb.WriteString(words[(i*7+i/3)%len(words)])
		sb.WriteByte(' ')
	}
	return sb.String()[:size]
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}

// BenchmarkLoad: loading MCPHOST_BENCH_PLUGIN as a new process does, with
// the on-disk compilation cache warm (a new Cache each time: nothing in
// memory); cold-ms is the first load, into an empty cache.
func BenchmarkLoad(b *testing.B) {
	path := os.Getenv("MCPHOST_BENCH_PLUGIN")
	if path == "" {
		path = fixture("allow-all")
	}
	dir := b.TempDir()
	load := func() time.Duration {
		c, err := NewCache(dir)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		p, err := Open(context.Background(), SpecForFile(path), Options{Cache: c})
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		p.Close(context.Background())
		return took
	}
	cold := load()
	durations := make([]time.Duration, 0, b.N)
	for b.Loop() {
		durations = append(durations, load())
	}
	b.ReportMetric(float64(cold.Microseconds())/1000, "cold-ms")
	reportPercentiles(b, durations)
}

// openPool loads a fixture with a pool of size instances.
func openPool(t *testing.T, file string, size int) *Plugin {
	t.Helper()
	opts, _ := testOptions(t)
	opts.PoolSize = size
	p, err := Open(context.Background(), spec(file, file), opts)
	if err != nil {
		t.Fatalf("open %s: %v", file, err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func TestBenchCounted(t *testing.T) {
	p := openPool(t, "allow-all", 2)
	r, err := Bench(ctx(t), p, abi.HookPolicy, mustJSON(t, shortReq), BenchOptions{Calls: 60, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Calls != 60 || r.Errors != 0 || r.FirstError != nil || r.Invalid != nil {
		t.Fatalf("calls %d, errors %d (%v), invalid %v: want 60 good calls", r.Calls, r.Errors, r.FirstError, r.Invalid)
	}
	// The default warm-up: max(concurrency, calls/10).
	if r.Concurrency != 2 || r.Warmup != 6 || r.Hook != abi.HookPolicy {
		t.Fatalf("concurrency %d, warmup %d, hook %s", r.Concurrency, r.Warmup, r.Hook)
	}
	if got := r.Stats.Calls; got != 66 {
		t.Errorf("plugin counted %d calls, want 66 (6 warm-up, 60 measured)", got)
	}
	if !slices.IsSorted(r.Latencies) || len(r.Latencies) != 60 {
		t.Fatalf("latencies not sorted or %d of them", len(r.Latencies))
	}
	if !(0 < r.Median && r.Median <= r.P90 && r.P90 <= r.P99 && r.P99 <= r.Max) || r.Max != r.Latencies[59] {
		t.Fatalf("percentiles out of order: %s %s %s %s", r.Median, r.P90, r.P99, r.Max)
	}
	if r.Elapsed <= 0 || r.CallsPerSec <= 0 {
		t.Fatalf("elapsed %s, calls/s %f", r.Elapsed, r.CallsPerSec)
	}
}

func TestBenchTimed(t *testing.T) {
	p := openPool(t, "allow-all", 1)
	r, err := Bench(ctx(t), p, abi.HookPolicy, mustJSON(t, shortReq), BenchOptions{Duration: 30 * time.Millisecond, Warmup: 3})
	if err != nil {
		t.Fatal(err)
	}
	if r.Calls == 0 || r.Elapsed < 30*time.Millisecond || r.Warmup != 3 || r.Concurrency != 1 {
		t.Fatalf("calls %d in %s, warmup %d, concurrency %d", r.Calls, r.Elapsed, r.Warmup, r.Concurrency)
	}
}

func TestBenchFailures(t *testing.T) {
	p := openPool(t, "faults", 1)

	// The first call must succeed.
	_, err := Bench(ctx(t), p, abi.HookPolicy, mustJSON(t, longReq), BenchOptions{Calls: 5})
	var fe *FirstCallError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T), want a *FirstCallError", err, err)
	}
	wantError(t, fe.Err, KindTrap)
	if !strings.HasPrefix(err.Error(), "the first call failed, nothing to measure: ") {
		t.Errorf("error = %q", err)
	}

	// An output that is no answer is reported, and every call still runs.
	req := &abi.TransformResultRequest{Server: "s", Tool: "t", Name: "s_t", Result: []byte(`{"content":[]}`)}
	r, err := Bench(ctx(t), p, abi.HookTransformResult, mustJSON(t, req), BenchOptions{Calls: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Invalid == nil || r.Calls != 5 || r.Errors != 0 {
		t.Fatalf("invalid %v, calls %d, errors %d", r.Invalid, r.Calls, r.Errors)
	}
}

func TestBenchCanceled(t *testing.T) {
	p := openPool(t, "allow-all", 1)
	c, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Bench(c, p, abi.HookPolicy, mustJSON(t, shortReq), BenchOptions{Calls: 5})
	var fe *FirstCallError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v, want a *FirstCallError", err)
	}
	wantError(t, fe.Err, KindCanceled)
}

func TestBenchOptions(t *testing.T) {
	p := openPool(t, "allow-all", 1)
	in := mustJSON(t, shortReq)
	for _, o := range []BenchOptions{
		{},
		{Calls: -1},
		{Calls: 5, Concurrency: -1},
		{Duration: -time.Second},
		{Calls: 5, Warmup: -1},
	} {
		if r, err := Bench(ctx(t), p, abi.HookPolicy, in, o); err == nil || r != nil {
			t.Errorf("Bench(%+v) = %v, %v: want an error", o, r, err)
		}
	}
	if got := p.Stats().Calls; got != 0 {
		t.Errorf("%d calls made with bad options", got)
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	for _, c := range []struct {
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 0.5, 0},
		{d[:1], 0.99, 1},
		{d, 0, 1},
		{d, 0.5, 50},
		{d, 0.9, 90},
		{d, 0.99, 99},
		{d, 1, 100},
		{d[:3], 0.5, 2},
	} {
		if got := percentile(c.in, c.p); got != c.want {
			t.Errorf("percentile(%d values, %v) = %d, want %d", len(c.in), c.p, got, c.want)
		}
	}
}

package plugins

import (
	"context"
	"encoding/json"
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

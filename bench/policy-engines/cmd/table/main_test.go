package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
cpu: Some CPU
BenchmarkDecide/native-2         	 7413634	       100 ns/op	       0 B/op	       0 allocs/op
BenchmarkDecide/native-2         	 7147591	       300 ns/op	       0 B/op	       0 allocs/op
BenchmarkDecide/native-2         	 7147591	       200 ns/op	       0 B/op	       0 allocs/op
BenchmarkDecide/cel-go-2         	  560034	      2000 ns/op	    1664 B/op	      24 allocs/op
BenchmarkDecide/mcphost-rust-read-only-2 	15826	15000 ns/op
--- some log line
BenchmarkDecideParallel/cel-go   	  153012	      1000 ns/op
BenchmarkDecideParallel/cel-go-2 	  134283	      500 ns/op
BenchmarkDecideParallel/mcphost-rust-read-only 	17098	10000 ns/op
BenchmarkTransform/plugin/1KiB-2 	4334	53479 ns/op	  19.15 MB/s	   49650 B/op
BenchmarkTransform/plugin/16MiB-2 	1	1500000000 ns/op	  11.1 MB/s
BenchmarkTransform/go-regexp/1KiB-2 	2709	88054 ns/op	  11.63 MB/s
PASS
`

func TestTables(t *testing.T) {
	rs := newRuns()
	if err := rs.read(strings.NewReader(sample)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rs.policyTable(&b, "cel-go", "mcphost-rust-read-only")
	rs.transformTable(&b)
	out := b.String()
	for _, want := range []string{
		"| Engine | serial ns/decision | parallel decisions/s, -cpu 1 | parallel decisions/s, -cpu 2 | serial time × cel-go |",
		"| native | 200 | — | — | 0.10× |", // the median of 100, 300, 200
		"| cel-go | 2,000 | 1,000,000 | 2,000,000 | 1.00× |",
		"| mcphost-rust-read-only | 15,000 | 100,000 | — | 7.50× |",
		"mcphost-rust-read-only vs cel-go: 7.50× the time per decision serially; 0.10× the decisions/s at -cpu 1.",
		"| 1KiB | 53.5 µs | 88.1 µs | 19.1 | 11.6 |",
		"| 16MiB | 1.50 s | — | 11.1 | — |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

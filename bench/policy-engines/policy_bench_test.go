package policyengines

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The policy benchmarks: every engine decides BenchRequest, which must be
// denied; a wrong decision fails the benchmark, so no engine can be fast by
// deciding something else.
//
//	go test -run '^$' -bench 'Decide$' .
//	go test -run '^$' -bench DecideParallel -cpu 1,2,4 .
//
// The Wasm plugins need MCPHOST_BUILT_PLUGINS (see README.md); without it
// their benchmarks are skipped.

// BenchmarkDecide: one caller, one decision after the other.
func BenchmarkDecide(b *testing.B) {
	req := BenchRequest()
	for _, e := range engines {
		b.Run(e.name, func(b *testing.B) {
			d := e.start(b)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				got, err := d.Decide(ctx, req)
				if err != nil {
					b.Fatal(err)
				}
				if got != abi.Deny {
					b.Fatalf("decision %q, want deny", got)
				}
			}
		})
	}
}

// BenchmarkDecideParallel: GOMAXPROCS callers sharing one engine (for the
// plugins, one pool of instances, sized for GOMAXPROCS as the host sizes
// it). decisions/s is 1e9 / ns/op.
func BenchmarkDecideParallel(b *testing.B) {
	req := BenchRequest()
	for _, e := range engines {
		if e.serialOnly {
			continue
		}
		b.Run(e.name, func(b *testing.B) {
			d := e.start(b)
			warm(b, d, req)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					got, err := d.Decide(ctx, req)
					if err != nil {
						b.Error(err)
						return
					}
					if got != abi.Deny {
						b.Errorf("decision %q, want deny", got)
						return
					}
				}
			})
		})
	}
}

// warm makes GOMAXPROCS concurrent decisions a few times before the timer
// starts, so that a plugin's pool has its instances (a Go guest's start
// takes milliseconds) and the timed loop measures the steady state.
func warm(b *testing.B, d Decider, req *abi.PolicyRequest) {
	b.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, runtime.GOMAXPROCS(0))
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for range 10 {
				if _, err := d.Decide(context.Background(), req); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

package gateway_test

import (
	"net/http"
	"runtime"
	"testing"

	"github.com/mcphost/mcphost/host/gateway"
)

// What an idle Streamable HTTP session costs the gateway: the live heap
// and goroutine stacks after b.N sessions are initialised and left idle,
// less those before, per session (B/session), and its goroutines. Run
// with a fixed count, e.g.
//
//	go test -run='^$' -bench=IdleSessionMemory -benchtime=2000x ./host/gateway/
func BenchmarkIdleSessionMemory(b *testing.B) {
	url, _ := benchGatewayWith(b, "inprocess", gateway.HTTPOptions{MaxSessionsPerCaller: b.N + 1, MaxSessions: b.N + 1})
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	b.Cleanup(hc.CloseIdleConnections)
	// One session first, outside the measure (first-use costs).
	if _, err := openRawSession(hc, url); err != nil {
		b.Fatal(err)
	}
	before, goroutines := liveHeap(), runtime.NumGoroutine()
	b.ResetTimer()
	for range b.N {
		if _, err := openRawSession(hc, url); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(liveHeap()-before)/float64(b.N), "B/session")
	b.ReportMetric(float64(runtime.NumGoroutine()-goroutines)/float64(b.N), "goroutines/session")
}

func liveHeap() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc + m.StackInuse)
}

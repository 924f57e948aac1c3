package gateway_test

import (
	"net/http"
	"runtime"
	"testing"

	"github.com/mcphost/mcphost/host/gateway"
)

// What an idle Streamable HTTP session costs the gateway: the live heap
// after b.N sessions are initialised and left idle, less the live heap
// before, per session (B/session). Run with a fixed count, e.g.
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
	before := liveHeap()
	b.ResetTimer()
	for range b.N {
		if _, err := openRawSession(hc, url); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(liveHeap()-before)/float64(b.N), "B/session")
}

func liveHeap() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

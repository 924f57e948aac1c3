package plugins

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// newCountingServer is a loopback HTTP server that counts requests under
// key in hits and answers 200 "ok".
func newCountingServer(t testing.TB, hits *sync.Map, key string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := hits.LoadOrStore(key, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		w.Header().Set("X-Test", "yes")
		w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func count(hits *sync.Map, key string) int64 {
	n, ok := hits.Load(key)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}

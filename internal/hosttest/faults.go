package hosttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionHeader is the header carrying the Streamable HTTP session id.
const sessionHeader = "Mcp-Session-Id"

// Faults injects faults into a Streamable HTTP server: install its
// Middleware (with ServeHTTP or NewRestartableHTTP) and flip faults while the
// test runs. Its methods are safe for concurrent use. The zero value injects
// nothing; a Faults must not be copied after first use.
//
// For each request, in this order: the delay (see Delay) is waited; a
// request carrying a lost session id (see LoseSessions) is answered 404; a
// POST is failed if failures are pending (see FailNext); anything else goes
// to the server. Every answer, injected or not, is counted by status (see
// Count) when its header is written; a request whose client gives up during
// the delay is not counted.
type Faults struct {
	mu       sync.Mutex
	status   int // of the pending failures
	failLeft int
	delay    time.Duration
	seen     map[string]bool // session ids seen in requests or answers
	lost     map[string]bool // session ids to answer 404
	inflight map[string]map[*context.CancelFunc]bool
	counts   map[int]int
}

// FailNext answers the next n POST requests with status (e.g. 500 or 503)
// and a text body, without passing them to the server. It replaces failures
// still pending; FailNext(0, 0) cancels them. GET and DELETE requests are
// not failed.
func (f *Faults) FailNext(status, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status, f.failLeft = status, n
}

// LoseSessions makes the server forget every session issued so far, as a
// restarted server does: from now on, a request carrying one of their ids in
// the Mcp-Session-Id header is answered 404 (which go-sdk clients report as
// mcp.ErrSessionMissing), and the requests of those sessions still in
// progress, such as the client's event stream, are ended. Sessions issued
// later work.
func (f *Faults) LoseSessions() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lost == nil {
		f.lost = make(map[string]bool)
	}
	for id := range f.seen {
		f.lost[id] = true
		for cancel := range f.inflight[id] {
			(*cancel)()
		}
	}
}

// Delay makes every request arriving from now on wait d before it is
// handled (or failed); a request whose client gives up first is dropped.
// Delay(0) stops delaying.
func (f *Faults) Delay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.delay = d
}

// Count returns how many answers with this HTTP status were written so far,
// injected ones included.
func (f *Faults) Count(status int) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[status]
}

// Counts returns a copy of the answer counts by HTTP status.
func (f *Faults) Counts() map[int]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.counts)
}

// Middleware returns the middleware injecting f's faults.
func (f *Faults) Middleware() Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f.serve(next, w, r)
		})
	}
}

func (f *Faults) serve(next http.Handler, w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	d := f.delay
	f.mu.Unlock()
	if d > 0 {
		// Read the body first: net/http notices that the client has gone,
		// and cancels the request's context, only once it is read.
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		t := time.NewTimer(d)
		select {
		case <-r.Context().Done():
			t.Stop()
			return
		case <-t.C:
		}
	}

	id := r.Header.Get(sessionHeader)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	f.mu.Lock()
	switch {
	case id != "" && f.lost[id]:
		f.countLocked(http.StatusNotFound)
		f.mu.Unlock()
		http.Error(w, "hosttest: session lost", http.StatusNotFound)
		return
	case r.Method == http.MethodPost && f.failLeft > 0:
		f.failLeft--
		status := f.status
		f.countLocked(status)
		f.mu.Unlock()
		http.Error(w, fmt.Sprintf("hosttest: injected failure (%d)", status), status)
		return
	}
	if id != "" {
		f.seeLocked(id)
		if f.inflight == nil {
			f.inflight = make(map[string]map[*context.CancelFunc]bool)
		}
		if f.inflight[id] == nil {
			f.inflight[id] = make(map[*context.CancelFunc]bool)
		}
		f.inflight[id][&cancel] = true
		defer func() {
			f.mu.Lock()
			delete(f.inflight[id], &cancel)
			if len(f.inflight[id]) == 0 {
				delete(f.inflight, id)
			}
			f.mu.Unlock()
		}()
	}
	f.mu.Unlock()

	rec := &recorder{ResponseWriter: w, onHeader: func(status int, h http.Header) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.countLocked(status)
		if issued := h.Get(sessionHeader); issued != "" {
			f.seeLocked(issued)
		}
	}}
	next.ServeHTTP(rec, r.WithContext(ctx))
	rec.done()
}

func (f *Faults) countLocked(status int) {
	if f.counts == nil {
		f.counts = make(map[int]int)
	}
	f.counts[status]++
}

func (f *Faults) seeLocked(id string) {
	if f.seen == nil {
		f.seen = make(map[string]bool)
	}
	f.seen[id] = true
}

// recorder reports the status and header of an answer when it is written
// (at once for an event stream, which only ends with the session).
type recorder struct {
	http.ResponseWriter
	onHeader func(status int, h http.Header)
	wrote    bool
}

func (r *recorder) header(status int) {
	if !r.wrote {
		r.wrote = true
		r.onHeader(status, r.Header())
	}
}

func (r *recorder) WriteHeader(status int) {
	if status >= 200 { // not an informational answer
		r.header(status)
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	r.header(http.StatusOK)
	return r.ResponseWriter.Write(p)
}

// Flush implements http.Flusher, which event streams need.
func (r *recorder) Flush() {
	r.header(http.StatusOK)
	_ = http.NewResponseController(r.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// done reports an answer the handler ended without writing anything (200).
func (r *recorder) done() { r.header(http.StatusOK) }

// RestartableHTTP serves an *mcp.Server over Streamable HTTP on a fixed
// 127.0.0.1 port that a test can stop (connections are then refused) and
// start again at the same URL, as a server process that dies and comes
// back. Each start serves a new Streamable HTTP handler: sessions do not
// survive a restart (their requests are answered 404, as by a restarted
// server), and Stop closes the server sessions it created. Its methods are
// safe for concurrent use.
//
// A client whose HTTP transport kept a connection alive from before a Stop
// may see its first request after the restart fail with EOF, as with a real
// server (http.DefaultClient, the go-sdk default, does so). Tests that need
// the first request after a restart to succeed give each client its own
// http.Transport, or close its idle connections, before the restart.
type RestartableHTTP struct {
	srv  *mcp.Server
	mw   []Middleware
	addr string

	mu     sync.Mutex
	run    *httpRun // nil when stopped
	closed bool     // the test ended
}

// httpRun is one start of a RestartableHTTP.
type httpRun struct {
	hs     *http.Server
	served chan struct{} // closed when Serve returns

	mu  sync.Mutex
	ids map[string]bool // session ids issued
}

// NewRestartableHTTP serves srv over Streamable HTTP, wrapped in mw (the
// first outermost, as for ServeHTTP), on a free 127.0.0.1 port until the
// test ends, when it is stopped for good.
func NewRestartableHTTP(t testing.TB, srv *mcp.Server, mw ...Middleware) *RestartableHTTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("hosttest: listen: %v", err)
	}
	r := &RestartableHTTP{srv: srv, mw: mw, addr: ln.Addr().String()}
	r.mu.Lock()
	r.serveLocked(ln)
	r.mu.Unlock()
	t.Cleanup(func() {
		r.mu.Lock()
		r.closed = true
		r.mu.Unlock()
		r.Stop()
	})
	return r
}

// URL returns the endpoint URL, the same across restarts.
func (r *RestartableHTTP) URL() string { return "http://" + r.addr }

// Running reports whether the server is started.
func (r *RestartableHTTP) Running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.run != nil
}

// Stop closes the listener and every connection, event streams included,
// so that requests fail: on a new connection with "connection refused", on
// a connection kept alive from before with EOF or a reset. It closes the
// server sessions of this run (in the background: a session waits for its
// calls in progress). Stopping a stopped server does nothing.
func (r *RestartableHTTP) Stop() {
	r.mu.Lock()
	run := r.run
	r.run = nil
	r.mu.Unlock()
	if run == nil {
		return
	}
	run.hs.Close()
	<-run.served
	run.mu.Lock()
	ids := maps.Clone(run.ids)
	run.mu.Unlock()
	for ss := range r.srv.Sessions() {
		if ids[ss.ID()] {
			go ss.Close()
		}
	}
}

// Start listens again on the same port and serves with a new handler. It
// retries for a few seconds while the port is busy (another socket may hold
// it for a moment). Starting a running server does nothing; starting after
// the test ended is an error.
func (r *RestartableHTTP) Start() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errors.New("hosttest: RestartableHTTP started after the test ended")
	}
	if r.run != nil {
		return nil
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ln, err := net.Listen("tcp", r.addr)
		if err == nil {
			r.serveLocked(ln)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("hosttest: restart on %s: %w", r.addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Restart stops the server and starts it again.
func (r *RestartableHTTP) Restart() error {
	r.Stop()
	return r.Start()
}

func (r *RestartableHTTP) serveLocked(ln net.Listener) {
	run := &httpRun{served: make(chan struct{}), ids: make(map[string]bool)}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return r.srv }, nil)
	inner := h
	h = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec := &recorder{ResponseWriter: w, onHeader: func(_ int, hdr http.Header) {
			if id := hdr.Get(sessionHeader); id != "" {
				run.mu.Lock()
				run.ids[id] = true
				run.mu.Unlock()
			}
		}}
		inner.ServeHTTP(rec, req)
		rec.done()
	})
	for i := len(r.mw) - 1; i >= 0; i-- {
		h = r.mw[i](h)
	}
	run.hs = &http.Server{Handler: h, ErrorLog: log.New(io.Discard, "", 0)}
	go func() {
		defer close(run.served)
		_ = run.hs.Serve(ln)
	}()
	r.run = run
}

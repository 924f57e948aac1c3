package gateway

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of the session bounds ("mcphost serve" flags; RATIONALE.md says
// why these numbers).
const (
	DefaultSessionIdleTimeout   = 30 * time.Minute
	DefaultMaxSessionsPerCaller = 100
	DefaultMaxSessions          = 10000
)

// sessions bounds the clients' sessions of both HTTP transports: at most
// perCaller per caller (its token's identity, else its address) and total
// in all. A new session over a bound closes the caller's (or anyone's)
// least recently used idle session, and is refused when none is idle; a
// session idle for idle is closed. A client whose session was closed gets
// 404 and initialises again, as the specification says.
type sessions struct {
	perCaller, total int
	idle             time.Duration

	mu       sync.Mutex
	seq      uint64 // orders uses: the least recently used goes first
	byID     map[string]*session
	byCaller map[string]map[*session]struct{}
	count    int // sessions and reservations
}

// session is one client session (or the reservation of one being made).
type session struct {
	id       string // "" while reserved
	caller   string
	close    func() // ends the session; nil while reserved
	inFlight int    // requests being answered: not idle
	used     uint64 // seq at the last use
	timer    *time.Timer
	gone     bool
}

func newSessions(perCaller, total int, idle time.Duration) *sessions {
	if perCaller <= 0 {
		perCaller = DefaultMaxSessionsPerCaller
	}
	if total <= 0 {
		total = DefaultMaxSessions
	}
	if idle <= 0 {
		idle = DefaultSessionIdleTimeout
	}
	return &sessions{perCaller: perCaller, total: total, idle: idle, byID: map[string]*session{}, byCaller: map[string]map[*session]struct{}{}}
}

// errTooManySessions says which bound refused a new session.
type errTooManySessions struct {
	caller bool
	limit  int
}

func (e errTooManySessions) Error() string {
	if e.caller {
		return fmt.Sprintf("gateway: this caller has %d sessions open, all busy: end one (DELETE /mcp) or wait for one to finish", e.limit)
	}
	return fmt.Sprintf("gateway: %d sessions are open, all busy: try again later", e.limit)
}

// reserve makes room for a new session of caller, closing idle ones as the
// bounds require. The reservation counts until register or drop.
func (s *sessions) reserve(caller string) (*session, error) {
	var evicted []*session
	defer func() {
		for _, e := range evicted {
			e.close() // outside the lock: closing runs callbacks
		}
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.byCaller[caller]) >= s.perCaller {
		e := s.leastRecentlyUsed(s.byCaller[caller])
		if e == nil {
			return nil, errTooManySessions{caller: true, limit: s.perCaller}
		}
		evicted = append(evicted, s.forgetLocked(e))
	}
	for s.count >= s.total {
		var e *session
		for _, c := range s.byCaller {
			if o := s.leastRecentlyUsed(c); o != nil && (e == nil || o.used < e.used) {
				e = o
			}
		}
		if e == nil {
			return nil, errTooManySessions{limit: s.total}
		}
		evicted = append(evicted, s.forgetLocked(e))
	}
	e := &session{caller: caller, inFlight: 1}
	s.add(e)
	return e, nil
}

func (s *sessions) add(e *session) {
	c := s.byCaller[e.caller]
	if c == nil {
		c = map[*session]struct{}{}
		s.byCaller[e.caller] = c
	}
	c[e] = struct{}{}
	s.count++
}

// leastRecentlyUsed is the idle session of set used longest ago; nil if
// none is idle (reservations never are).
func (s *sessions) leastRecentlyUsed(set map[*session]struct{}) *session {
	var lru *session
	for e := range set {
		if e.inFlight == 0 && e.close != nil && (lru == nil || e.used < lru.used) {
			lru = e
		}
	}
	return lru
}

// register makes a reservation the session id, which close ends: from
// now on it can be found by its ID, and goes when idle too long.
func (s *sessions) register(e *session, id string, close func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.gone || e.close != nil {
		return
	}
	e.close, e.id = close, id
	s.byID[e.id] = e
	e.timer = time.AfterFunc(s.idle, func() { s.expire(e) })
	e.timer.Stop() // runs from the end of the request in flight
}

// lookup finds a live session by its ID.
func (s *sessions) lookup(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id]
}

// begin marks a request of e in flight: e is not idle until end.
func (s *sessions) begin(e *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e.inFlight++
	if e.timer != nil {
		e.timer.Stop()
	}
}

// end marks a request of e answered.
func (s *sessions) end(e *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.inFlight > 0 {
		e.inFlight--
	}
	s.seq++
	e.used = s.seq
	if e.inFlight == 0 && e.timer != nil && !e.gone {
		e.timer.Reset(s.idle)
	}
}

// expire closes e if it is still idle when its timer fires.
func (s *sessions) expire(e *session) {
	s.mu.Lock()
	if e.gone || e.inFlight > 0 {
		s.mu.Unlock()
		return
	}
	s.forgetLocked(e)
	s.mu.Unlock()
	e.close()
}

// drop forgets e (a reservation that made no session, a session that
// ended); idempotent.
func (s *sessions) drop(e *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forgetLocked(e)
}

func (s *sessions) forgetLocked(e *session) *session {
	if e.gone {
		return e
	}
	e.gone = true
	if e.timer != nil {
		e.timer.Stop()
	}
	if e.id != "" && s.byID[e.id] == e {
		delete(s.byID, e.id)
	}
	if c := s.byCaller[e.caller]; c != nil {
		delete(c, e)
		if len(c) == 0 {
			delete(s.byCaller, e.caller)
		}
	}
	s.count--
	return e
}

// len is how many sessions (and reservations) there are, for tests.
func (s *sessions) len(caller string) (ofCaller, all int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byCaller[caller]), s.count
}

// callerKey is whom the session bounds count a request against: the
// identity of its token, else its address.
func callerKey(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil && ti.UserID != "" {
		return "id:" + ti.UserID
	}
	return "addr:" + remoteHost(r)
}

// reservationKey carries a new Streamable HTTP session's reservation from
// the HTTP request that makes it to the initialize handler that names it
// (go-sdk runs a session's handlers under the context of the request that
// made it).
type reservationKey struct{}

type reservation struct {
	sessions *sessions
	session  *session
}

// registerSessions is the server's middleware that turns the reservation
// of a Streamable HTTP session into the session once it is initialised.
func (g *Gateway) registerSessions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "initialize" && err == nil {
			if r, ok := ctx.Value(reservationKey{}).(reservation); ok {
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss.ID() != "" {
					r.sessions.register(r.session, ss.ID(), func() { g.inflight.closeSession(ss) })
				}
			}
		}
		return res, err
	}
}

// streamable bounds the sessions of a Streamable HTTP handler: a request
// without a session reserves one (refused with 429 or 503 over the
// bounds), a request of a session keeps it from being idle while it runs.
func (s *sessions) streamable(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Mcp-Session-Id")
		if id == "" {
			if r.Method != http.MethodPost {
				h.ServeHTTP(w, r)
				return
			}
			e, err := s.reserve(callerKey(r))
			if err != nil {
				refuse(w, err)
				return
			}
			h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), reservationKey{}, reservation{s, e})))
			s.mu.Lock()
			made := e.close != nil
			s.mu.Unlock()
			if made {
				s.end(e)
			} else {
				s.drop(e) // not an initialize, or it failed: no session
			}
			return
		}
		e := s.lookup(id)
		if e == nil || e.caller != callerKey(r) || r.Method == http.MethodGet {
			// Unknown (go-sdk answers 404), another caller's (403), or
			// the standalone stream, which does not keep a session
			// from being idle.
			h.ServeHTTP(w, r)
			return
		}
		s.begin(e)
		rec := &statusRecorder{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		s.end(e)
		if (r.Method == http.MethodDelete && rec.status == http.StatusNoContent) || rec.status == http.StatusNotFound {
			s.drop(e) // ended by the client, or gone already
		}
	})
}

func refuse(w http.ResponseWriter, err error) {
	code := http.StatusServiceUnavailable
	if tm, ok := err.(errTooManySessions); ok && tm.caller {
		code = http.StatusTooManyRequests
	}
	w.Header().Set("Retry-After", "1")
	http.Error(w, err.Error(), code)
}

// statusRecorder notes the status of a response; it passes Flush on, which
// streams need.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(p)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

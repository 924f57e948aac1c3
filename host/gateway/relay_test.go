package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var elicitCaps = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}

// With calls of two callers waiting on one backend, a backend's request
// could be either's: it is declined rather than shown to the wrong one.
func TestRelayDeclinesAmbiguousRequests(t *testing.T) {
	r := NewRelay()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	block := func(ctx context.Context) (mcp.Result, error) { <-ctx.Done(); return nil, ctx.Err() }
	a, _ := r.start(ctx, "b", "alice\x00s1", nil, "tools/call t", elicitCaps, block)
	defer r.finish(a)
	if r.latest("b") != a {
		t.Fatal("one caller's call: the request goes to it")
	}
	bob, _ := r.start(ctx, "b", "bob\x00s2", nil, "tools/call t", elicitCaps, block)
	defer r.finish(bob)
	res, err := r.elicit(ctx, "b", &mcp.ElicitParams{Message: "alice's secret question"})
	if err != nil || res.Action != "decline" {
		t.Fatalf("ambiguous elicitation: %+v %v; want a decline", res, err)
	}
}

// A call whose client never answers its input requests is forgotten when
// its time is up: nothing stays pending, shutdown does not wait for it.
func TestRelayForgetsAbandonedCalls(t *testing.T) {
	r := NewRelay()
	r.wait = 50 * time.Millisecond
	ctx := context.Background()
	p, _ := r.start(ctx, "b", "alice\x00s1", nil, "tools/call t", elicitCaps, func(ctx context.Context) (mcp.Result, error) {
		_, err := r.elicit(ctx, "b", &mcp.ElicitParams{Message: "still there?"})
		return nil, err
	})
	res, err := r.next(ctx, p)
	if err != nil || len(res.asks) != 1 {
		t.Fatalf("first round: %+v %v", res, err)
	}
	// The client goes away without answering.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if !r.waitIdle(wctx) {
		t.Fatal("the abandoned call is still pending")
	}
	if r.latest("b") != nil {
		t.Fatal("an ended call still takes backends' requests")
	}
}

// Two input requests of one call under the same backend key reach the
// client under distinct keys, and each answer goes back to its asker.
func TestRelayKeepsKeysApart(t *testing.T) {
	r := NewRelay()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan string, 2)
	p, _ := r.start(ctx, "b", "alice\x00s1", nil, "tools/call t", elicitCaps, func(ctx context.Context) (mcp.Result, error) {
		for _, msg := range []string{"first", "second"} {
			go func() {
				answers, err := r.inputs(ctx, "b", mcp.InputRequestMap{"k": &mcp.ElicitParams{Message: msg}})
				if err != nil {
					got <- err.Error()
					return
				}
				got <- msg + "=" + answers["k"].(*mcp.ElicitResult).Action
			}()
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	defer r.finish(p)
	asks := mcp.InputRequestMap{}
	for len(asks) < 2 {
		s, err := r.next(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		for id, req := range s.asks {
			asks[id] = req
		}
		if len(asks) < 2 {
			time.Sleep(time.Millisecond) // the other asker is on its way
		}
	}
	if _, ok := asks["k"]; !ok {
		t.Fatalf("keys %v: want the backend's key for one of them", asks)
	}
	answers := mcp.InputResponseMap{}
	for id, req := range asks {
		answers[id] = &mcp.ElicitResult{Action: map[string]string{"first": "accept", "second": "decline"}[req.(*mcp.ElicitParams).Message]}
	}
	p.answer(answers)
	want := map[string]bool{"first=accept": true, "second=decline": true}
	for range 2 {
		if g := <-got; !want[g] {
			t.Fatalf("an asker got %q", g)
		}
	}
}

// A URL elicitation goes only to clients that declared url; a form only to
// those that can take forms.
func TestCanElicit(t *testing.T) {
	form, link := &mcp.ElicitParams{}, &mcp.ElicitParams{Mode: "url", URL: "https://example.test/"}
	for _, c := range []struct {
		caps       *mcp.ElicitationCapabilities
		form, link bool
	}{
		{nil, false, false},
		{&mcp.ElicitationCapabilities{}, true, false},
		{&mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}, true, false},
		{&mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}, false, true},
	} {
		caps := &mcp.ClientCapabilities{Elicitation: c.caps}
		if canElicit(caps, form) != c.form || canElicit(caps, link) != c.link {
			t.Errorf("caps %+v: form %v url %v; want %v %v", c.caps, canElicit(caps, form), canElicit(caps, link), c.form, c.link)
		}
	}
}

// Requests in flight are bounded per caller: past the bound a new one is
// refused, and finishing one makes room.
func TestRelayBoundsPendingPerCaller(t *testing.T) {
	r := NewRelay()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	block := func(ctx context.Context) (mcp.Result, error) { <-ctx.Done(); return nil, ctx.Err() }
	var ps []*pending
	for range maxPendingPerCaller {
		p, err := r.start(ctx, "b", "alice\x00s1", nil, "tools/call t", elicitCaps, block)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if _, err := r.start(ctx, "b", "alice\x00s1", nil, "tools/call t", elicitCaps, block); err != errTooManyPending {
		t.Fatalf("request %d of one caller: %v; want refused", maxPendingPerCaller+1, err)
	}
	// A session more does not make a caller more.
	if _, err := r.start(ctx, "b", "alice\x00s2", nil, "tools/call t", elicitCaps, block); err != errTooManyPending {
		t.Fatalf("the same caller in another session: %v; want refused", err)
	}
	bob, err := r.start(ctx, "b", "bob\x00s2", nil, "tools/call t", elicitCaps, block)
	if err != nil {
		t.Fatalf("another caller: %v", err)
	}
	r.finish(bob)
	r.finish(ps[0])
	r.finish(ps[0]) // twice: counted once
	p, err := r.start(ctx, "b", "alice\x00s1", nil, "tools/call t", elicitCaps, block)
	if err != nil {
		t.Fatalf("after one finished: %v", err)
	}
	for _, p := range append(ps[1:], p) {
		r.finish(p)
	}
	if len(r.pending) != 0 || len(r.perCaller) != 0 || len(r.byBack) != 0 {
		t.Fatalf("left behind: %d pending, %v per caller, %d backends", len(r.pending), r.perCaller, len(r.byBack))
	}
}

// A call that ends while next gathers its questions is not put back.
func TestRelayFinishedCallIsNotRotatedBack(t *testing.T) {
	r := NewRelay()
	ctx := context.Background()
	asked := make(chan struct{})
	p, err := r.start(ctx, "b", "alice\x00s1", nil, "tools/call t", elicitCaps, func(ctx context.Context) (mcp.Result, error) {
		close(asked)
		_, err := r.elicit(ctx, "b", &mcp.ElicitParams{Message: "?"})
		return nil, err
	})
	if err != nil {
		t.Fatal(err)
	}
	<-asked
	r.finish(p) // as the deadline would, before next rotates the state
	if _, err := r.next(ctx, p); err == nil {
		t.Fatal("next of a finished call handed out a round")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) != 0 {
		t.Fatalf("%d pending after finish", len(r.pending))
	}
}

// Two connections of one identity (clients sharing a token without
// sessions) may be two clients: a backend's request is declined rather
// than shown to either. Two calls on one connection are one client's.
func TestRelaySessionlessCallsAreAmbiguous(t *testing.T) {
	r := NewRelay()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	block := func(ctx context.Context) (mcp.Result, error) { <-ctx.Done(); return nil, ctx.Err() }
	connA, connB := new(int), new(int)
	a, _ := r.start(ctx, "b", "token:ci\x00", connA, "tools/call t", elicitCaps, block)
	defer r.finish(a)
	if r.latest("b") != a {
		t.Fatal("one call: the request goes to it")
	}
	a2, _ := r.start(ctx, "b", "token:ci\x00", connA, "tools/call t", elicitCaps, block)
	defer r.finish(a2)
	if r.latest("b") != a2 {
		t.Fatal("two calls on one connection: the request goes to the latest")
	}
	b, _ := r.start(ctx, "b", "token:ci\x00", connB, "tools/call t", elicitCaps, block)
	defer r.finish(b)
	if r.latest("b") != nil {
		t.Fatal("calls of one token on two connections: the request must be declined")
	}
}

// A backend's log line that did not come in order with the backend's
// answers (Streamable HTTP) may be about a call that ended, and a line
// while two clients' calls wait could be either's: neither goes to a
// client, nor to every client (which --forward-logs does only while no
// call waits).
func TestLogLineAttribution(t *testing.T) {
	r := NewRelay()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	block := func(ctx context.Context) (mcp.Result, error) { <-ctx.Done(); return nil, ctx.Err() }
	taken := func(p *pending) bool { // queued, or being sent
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.logs.queue) > 0 || p.logs.sent != nil
	}
	broadcast := 0
	fn := func(string, *mcp.LoggingMessageParams) { broadcast++ }
	r.logTo.Store(&fn)
	line := &mcp.LoggingMessageParams{Level: "info", Data: "x"}
	r.log("b", line, true)
	if broadcast != 1 {
		t.Fatalf("a line while no call waits: broadcast %d times, want once (--forward-logs)", broadcast)
	}
	a, _ := r.start(ctx, "b", "alice\x00s1", nil, "tools/call t", elicitCaps, block)
	defer r.finish(a)
	r.log("b", line, false)
	if taken(a) || broadcast != 1 {
		t.Fatalf("a line out of order with the answers went somewhere (alice: %v, broadcast %d)", taken(a), broadcast)
	}
	bob, _ := r.start(ctx, "b", "bob\x00s2", nil, "tools/call t", elicitCaps, block)
	defer r.finish(bob)
	r.log("b", line, true)
	if taken(a) || taken(bob) || broadcast != 1 {
		t.Fatalf("a line of two clients' calls went somewhere (alice %v, bob %v, broadcast %d)", taken(a), taken(bob), broadcast)
	}
}

package gateway

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func events(t *testing.T, s *boundedEvents, session, stream string, index int) ([]string, error) {
	t.Helper()
	var out []string
	for d, err := range s.After(context.Background(), session, stream, index) {
		if err != nil {
			return out, err
		}
		out = append(out, string(d))
	}
	return out, nil
}

func TestBoundedEvents(t *testing.T) {
	ctx := context.Background()
	s := newBoundedEvents(400 << 10) // less than a busy session's records and events
	s.Open(ctx, "a", "")
	s.Open(ctx, "a", "1")
	for i := range 3 {
		s.Append(ctx, "a", "1", []byte(fmt.Sprint("e", i)))
	}
	s.Append(ctx, "a", "", []byte("standalone"))
	if got, err := events(t, s, "a", "1", 0); err != nil || fmt.Sprint(got) != "[e1 e2]" {
		t.Fatalf("after 0: %v %v", got, err)
	}

	// A session making a stream per call, for ever: the store stays within
	// its budget, the session keeps the records of its latest streams, and
	// asking for an older one says it is gone.
	for i := range 100000 {
		id := fmt.Sprint("p", i)
		s.Open(ctx, "busy", id)
		s.Append(ctx, "busy", id, make([]byte, 200))
	}
	if s.used > s.budget || s.bySession["busy"].Len() > maxStreamsPerSession+1 {
		t.Fatalf("%d bytes (budget %d), %d streams of the busy session", s.used, s.budget, s.bySession["busy"].Len())
	}
	if _, err := events(t, s, "busy", "p0", -1); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("a dropped stream: %v", err)
	}
	if got, err := events(t, s, "busy", "p99999", -1); err != nil || len(got) != 1 {
		t.Fatalf("the newest stream: %d events, %v", len(got), err)
	}

	// The other session's events were the oldest and went; its records
	// stayed: a client that missed nothing resumes, one that missed a
	// dropped event is refused, never given part of what it missed.
	if got, err := events(t, s, "a", "", 0); err != nil || len(got) != 0 {
		t.Fatalf("resume of the idle standalone stream, nothing missed: %v %v", got, err)
	}
	if _, err := events(t, s, "a", "1", 0); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("resume from before dropped events: %v", err)
	}

	// A stream over the budget alone loses its oldest events, not its
	// newest.
	big := newBoundedEvents(4096)
	big.Open(ctx, "a", "get")
	for i := range 100 {
		big.Append(ctx, "a", "get", []byte(fmt.Sprintf("%0100d", i)))
	}
	st := big.streams[streamKey{"a", "get"}].Value.(*eventStream)
	if st.first == 0 || big.used > big.budget {
		t.Fatalf("first %d, %d bytes for a budget of %d", st.first, big.used, big.budget)
	}
	if got, err := events(t, big, "a", "get", 98); err != nil || len(got) != 1 {
		t.Fatalf("resume from the newest: %v %v", got, err)
	}

	// A stream that comes back after it was dropped has lost its start.
	s.Append(ctx, "busy", "p0", []byte("late"))
	if _, err := events(t, s, "busy", "p0", -1); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("a stream that came back: %v", err)
	}

	// Closing a session frees all of it, and nothing of the others.
	before := s.used
	s.SessionClosed(ctx, "busy")
	if _, ok := s.bySession["busy"]; ok || len(s.streams) != 2 || s.used >= before {
		t.Fatalf("after the close: %d streams, %d bytes (before %d)", len(s.streams), s.used, before)
	}
	if got, err := events(t, s, "a", "1", 2); err != nil || len(got) != 0 {
		t.Fatalf("the other session after a close: %v %v", got, err)
	}
	s.SessionClosed(ctx, "a")
	if s.used != 0 || s.events.Len() != 0 || s.lru.Len() != 0 || len(s.bySession) != 0 {
		t.Fatalf("empty store: %d bytes, %d events, %d records, %d sessions", s.used, s.events.Len(), s.lru.Len(), len(s.bySession))
	}
}

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
	s := newBoundedEvents(1 << 20)
	s.Open(ctx, "a", "1")
	for i := range 3 {
		s.Append(ctx, "a", "1", []byte(fmt.Sprint("e", i)))
	}
	if got, err := events(t, s, "a", "1", 0); err != nil || fmt.Sprint(got) != "[e1 e2]" {
		t.Fatalf("after 0: %v %v", got, err)
	}

	// A session making a stream per call, for ever: the store stays within
	// its budget, the oldest streams go, and asking for one says so.
	for i := range 100000 {
		id := fmt.Sprint("p", i)
		s.Open(ctx, "busy", id)
		s.Append(ctx, "busy", id, make([]byte, 200))
	}
	if s.used > s.budget || len(s.streams) > s.budget/(streamCost+eventCost+200)+1 {
		t.Fatalf("%d bytes in %d streams for a budget of %d", s.used, len(s.streams), s.budget)
	}
	if _, err := events(t, s, "busy", "p0", -1); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("a dropped stream: %v", err)
	}
	if got, err := events(t, s, "busy", "p99999", -1); err != nil || len(got) != 1 {
		t.Fatalf("the newest stream: %d events, %v", len(got), err)
	}

	// A stream over the budget alone loses its oldest events, not its
	// newest; a resume from before them is refused, not partial.
	big := newBoundedEvents(4096)
	big.Open(ctx, "a", "get")
	for i := range 100 {
		big.Append(ctx, "a", "get", []byte(fmt.Sprintf("%0100d", i)))
	}
	st := big.streams[streamKey{"a", "get"}].Value.(*eventStream)
	if st.first == 0 || big.used > big.budget {
		t.Fatalf("first %d, %d bytes for a budget of %d", st.first, big.used, big.budget)
	}
	if _, err := events(t, big, "a", "get", 0); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("resume from a dropped event: %v", err)
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
	s.Open(ctx, "c", "1")
	for i := range 3 {
		s.Append(ctx, "c", "1", []byte(fmt.Sprint("e", i)))
	}
	s.SessionClosed(ctx, "busy")
	if got, err := events(t, s, "c", "1", -1); err != nil || len(got) != 3 {
		t.Fatalf("the other session after a close: %v %v", got, err)
	}
	if len(s.streams) != 1 || len(s.bySession) != 1 || s.used != streamCost+3*eventCost+6 {
		t.Fatalf("after the close: %d streams, %d sessions, %d bytes", len(s.streams), len(s.bySession), s.used)
	}
}

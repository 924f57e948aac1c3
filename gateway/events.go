package gateway

import (
	"container/list"
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// boundedEvents keeps the events of the gateway's SSE streams, so that a
// client whose stream broke can resume it (Last-Event-ID), within a byte
// budget that counts a fixed cost per stream and per event besides the
// data.
//
// go-sdk's MemoryEventStore bounds the data but keeps a record of every
// stream until its session closes: a stream per POST, so a busy session
// grows without end (about 250 bytes a call), and each purge walks every
// stream. Here the streams are kept in order of last use and the least
// recently used goes first, whole; a stream over the budget alone loses its
// oldest events. A stream that is gone cannot be resumed (After says so),
// and one that comes back after it was dropped is known to have lost its
// beginning: no resume can get a wrong event.
type boundedEvents struct {
	mu      sync.Mutex
	budget  int
	used    int
	streams map[streamKey]*list.Element // of *eventStream
	lru     *list.List                  // most recently used first
	// bySession finds a closed session's streams without a walk of all.
	bySession map[string]map[string]*list.Element
}

type streamKey struct{ session, stream string }

type eventStream struct {
	key   streamKey
	first int      // index of data[0]
	data  [][]byte // retained events, oldest first
	size  int      // bytes charged for this stream
	lost  bool     // came back after being dropped: its start is unknown
}

// Fixed costs charged per stream and per event (map entries, list
// elements, slice headers), so that many small streams count too.
const (
	streamCost = 256
	eventCost  = 48
)

// defaultEventBudget is the memory the gateway's resumable streams may
// hold.
const defaultEventBudget = 32 << 20

func newBoundedEvents(budget int) *boundedEvents {
	return &boundedEvents{budget: budget, streams: map[streamKey]*list.Element{}, lru: list.New(),
		bySession: map[string]map[string]*list.Element{}}
}

var _ mcp.EventStore = (*boundedEvents)(nil)

// touch returns the stream of key as most recently used, making it (lost
// when it should have existed) if it is not there.
func (s *boundedEvents) touch(key streamKey, lost bool) *eventStream {
	if e, ok := s.streams[key]; ok {
		s.lru.MoveToFront(e)
		return e.Value.(*eventStream)
	}
	st := &eventStream{key: key, size: streamCost, lost: lost}
	e := s.lru.PushFront(st)
	s.streams[key] = e
	if s.bySession[key.session] == nil {
		s.bySession[key.session] = map[string]*list.Element{}
	}
	s.bySession[key.session][key.stream] = e
	s.used += streamCost
	return st
}

func (s *boundedEvents) Open(_ context.Context, sessionID, streamID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	keep := s.touch(streamKey{sessionID, streamID}, false)
	s.purge(keep)
	return nil
}

func (s *boundedEvents) Append(_ context.Context, sessionID, streamID string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.touch(streamKey{sessionID, streamID}, true)
	st.data = append(st.data, data)
	cost := len(data) + eventCost
	st.size += cost
	s.used += cost
	s.purge(st)
	return nil
}

// purge drops least recently used streams, whole, until the store is
// within its budget; keep (the stream just used) loses its oldest events
// instead, but never its newest.
func (s *boundedEvents) purge(keep *eventStream) {
	for s.used > s.budget {
		e := s.lru.Back()
		st := e.Value.(*eventStream)
		if st != keep {
			s.drop(e)
			continue
		}
		if len(st.data) <= 1 {
			return
		}
		cost := len(st.data[0]) + eventCost
		st.data[0] = nil
		st.data = st.data[1:]
		st.first++
		st.size -= cost
		s.used -= cost
	}
}

func (s *boundedEvents) drop(e *list.Element) {
	st := s.lru.Remove(e).(*eventStream)
	delete(s.streams, st.key)
	if m := s.bySession[st.key.session]; m != nil {
		if delete(m, st.key.stream); len(m) == 0 {
			delete(s.bySession, st.key.session)
		}
	}
	s.used -= st.size
}

func (s *boundedEvents) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	s.mu.Lock()
	var (
		events [][]byte
		err    error
	)
	e, ok := s.streams[streamKey{sessionID, streamID}]
	switch start := 0; {
	case !ok:
		err = fmt.Errorf("gateway: stream %q of the session is no longer kept: %w", streamID, mcp.ErrEventsPurged)
	case e.Value.(*eventStream).lost:
		err = fmt.Errorf("gateway: stream %q lost events: %w", streamID, mcp.ErrEventsPurged)
	default:
		st := e.Value.(*eventStream)
		if start = index + 1 - st.first; start < 0 {
			err = fmt.Errorf("gateway: stream %q: events after %d were dropped: %w", streamID, index, mcp.ErrEventsPurged)
		} else if start < len(st.data) {
			events = slices.Clone(st.data[start:])
		}
	}
	s.mu.Unlock()
	return func(yield func([]byte, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		for _, d := range events {
			if !yield(d, nil) {
				return
			}
		}
	}
}

func (s *boundedEvents) SessionClosed(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.bySession[sessionID] {
		s.drop(e)
	}
	return nil
}

package gateway

import (
	"container/list"
	"context"
	"fmt"
	"iter"
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
// stream. Here the oldest events go first, whatever their stream, while
// the streams' records (where each stream is) stay, so that a client that
// missed nothing still resumes; a session keeps the records of its latest
// maxStreamsPerSession request streams (and always its standalone one),
// and when records alone fill the budget the least recently used go. A
// stream whose record is gone cannot be resumed (After says so), and one
// that comes back after it was dropped is known to have lost its
// beginning: no resume can get a wrong event.
type boundedEvents struct {
	mu      sync.Mutex
	budget  int
	used    int
	streams map[streamKey]*list.Element // in lru, of *eventStream
	lru     *list.List                  // records, most recently used first
	events  *list.List                  // retained events, oldest first, of *eventStream
	// bySession finds a session's streams, oldest first, without a walk
	// of all.
	bySession map[string]*list.List // of streamKey
}

type streamKey struct{ session, stream string }

type eventStream struct {
	key   streamKey
	first int           // index of data[0]
	data  []storedEvent // retained events, oldest first
	lost  bool          // came back after being dropped: its start is unknown
	inSes *list.Element // its key in bySession
}

type storedEvent struct {
	data []byte
	el   *list.Element // in boundedEvents.events
}

// Fixed costs charged per stream record and per event (map entries, list
// elements, slice headers), so that many small ones count too.
const (
	streamCost = 256
	eventCost  = 48
)

// defaultEventBudget is the memory the gateway's resumable streams may
// hold.
const defaultEventBudget = 32 << 20

// maxStreamsPerSession bounds the request streams a session's records are
// kept for: resuming the stream of a request a thousand requests ago is
// not worth keeping every record.
const maxStreamsPerSession = 1024

func newBoundedEvents(budget int) *boundedEvents {
	return &boundedEvents{budget: budget, streams: map[streamKey]*list.Element{}, lru: list.New(), events: list.New(),
		bySession: map[string]*list.List{}}
}

var _ mcp.EventStore = (*boundedEvents)(nil)

// touch returns the record of key as most recently used, making it (lost
// when it should have existed) if it is not there.
func (s *boundedEvents) touch(key streamKey, lost bool) *eventStream {
	if e, ok := s.streams[key]; ok {
		s.lru.MoveToFront(e)
		return e.Value.(*eventStream)
	}
	st := &eventStream{key: key, lost: lost}
	s.streams[key] = s.lru.PushFront(st)
	ses := s.bySession[key.session]
	if ses == nil {
		ses = list.New()
		s.bySession[key.session] = ses
	}
	st.inSes = ses.PushBack(key)
	s.used += streamCost
	// The session's oldest request stream goes past the bound; its
	// standalone stream ("") stays for the session's life.
	if ses.Len() > maxStreamsPerSession+1 {
		for e := ses.Front(); e != nil; e = e.Next() {
			if k := e.Value.(streamKey); k.stream != "" && k != key {
				s.drop(s.streams[k])
				break
			}
		}
	}
	return st
}

func (s *boundedEvents) Open(_ context.Context, sessionID, streamID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.touch(streamKey{sessionID, streamID}, false)
	s.purge(nil)
	return nil
}

func (s *boundedEvents) Append(_ context.Context, sessionID, streamID string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.touch(streamKey{sessionID, streamID}, true)
	if st.lost {
		return nil // never served: not kept
	}
	st.data = append(st.data, storedEvent{data: data, el: s.events.PushBack(st)})
	s.used += len(data) + eventCost
	s.purge(st)
	return nil
}

// purge drops the oldest events until the store is within its budget, but
// never the newest event of keep (the stream just appended to); then, if
// records alone are over it, the least recently used records.
func (s *boundedEvents) purge(keep *eventStream) {
	for s.used > s.budget {
		e := s.events.Front()
		if e == nil {
			break
		}
		st := e.Value.(*eventStream)
		if st == keep && len(st.data) == 1 {
			break
		}
		s.events.Remove(e)
		s.used -= len(st.data[0].data) + eventCost
		st.data[0] = storedEvent{}
		st.data = st.data[1:]
		st.first++
	}
	for s.used > s.budget && s.lru.Len() > 1 {
		if e := s.lru.Back(); e.Value.(*eventStream) != keep {
			s.drop(e)
		} else {
			break
		}
	}
}

// drop forgets a stream record and its events.
func (s *boundedEvents) drop(e *list.Element) {
	st := s.lru.Remove(e).(*eventStream)
	delete(s.streams, st.key)
	if ses := s.bySession[st.key.session]; ses != nil {
		if ses.Remove(st.inSes); ses.Len() == 0 {
			delete(s.bySession, st.key.session)
		}
	}
	s.used -= streamCost
	for _, ev := range st.data {
		s.events.Remove(ev.el)
		s.used -= len(ev.data) + eventCost
	}
	st.data = nil
}

func (s *boundedEvents) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	s.mu.Lock()
	var (
		events [][]byte
		err    error
	)
	e, ok := s.streams[streamKey{sessionID, streamID}]
	switch {
	case !ok:
		err = fmt.Errorf("gateway: stream %q of the session is no longer kept: %w", streamID, mcp.ErrEventsPurged)
	case e.Value.(*eventStream).lost:
		err = fmt.Errorf("gateway: stream %q lost events: %w", streamID, mcp.ErrEventsPurged)
	default:
		st := e.Value.(*eventStream)
		if start := index + 1 - st.first; start < 0 {
			err = fmt.Errorf("gateway: stream %q: events after %d were dropped: %w", streamID, index, mcp.ErrEventsPurged)
		} else {
			for _, ev := range st.data[min(start, len(st.data)):] {
				events = append(events, ev.data)
			}
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
	if ses := s.bySession[sessionID]; ses != nil {
		for ses.Len() > 0 {
			s.drop(s.streams[ses.Front().Value.(streamKey)])
		}
	}
	return nil
}

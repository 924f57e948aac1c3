package builtin

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"sync"
	"time"
)

// StoredResult is one full result kept by a ResultStore.
type StoredResult struct {
	ID     string
	Server string
	Tool   string
	JSON   []byte // the CallToolResult
}

// ResultStore keeps full results of truncated calls, bounded in total bytes;
// the oldest go first. IDs are random, so one client cannot guess another's.
type ResultStore struct {
	mu       sync.Mutex
	maxBytes int
	size     int
	order    []string // oldest first
	items    map[string]*StoredResult

	dir string        // "" in memory; else one file per result (diskstore.go)
	ttl time.Duration // with dir: how long a result stays readable
}

// DefaultResultStoreBytes bounds a ResultStore made with size 0.
const DefaultResultStoreBytes = 64 << 20

// NewResultStore makes a store holding at most maxBytes of results (0: the
// default, 64 MiB). A result larger than the whole store is not kept.
func NewResultStore(maxBytes int) *ResultStore {
	if maxBytes <= 0 {
		maxBytes = DefaultResultStoreBytes
	}
	return &ResultStore{maxBytes: maxBytes, items: map[string]*StoredResult{}}
}

// Put stores a result and returns its id ("" when it is larger than the store).
func (s *ResultStore) Put(server, tool string, result []byte) string {
	if len(result) > s.maxBytes {
		return ""
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	if s.dir != "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := s.putDisk(id, server, tool, result); err != nil {
			return ""
		}
		return id
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.size+len(result) > s.maxBytes && len(s.order) > 0 {
		old := s.order[0]
		s.order = s.order[1:]
		s.size -= len(s.items[old].JSON)
		delete(s.items, old)
	}
	s.items[id] = &StoredResult{ID: id, Server: server, Tool: tool, JSON: append([]byte(nil), result...)}
	s.order = append(s.order, id)
	s.size += len(result)
	return id
}

// Get returns a stored result by id or by its mcphost://results/<id> URI.
func (s *ResultStore) Get(idOrURI string) (*StoredResult, bool) {
	id := strings.TrimPrefix(idOrURI, ResultURIPrefix)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" {
		return s.getDisk(id)
	}
	r, ok := s.items[id]
	return r, ok
}

// List returns the stored results, oldest first.
func (s *ResultStore) List() []StoredResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" {
		return s.listDisk()
	}
	out := make([]StoredResult, 0, len(s.order))
	for _, id := range s.order {
		r := s.items[id]
		out = append(out, StoredResult{ID: r.ID, Server: r.Server, Tool: r.Tool})
	}
	return out
}

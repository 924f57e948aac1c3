package builtin

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcphost/mcphost/pdk/abi"
)

// ResultURIPrefix names stored full results: mcphost://results/<id>.
const ResultURIPrefix = "mcphost://results/"

// Truncate caps the text of a result at MaxBytes (over all text content
// items together), cutting on a UTF-8 boundary and appending a marker. The
// full result is not lost: it is kept in Store and the marker, and a
// resource_link content, name mcphost://results/<id> where it can be read.
type Truncate struct {
	MaxBytes int
	Store    *ResultStore // nil: the full result is not kept
}

// StageName implements abi.Stage.
func (Truncate) StageName() string { return "builtin:truncate" }

// TransformResult implements abi.TransformStage.
func (t Truncate) TransformResult(_ context.Context, req *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
	if t.MaxBytes <= 0 || withinLimit(req.Result, t.MaxBytes) {
		return &abi.TransformResultResponse{Result: req.Result}, nil
	}
	var result map[string]any
	dec := json.NewDecoder(bytes.NewReader(req.Result))
	dec.UseNumber() // structuredContent must round-trip exactly
	if err := dec.Decode(&result); err != nil || result == nil {
		return nil, errors.New("builtin: truncate: the result is not a JSON object")
	}
	content, _ := result["content"].([]any)
	total := 0
	for _, c := range content {
		if text, ok := textOf(c); ok {
			total += len(text)
		}
	}
	if total <= t.MaxBytes {
		return &abi.TransformResultResponse{Result: req.Result}, nil
	}
	uri := "" // never ResultURIPrefix alone: only with an id
	if t.Store != nil {
		if id := t.Store.Put(req.Server, req.Tool, req.Result); id != "" {
			uri = ResultURIPrefix + id
		}
	}
	budget := t.MaxBytes
	kept := make([]any, 0, len(content)+2)
	for _, c := range content {
		text, ok := textOf(c)
		if !ok {
			kept = append(kept, c)
			continue
		}
		if budget <= 0 {
			continue
		}
		if len(text) > budget {
			text = cutUTF8(text, budget)
		}
		budget -= len(text)
		item := c.(map[string]any)
		item["text"] = text
		kept = append(kept, item)
	}
	marker := fmt.Sprintf("\n[truncated by mcphost: showing %d of %d bytes of text", t.MaxBytes-budget, total)
	switch {
	case uri != "":
		marker += "; the full result is the resource " + uri
	case t.Store != nil:
		marker += "; the full result could not be kept (it is larger than results.store_bytes, or the store failed)"
	}
	marker += "]"
	kept = append(kept, map[string]any{"type": "text", "text": marker})
	if uri != "" {
		kept = append(kept, map[string]any{"type": "resource_link", "uri": uri, "name": "full result of " + req.Server + ":" + req.Tool, "mimeType": "application/json"})
	}
	result["content"] = kept
	out, err := json.Marshal(result)
	if err != nil {
		return nil, fmt.Errorf("builtin: truncate: %w", err)
	}
	return &abi.TransformResultResponse{Result: out}, nil
}

// withinLimit reports, without decoding it, that a result is a JSON object
// whose text cannot be over max bytes: the whole result is no longer. (A
// JSON string of valid UTF-8 never decodes to more bytes than it is
// written with; escapes only shrink.) Most results are small: they pass
// unchanged without being decoded.
func withinLimit(result []byte, max int) bool {
	if len(result) > max || !utf8.Valid(result) {
		return false
	}
	trimmed := bytes.TrimLeft(result, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(result)
}

func textOf(c any) (string, bool) {
	m, ok := c.(map[string]any)
	if !ok || m["type"] != "text" {
		return "", false
	}
	s, ok := m["text"].(string)
	return s, ok
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a character.
func cutUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

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

package authn

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcphost/mcphost/internal/safefile"
)

func staticHeader(name, value string) func(*http.Request) (http.Header, error) {
	h := http.Header{}
	h.Set(name, value)
	return func(*http.Request) (http.Header, error) { return h, nil }
}

// maxTokenFileBytes bounds a token file: a token, not a document.
const maxTokenFileBytes = 64 << 10

// tokenFile sends the bearer token held in a file, read again when the
// file changes (a sidecar or cron rotates it).
type tokenFile struct {
	id, path string

	mu      sync.Mutex
	modTime time.Time
	size    int64
	token   string
}

func newTokenFile(id, path string) *tokenFile { return &tokenFile{id: id, path: path} }

func (t *tokenFile) header(*http.Request) (http.Header, error) {
	st, err := os.Stat(t.path)
	if err != nil {
		return nil, fmt.Errorf("authn: server %q: token file: %w", t.id, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.token == "" || !st.ModTime().Equal(t.modTime) || st.Size() != t.size {
		data, err := safefile.ReadFile(t.path, maxTokenFileBytes)
		if err != nil {
			return nil, fmt.Errorf("authn: server %q: token file: %w", t.id, err)
		}
		tok := strings.TrimSpace(string(data))
		if tok == "" || strings.ContainsAny(tok, "\r\n\x00") {
			return nil, fmt.Errorf("authn: server %q: token file %s must hold one token on one line", t.id, t.path)
		}
		t.token, t.modTime, t.size = tok, st.ModTime(), st.Size()
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+t.token)
	return h, nil
}

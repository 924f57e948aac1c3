// Package redact keeps known secret values out of what mcphost prints.
//
// The CLI knows every secret of its configuration (header and env values,
// URL passwords and query values, plugin secrets) but not every path by
// which one could reach its output: an error from the HTTP stack quoting a
// URL, a server echoing a token, a log line. A Writer in front of stdout
// and stderr replaces each known value with "****", whatever printed it.
package redact

import (
	"io"
	"strings"
	"sync"
)

// Placeholder replaces a secret.
const Placeholder = "****"

// Writer replaces the secrets it knows in everything written through it.
// A secret split across two writes is not caught: the CLI writes whole
// lines and whole documents.
type Writer struct {
	w  io.Writer
	mu sync.RWMutex
	r  *strings.Replacer
}

// NewWriter returns a Writer onto w that knows no secret yet.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// SetSecrets sets the values to replace (values shorter than 4 bytes are
// ignored by the caller's choice; empty ones always).
func (w *Writer) SetSecrets(secrets []string) {
	var pairs []string
	for _, s := range secrets {
		if s != "" {
			pairs = append(pairs, s, Placeholder)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(pairs) == 0 {
		w.r = nil
		return
	}
	w.r = strings.NewReplacer(pairs...)
}

// Write writes p with the secrets replaced; it reports len(p) on success.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.RLock()
	r := w.r
	w.mu.RUnlock()
	if r == nil {
		return w.w.Write(p)
	}
	if _, err := io.WriteString(w.w, r.Replace(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap returns the writer underneath.
func (w *Writer) Unwrap() io.Writer { return w.w }

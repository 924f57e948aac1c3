package builtin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcphost/mcphost/pdk/abi"
)

// ResultURIPrefix names stored full results: mcphost://results/<id>.
const ResultURIPrefix = "mcphost://results/"

// TruncateEnvelopeBytes bounds what Truncate adds to the MaxBytes it keeps
// of a result: the object's braces and content array, the marker, the
// resource link to the full result and isError.
const TruncateEnvelopeBytes = 1024

// maxLabelBytes bounds the server:tool label in the link to a full result:
// a backend's tool name must not stretch the envelope.
const maxLabelBytes = 128

// Truncate bounds a whole result, as its caller receives it, to MaxBytes of
// JSON plus TruncateEnvelopeBytes. A result whose JSON is within MaxBytes
// passes unchanged. A larger one is rebuilt from its parts. Those that
// cannot be cut are kept whole while the JSON kept so far fits in MaxBytes,
// in this order: structuredContent, _meta, any other field, the content
// items other than texts; one that does not fit is left out. The texts (of
// text items and embedded text resources) then share what remains, in
// order, the first that does not fit cut on a character boundary. A marker
// says how much text was shown and what was left out. Sizes count
// every character at its longest encoding (<, > and & as \u003c; numbers
// as the longer of how they are written and how a float64 encodes), so the
// bound holds whichever JSON encoder writes the result next.
//
// The full result is not lost: it is kept in Store and the marker, and a
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
	if encodedLen(result, t.MaxBytes) <= t.MaxBytes {
		if len(req.Result) <= t.MaxBytes {
			return &abi.TransformResultResponse{Result: req.Result}, nil
		}
		// Long only with blank space (or keys given twice): the same
		// result, written compactly.
		b, err := json.Marshal(result)
		if err != nil {
			return nil, fmt.Errorf("builtin: truncate: %w", err)
		}
		return &abi.TransformResultResponse{Result: b}, nil
	}
	isError, ok := result["isError"].(bool)
	if _, present := result["isError"]; present && !ok {
		return nil, errors.New("builtin: truncate: the result's isError is not true or false")
	}
	content, ok := result["content"].([]any)
	if !ok && result["content"] != nil {
		return nil, errors.New("builtin: truncate: the result's content is not an array")
	}
	uri := "" // never ResultURIPrefix alone: only with an id
	if t.Store != nil {
		if id := t.Store.Put(req.Server, req.Tool, req.Result); id != "" {
			uri = ResultURIPrefix + id
		}
	}

	f := &fitting{room: t.MaxBytes, out: map[string]any{}}
	f.fields(result)
	kept := f.content(content)
	kept = append(kept, map[string]any{"type": "text", "text": f.marker(uri, t.Store != nil)})
	if uri != "" {
		label := cutEncoded(req.Server+":"+req.Tool, maxLabelBytes+2)
		kept = append(kept, map[string]any{"type": "resource_link", "uri": uri, "name": "full result of " + label, "mimeType": "application/json"})
	}
	out := f.out
	out["content"] = kept
	if isError {
		out["isError"] = true
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("builtin: truncate: %w", err)
	}
	return &abi.TransformResultResponse{Result: b}, nil
}

// fitting rebuilds a result within a budget of bytes (room), keeping
// what fits and counting what does not, for the marker.
type fitting struct {
	room         int
	out          map[string]any
	leftOut      []string // what the marker names as left out
	shown, total int      // bytes of text
}

// fields keeps the top-level parts other than content and isError whole,
// in order of what callers rely on: structuredContent, _meta, the rest.
func (f *fitting) fields(result map[string]any) {
	if sc, ok := result["structuredContent"]; ok && !f.field("structuredContent", sc) {
		f.leftOut = append(f.leftOut, "structuredContent")
	}
	if meta, ok := result["_meta"]; ok && !f.field("_meta", meta) {
		f.leftOut = append(f.leftOut, "_meta")
	}
	others := 0
	for _, key := range slices.Sorted(maps.Keys(result)) {
		switch key {
		case "content", "structuredContent", "isError", "_meta":
			continue
		}
		if !f.field(key, result[key]) {
			others++
		}
	}
	if others > 0 {
		f.leftOut = append(f.leftOut, plural(others, "other field"))
	}
}

// field keeps a top-level part if it fits: key, colon, value and the comma
// after it (content always comes with it).
func (f *fitting) field(key string, v any) bool {
	size := stringLen(key, f.room) + 1 + encodedLen(v, f.room) + 1
	if size > f.room {
		return false
	}
	f.room -= size
	f.out[key] = v
	return true
}

// content keeps the content items that fit, in their order, each counted
// with the comma after it: first those that cannot be cut, whole; then the
// texts share what remains, the first that does not fit cut.
func (f *fitting) content(items []any) []any {
	keep := make([]bool, len(items))
	left := 0
	for i, c := range items {
		if textHolder(c) != nil {
			continue
		}
		if size := encodedLen(c, f.room) + 1; size <= f.room {
			f.room -= size
			keep[i] = true
		} else {
			left++
		}
	}
	for i, c := range items {
		holder := textHolder(c)
		if holder == nil {
			continue
		}
		n := len(holder["text"].(string))
		f.total += n
		size := encodedLen(c, f.room) + 1
		if size > f.room {
			if n = cutText(c, holder, f.room-1); n == 0 {
				left++
				continue
			}
			size = encodedLen(c, f.room) + 1
		}
		f.room -= size
		keep[i] = true
		f.shown += n
	}
	if left > 0 {
		f.leftOut = append(f.leftOut, plural(left, "content item"))
	}
	kept := make([]any, 0, len(items)+2) // the marker and the link follow
	for i, c := range items {
		if keep[i] {
			kept = append(kept, c)
		}
	}
	return kept
}

// marker tells the reader (a model, most often) what it is not seeing and
// where the whole is. Its length is bounded whatever the result: counts
// and fixed words only, never a key or a text of the result.
func (f *fitting) marker(uri string, storing bool) string {
	m := fmt.Sprintf("\n[truncated by mcphost: showing %d of %d bytes of text", f.shown, f.total)
	if len(f.leftOut) > 0 {
		m += "; left out: " + strings.Join(f.leftOut, ", ")
	}
	switch {
	case uri != "":
		m += "; the full result is the resource " + uri
	case storing:
		m += "; the full result could not be kept (it is larger than results.store_bytes, or the store failed)"
	}
	return m + "]"
}

// withinLimit reports, without decoding it, that a result is a JSON object
// of at most max bytes that no encoder makes longer than that (scanLen).
// Most results are small: they pass unchanged without being decoded.
func withinLimit(result []byte, max int) bool {
	if len(result) > max || scanLen(result, max) > max {
		return false
	}
	trimmed := bytes.TrimLeft(result, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(result)
}

// textHolder is the object holding a content item's text that may be cut:
// the item itself for text, its resource for an embedded text resource;
// nil for any other item.
func textHolder(c any) map[string]any {
	m, ok := c.(map[string]any)
	if !ok {
		return nil
	}
	holder := m
	switch m["type"] {
	case "text":
	case "resource":
		if holder, ok = m["resource"].(map[string]any); !ok {
			return nil
		}
	default:
		return nil
	}
	if _, ok := holder["text"].(string); !ok {
		return nil
	}
	return holder
}

// cutText cuts the text of item (in holder) so that the item's JSON fits
// in room bytes, and returns the bytes of text kept; 0 when not even one
// character fits (the item is then not to be kept).
func cutText(item any, holder map[string]any, room int) int {
	text := holder["text"].(string)
	holder["text"] = ""
	frame := encodedLen(item, room) // with "" for the text
	cut := cutEncoded(text, room-frame+2)
	holder["text"] = cut
	if frame > room {
		return 0
	}
	return len(cut)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

package builtin

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

// BenchmarkTruncate: results.max_bytes 16 KiB over a file read answered as
// server-filesystem does (text and structuredContent), of 1 KiB (passes
// without decoding), 8 KiB (decoded and measured, passes unchanged) and
// 1 MiB (rebuilt).
func BenchmarkTruncate(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"1KiB", 1 << 10}, {"8KiB", 8 << 10}, {"1MiB", 1 << 20}} {
		file := strings.Repeat("a line of the file\n", size.bytes/2/19)
		in, _ := json.Marshal(map[string]any{
			"content":           []any{map[string]any{"type": "text", "text": file}},
			"structuredContent": map[string]any{"content": file},
		})
		tr := Truncate{MaxBytes: 16 << 10, Store: NewResultStore(0)}
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				if _, err := tr.TransformResult(context.Background(), &abi.TransformResultRequest{Server: "fs", Tool: "read", Result: in}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

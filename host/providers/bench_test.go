package providers_test

import (
	"testing"

	"github.com/mcphost/mcphost/host/providers"
)

// BenchmarkConvert converts the tools of three real servers (everything,
// filesystem, memory: 36 tools) for each provider, as "mcphost tools
// --format" and an agent's first request do.
func BenchmarkConvert(b *testing.B) {
	tools := serverTools(b, "everything")
	tools = append(tools, serverTools(b, "filesystem")...)
	tools = append(tools, serverTools(b, "memory")...)
	for _, f := range providers.Formats() {
		b.Run(string(f), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := providers.Convert(f, tools, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

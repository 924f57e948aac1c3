package builtin

import (
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/glob"
)

// The policies' compiled globs match as glob.Match does, a glob that does
// not compile matching nothing, the first time and from the cache.
func TestMatchAnyAgreesWithGlobMatch(t *testing.T) {
	req := &abi.PolicyRequest{Server: "fs", Tool: "delete_file", Name: "fs_delete_file"}
	for _, g := range []string{"*delete*", "fs:*", "mcp__fs__*", "[", "fs_?elete_file", "git:*", `\`, "[!a-z]*"} {
		want := false
		for _, name := range []string{req.Name, "fs:delete_file", "mcp__fs__delete_file"} {
			want = want || glob.Match(g, name)
		}
		for range 2 {
			if _, got := matchAny([]string{g}, req); got != want {
				t.Errorf("matchAny(%q) = %v, glob.Match says %v", g, got, want)
			}
		}
	}
	if _, ok := matchAny(nil, req); ok {
		t.Error("no globs matched")
	}
}

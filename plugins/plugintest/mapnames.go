package plugintest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcphost/mcphost/pdk/abi"
)

// The checks of the map_names hook and the requests they use.

// DefaultConstraints are the name constraints of the map_names checks: those
// of the strictest model providers.
var DefaultConstraints = abi.NameConstraints{MaxLength: 64, Pattern: "^[a-zA-Z0-9_-]{1,64}$"}

// MapNamesRequests are the requests the map_names checks use.
func MapNamesRequests() []*abi.MapNamesRequest {
	long := strings.Repeat("very_long_tool_name_", 6)
	return []*abi.MapNamesRequest{
		{Tools: []abi.NameKey{{Server: "files", Tool: "read_file"}, {Server: "files", Tool: "write_file", Title: "Write"}}, Constraints: DefaultConstraints},
		{Tools: []abi.NameKey{{Server: "a", Tool: "search"}, {Server: "b", Tool: "search"}, {Server: "c", Tool: "search"}}, Constraints: DefaultConstraints},
		{Tools: []abi.NameKey{{Server: "srv", Tool: long}, {Server: "srv", Tool: long + "2"}, {Server: "ü-ni", Tool: "ツール.name/with spaces"}}, Constraints: DefaultConstraints},
		{Tools: []abi.NameKey{}, Constraints: DefaultConstraints},
		{Tools: []abi.NameKey{{Server: "x", Tool: "t"}}, Constraints: abi.NameConstraints{MaxLength: 32, Pattern: "^[a-zA-Z0-9_-]{1,32}$"}},
	}
}

func (c *checker) mapNames() {
	const h = abi.HookMapNames
	st := c.stage.(abi.NameStage)
	check(c, hookCheck[abi.MapNamesRequest, abi.MapNamesResponse]{
		hook: h,
		reqs: MapNamesRequests(),
		label: func(i int, req *abi.MapNamesRequest) string {
			return fmt.Sprintf("request %d (%d tools)", i, len(req.Tools))
		},
		call:       st.MapNames,
		nilMsg:     "nil response without an error",
		repeatable: true,
		valid: func(name string, req *abi.MapNamesRequest, r *abi.MapNamesResponse) bool {
			if len(r.Names) != len(req.Tools) {
				c.fail(h, name, fmt.Sprintf("%d names for %d tools", len(r.Names), len(req.Tools)))
				return false
			}
			pat, err := regexp.Compile(req.Constraints.Pattern)
			if err != nil {
				panic(err)
			}
			seen := map[string]bool{}
			for j, n := range r.Names {
				if !pat.MatchString(n) || len(n) > req.Constraints.MaxLength {
					c.fail(h, name, fmt.Sprintf("name %q (for %s/%s) breaks the constraints %s, max %d", n, req.Tools[j].Server, req.Tools[j].Tool, req.Constraints.Pattern, req.Constraints.MaxLength))
				}
				if seen[n] {
					c.fail(h, name, fmt.Sprintf("name %q given twice", n))
				}
				seen[n] = true
			}
			return true
		},
	})
}

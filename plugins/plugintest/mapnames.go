package plugintest

import (
	"context"
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
	reqs := MapNamesRequests()
	answers := make([]any, len(reqs))
	for i, req := range reqs {
		name := fmt.Sprintf("request %d (%d tools)", i, len(req.Tools))
		before := clone(req)
		r, err, ok := call(c, h, name, func(ctx context.Context) (*abi.MapNamesResponse, error) { return st.MapNames(ctx, req) })
		if !ok {
			return
		}
		if err != nil {
			c.fail(h, name, "error on a valid request: "+err.Error())
			continue
		}
		if r == nil {
			c.fail(h, name, "nil response without an error")
			continue
		}
		if len(r.Names) != len(req.Tools) {
			c.fail(h, name, fmt.Sprintf("%d names for %d tools", len(r.Names), len(req.Tools)))
			continue
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
		if !same(req, before) {
			c.fail(h, name, "the stage changed the request it was given")
		}
		answers[i] = normalize(r)
		if !c.opts.NonDeterministic {
			again, err, ok := call(c, h, name, func(ctx context.Context) (*abi.MapNamesResponse, error) { return st.MapNames(ctx, clone(req)) })
			if ok && (err != nil || !same(again, r)) {
				c.fail(h, name, fmt.Sprintf("not deterministic: %s then %s (%v)", show(r), show(again), err))
			}
		}
	}
	c.parallel(h, len(reqs), func(ctx context.Context, i int) (any, error) {
		r, err := st.MapNames(ctx, clone(reqs[i]))
		return normalize(r), err
	}, func(i int) any { return answers[i] })
}

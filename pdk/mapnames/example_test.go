package mapnames_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/mapnames"
)

func init() {
	pdk.Describe("team-prefix", "1.0.0")
	mapnames.Handle(prefixNames)
}

// notNameChar is outside the alphabet of the host's name pattern; each such
// character, multi-byte ones included, becomes one ASCII '_', so that cutting
// bytes later cannot split a character.
var notNameChar = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// prefixNames names every tool <team>_<server>_<tool>. A name that had to
// be cleaned or cut gets a hash of the real identity, so that tools made
// alike ("create.issue", "create_issue") stay apart.
func prefixNames(req *abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
	team := pdk.ConfigOr("team", "team")
	maxLen := req.Constraints.MaxLength
	if maxLen < 16 {
		return nil, fmt.Errorf("max_length %d leaves no room for a name and its hash", maxLen)
	}
	valid, err := regexp.Compile(req.Constraints.Pattern)
	if err != nil {
		return nil, fmt.Errorf("constraints: bad pattern %q: %v", req.Constraints.Pattern, err)
	}
	names := make([]string, len(req.Tools))
	seen := map[string]bool{}
	for i, k := range req.Tools {
		want := team + "_" + k.Server + "_" + k.Tool
		name := notNameChar.ReplaceAllString(want, "_")
		if name != want || len(name) > maxLen {
			sum := sha256.Sum256([]byte(k.Server + "\x00" + k.Tool))
			suffix := "_" + hex.EncodeToString(sum[:4])
			name = name[:min(len(name), maxLen-len(suffix))] + suffix
		}
		// An error names the tool; the host then keeps the names from before this stage.
		if !valid.MatchString(name) || seen[name] {
			return nil, fmt.Errorf("no valid unique name for %s:%s", k.Server, k.Tool)
		}
		seen[name] = true
		names[i] = name
	}
	return &abi.MapNamesResponse{Names: names}, nil
}

// Cleaning and cutting keep every name within the request's constraints and unique.
func ExampleHandle() {
	defer pdk.UseMock(&pdk.Mock{Config: map[string]string{"team": "blue"}})()

	req := abi.MapNamesRequest{
		Tools: []abi.NameKey{
			{Server: "gh", Tool: "create_issue"},
			{Server: "gh", Tool: "create.issue"},
			{Server: "wiki", Tool: "search_every_page_of_the_wiki"},
		},
		Constraints: abi.NameConstraints{MaxLength: 32, Pattern: "^[a-zA-Z0-9_-]{1,32}$"},
	}
	var resp abi.MapNamesResponse
	if err := pdk.CallJSON(abi.HookMapNames, req, &resp); err != nil {
		fmt.Println(err)
		return
	}
	for i, k := range req.Tools {
		fmt.Printf("%s:%s -> %s\n", k.Server, k.Tool, resp.Names[i])
	}
	// Output:
	// gh:create_issue -> blue_gh_create_issue
	// gh:create.issue -> blue_gh_create_issue_7ddd3191
	// wiki:search_every_page_of_the_wiki -> blue_wiki_search_every__68c55b9e
}

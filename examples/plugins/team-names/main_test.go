package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
)

const pattern64 = "^[a-zA-Z0-9_-]{1,64}$" // what mcphost sends by default

func call(t *testing.T, team string, req abi.MapNamesRequest) ([]string, error) {
	t.Helper()
	cfg := map[string]string{}
	if team != "" {
		cfg["team"] = team
	}
	t.Cleanup(pdk.UseMock(&pdk.Mock{Config: cfg}))
	var resp abi.MapNamesResponse
	err := pdk.CallJSON(abi.HookMapNames, req, &resp)
	return resp.Names, err
}

func keys(pairs ...string) []abi.NameKey {
	var ks []abi.NameKey
	for i := 0; i < len(pairs); i += 2 {
		ks = append(ks, abi.NameKey{Server: pairs[i], Tool: pairs[i+1]})
	}
	return ks
}

func TestDescribe(t *testing.T) {
	d, err := pdk.Description()
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "team-names" || len(d.Hooks) != 1 || d.Hooks[0] != abi.HookMapNames {
		t.Fatalf("Description() = %+v", d)
	}
}

func TestPlainNames(t *testing.T) {
	names, err := call(t, "blue", abi.MapNamesRequest{
		Tools:       keys("github", "create_issue", "fs", "read-file"),
		Constraints: abi.NameConstraints{MaxLength: 64, Pattern: pattern64},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"blue_github_create_issue", "blue_fs_read-file"}; fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("names = %v, want %v", names, want)
	}
}

func TestSanitizeAndCollisions(t *testing.T) {
	names, err := call(t, "team ä", abi.MapNamesRequest{
		// "a.b" and "a_b" sanitize alike; so do "x y" and "x/y".
		Tools:       keys("s", "a.b", "s", "a_b", "s", "x y", "s", "x/y", "s", "ok"),
		Constraints: abi.NameConstraints{MaxLength: 64, Pattern: pattern64},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkNames(t, names, 64, 5)
	if names[4] != "team____s_ok" { // " " is one byte, "ä" two
		t.Errorf("names[4] = %q", names[4])
	}
	for _, i := range []int{0, 1} {
		if !regexp.MustCompile(`^team____s_a_b_[0-9a-f]{8}$`).MatchString(names[i]) {
			t.Errorf("colliding names[%d] = %q, want the hash suffix", i, names[i])
		}
	}
}

func TestShortening(t *testing.T) {
	long := strings.Repeat("very_long_tool_name_", 5)
	for _, maxLen := range []int{16, 20, 64} {
		names, err := call(t, "blue", abi.MapNamesRequest{
			// Two long names with the same first maxLen bytes.
			Tools:       keys("srv", long+"one", "srv", long+"two", "srv", "t"),
			Constraints: abi.NameConstraints{MaxLength: maxLen, Pattern: fmt.Sprintf("^[a-zA-Z0-9_-]{1,%d}$", maxLen)},
		})
		if err != nil {
			t.Fatalf("max_length %d: %v", maxLen, err)
		}
		checkNames(t, names, maxLen, 3)
		if names[2] != "blue_srv_t" {
			t.Errorf("max_length %d: a short name changed: %q", maxLen, names[2])
		}
		if !strings.HasPrefix(names[0], "blue_srv_very"[:min(13, maxLen-9)]) {
			t.Errorf("max_length %d: shortened name %q lost its prefix", maxLen, names[0])
		}
	}
}

func TestStableAndUniqueUnderDuplicates(t *testing.T) {
	// The same tool twice (a host bug, but names must stay unique), and a
	// tool whose plain name is the hashed name the first two get.
	lookalike := "t_" + hash("blue", abi.NameKey{Server: "s", Tool: "t"})
	req := abi.MapNamesRequest{Tools: keys("s", "t", "s", "t", "s", lookalike)}
	a, err := call(t, "blue", req)
	if err != nil {
		t.Fatal(err)
	}
	checkNames(t, a, 64, 3)
	b, _ := call(t, "blue", req)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("not deterministic: %v then %v", a, b)
	}
}

func TestManyTools(t *testing.T) {
	var ks []abi.NameKey
	for i := 0; i < 500; i++ {
		// Every tool long and alike up to the limit.
		ks = append(ks, abi.NameKey{Server: "server", Tool: fmt.Sprintf("%s%03d", strings.Repeat("x", 70), i)})
	}
	names, err := call(t, "blue", abi.MapNamesRequest{Tools: ks, Constraints: abi.NameConstraints{MaxLength: 32}})
	if err != nil {
		t.Fatal(err)
	}
	checkNames(t, names, 32, 500)
}

func TestErrors(t *testing.T) {
	cases := []struct {
		team string
		req  abi.MapNamesRequest
		want string
	}{
		{"", abi.MapNamesRequest{Tools: keys("s", "t")}, "config team is not set"},
		{"blue", abi.MapNamesRequest{Tools: keys("s", "t"), Constraints: abi.NameConstraints{MaxLength: 8}}, "max_length 8"},
		{"blue", abi.MapNamesRequest{Tools: keys("s", "t"), Constraints: abi.NameConstraints{Pattern: "("}}, "bad pattern"},
		// A stricter pattern than the plugin's alphabet: refused, so the
		// host falls back to its own mapping instead of getting bad names.
		{"blue", abi.MapNamesRequest{Tools: keys("s", "t"), Constraints: abi.NameConstraints{Pattern: "^[a-z]+$"}}, "does not match"},
	}
	for _, c := range cases {
		if names, err := call(t, c.team, c.req); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("team %q %+v: got %v, %v; want an error with %q", c.team, c.req, names, err, c.want)
		}
	}
}

func checkNames(t *testing.T, names []string, maxLen, n int) {
	t.Helper()
	if len(names) != n {
		t.Fatalf("%d names, want %d: %v", len(names), n, names)
	}
	valid := regexp.MustCompile(fmt.Sprintf("^[a-zA-Z0-9_-]{1,%d}$", maxLen))
	seen := map[string]bool{}
	for _, s := range names {
		if !valid.MatchString(s) {
			t.Errorf("invalid name %q (max %d)", s, maxLen)
		}
		if seen[s] {
			t.Errorf("duplicate name %q in %v", s, names)
		}
		seen[s] = true
	}
}

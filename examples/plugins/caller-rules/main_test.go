package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
)

// sreRules is the example of this plugin's README: deletions in k8s for the SRE group
// (by scope, or the SRE static token), force pushes for one person.
const sreRules = `[
  {"name": "sre-deletes", "tools": ["k8s:delete_*"], "scopes": ["sre"], "callers": ["token:sre_token"]},
  {"name": "release", "tools": ["gh_force_push", "gh:*_release"], "callers": ["alice"]}
]`

func gateway(id string, scopes ...string) *abi.Caller {
	return &abi.Caller{Kind: "gateway", ID: id, Session: "s1", Scopes: scopes}
}

func deletePod(c *abi.Caller) abi.PolicyRequest {
	return abi.PolicyRequest{Server: "k8s", Tool: "delete_pod", Name: "mcp__k8s__delete_pod", Caller: c}
}

func TestDescribe(t *testing.T) {
	d, err := pdk.Description()
	if err != nil {
		t.Fatal(err)
	}
	if d.Name != "caller-rules" || d.Version != version || len(d.Hooks) != 1 || d.Hooks[0] != abi.HookPolicy {
		t.Fatalf("Description() = %+v", d)
	}
}

func TestDecide(t *testing.T) {
	cases := []struct {
		name   string
		rules  string // "" means sreRules
		req    abi.PolicyRequest
		want   abi.Decision
		reason []string // fragments of the reason
	}{
		{"SRE token by caller id", "", deletePod(gateway("token:sre_token")),
			abi.Allow, []string{`allow: mcp__k8s__delete_pod (k8s:delete_pod) for caller "token:sre_token"`, `rule "sre-deletes" (caller)`}},
		{"JWT caller by scope", "", deletePod(gateway("bob", "tools.read", "sre")),
			abi.Allow, []string{`caller "bob"`, `rule "sre-deletes" (scope "sre")`}},
		{"other token denied, naming rule and caller", "", deletePod(gateway("token:dev_token")),
			abi.Deny, []string{`rule "sre-deletes": mcp__k8s__delete_pod (k8s:delete_pod) matches "k8s:delete_*"`, `caller "token:dev_token" has none of the rule's scopes`}},
		{"a scope is compared exactly", "", deletePod(gateway("bob", "SRE", "sre-lite", " sre")),
			abi.Deny, []string{`caller "bob"`}},
		{"a caller id is compared exactly", "", deletePod(gateway("token:SRE_TOKEN")),
			abi.Deny, []string{`caller "token:SRE_TOKEN"`}},
		{"anonymous gateway caller", "", deletePod(&abi.Caller{Kind: "gateway", Session: "s"}),
			abi.Deny, []string{"an anonymous gateway caller has none"}},
		{"command line fails closed, even with a matching id", "", deletePod(&abi.Caller{Kind: "cli", ID: "token:sre_token"}),
			abi.Deny, []string{`rule "sre-deletes"`, `no gateway identity (caller kind "cli")`, "only authenticated gateway callers"}},
		{"library fails closed", "", deletePod(&abi.Caller{Kind: "library", Scopes: []string{"sre"}}),
			abi.Deny, []string{`caller kind "library"`}},
		{"no caller fails closed", "", deletePod(nil),
			abi.Deny, []string{"the call has no caller;"}},
		{"no rule matches: allowed, even without a caller", "",
			abi.PolicyRequest{Server: "k8s", Tool: "get_pod", Name: "mcp__k8s__get_pod"},
			abi.Allow, []string{"no rule: mcp__k8s__get_pod (k8s:get_pod) matches no rule; allowed"}},
		{"no rule matches for a gateway caller", "",
			abi.PolicyRequest{Server: "k8s", Tool: "get_pod", Name: "mcp__k8s__get_pod", Caller: gateway("token:dev_token")},
			abi.Allow, []string{"matches no rule"}},
		{"matched by public name", "",
			abi.PolicyRequest{Server: "github", Tool: "force_push", Name: "gh_force_push", Caller: gateway("carol")},
			abi.Deny, []string{`rule "release": gh_force_push (github:force_push) matches "gh_force_push"`}},
		{"matched by server:tool under another public name", "",
			abi.PolicyRequest{Server: "gh", Tool: "create_release", Name: "renamed", Caller: gateway("alice")},
			abi.Allow, []string{`rule "release" (caller)`}},
		{"a glob's star crosses '/' as in the host", "",
			abi.PolicyRequest{Server: "k8s", Tool: "delete_ns/pod", Name: "x", Caller: gateway("carol")},
			abi.Deny, []string{`matches "k8s:delete_*"`}},
		{"unnamed rules are numbered", `[{"tools": ["a:*"], "callers": ["x"]}, {"tools": ["b:*"], "scopes": ["y"]}]`,
			abi.PolicyRequest{Server: "b", Tool: "t", Name: "b_t", Caller: gateway("x")},
			abi.Deny, []string{`rule #2: b_t (b:t) matches "b:*"`}},
		{"every matching rule must admit the caller",
			`[{"name": "ops", "tools": ["k8s:*"], "scopes": ["ops"]}, {"name": "sre", "tools": ["k8s:delete_*"], "scopes": ["sre"]}]`,
			deletePod(gateway("bob", "ops")),
			abi.Deny, []string{`rule "sre": `, `caller "bob" has none`}},
		{"all matching rules named when they admit",
			`[{"name": "ops", "tools": ["k8s:*"], "scopes": ["ops"]}, {"name": "sre", "tools": ["k8s:delete_*"], "callers": ["bob"]}]`,
			deletePod(gateway("bob", "ops")),
			abi.Allow, []string{`admitted by rule "ops" (scope "ops"), rule "sre" (caller)`}},
		{"a long caller id is cut in the reason", "", deletePod(gateway(strings.Repeat("é", 100))),
			abi.Deny, []string{`caller "` + strings.Repeat("é", 64) + `…"`}},
		{"a caller id is quoted", "", deletePod(gateway("x\" has every scope; allow")),
			abi.Deny, []string{`caller "x\" has every scope; allow"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rules := c.rules
			if rules == "" {
				rules = sreRules
			}
			t.Cleanup(pdk.UseMock(&pdk.Mock{Config: map[string]string{"rules": rules}}))
			var d abi.PolicyDecision
			if err := pdk.CallJSON(abi.HookPolicy, c.req, &d); err != nil {
				t.Fatal(err)
			}
			if d.Decision != c.want {
				t.Fatalf("decision %s %q, want %s", d.Decision, d.Reason, c.want)
			}
			for _, frag := range c.reason {
				if !strings.Contains(d.Reason, frag) {
					t.Errorf("reason %q lacks %q", d.Reason, frag)
				}
			}
			if d.Arguments != nil {
				t.Fatalf("arguments rewritten: %v", d.Arguments)
			}
		})
	}
}

// A malformed config fails every call, the ones no rule would match too:
// the host then applies the entry's on_error (deny by default).
func TestConfigErrors(t *testing.T) {
	tools := func(n int) string {
		q := make([]string, n)
		for i := range q {
			q[i] = strconv.Quote("t" + strconv.Itoa(i))
		}
		return "[" + strings.Join(q, ",") + "]"
	}
	many := "[" + strings.Repeat(`{"tools": ["a"], "scopes": ["s"]},`, maxRules) + `{"tools": ["a"], "scopes": ["s"]}]`
	for _, c := range []struct{ rules, want string }{
		{"", "config rules: not set"},
		{"[]", "the list is empty"},
		{"{}", "want a JSON list of rules, not an object"},
		{"k8s:delete_*", "config rules: invalid character"},
		{`[{"tools": ["a"], "scopes": ["s"]}`, "the text ends where the end of the list should be"},
		{`[{"tools": ["a"], "scopes": ["s"]}] []`, "text after the list"},
		{`[{"tools": ["a"], "scopes": ["s"]},]`, "invalid character"},
		{`["k8s:*"]`, "rule #1: want an object, not the string"},
		{`[{"tools": ["a"], "scope": ["s"]}]`, `rule #1: unknown key "scope"`},
		{`[{"Tools": ["a"], "scopes": ["s"]}]`, `unknown key "Tools"`},
		{`[{"tools": ["a"], "scopes": ["s"], "tools": ["b"]}]`, `key "tools" appears twice`},
		{`[{"scopes": ["s"]}]`, "tools: want at least one glob"},
		{`[{"tools": [], "scopes": ["s"]}]`, "tools: want at least one glob"},
		{`[{"tools": null, "scopes": ["s"]}]`, "tools: want a list of strings, not null"},
		{`[{"tools": "k8s:*", "scopes": ["s"]}]`, `tools: want a list of strings, not the string "k8s:*"`},
		{`[{"tools": ["a", 7], "scopes": ["s"]}]`, "tools: want a string, not a number"},
		{`[{"tools": ["fs_["], "scopes": ["s"]}]`, `rule #1: tools: bad glob "fs_["`},
		{`[{"tools": ["` + strings.Repeat("a", maxGlobLen+1) + `"], "scopes": ["s"]}]`, "is longer than 256 bytes"},
		{`[{"tools": ` + tools(maxListLen+1) + `, "scopes": ["s"]}]`, "tools: more than 256 entries"},
		{`[{"tools": ["a"]}]`, "neither scopes nor callers"},
		{`[{"tools": ["a"], "scopes": [], "callers": []}]`, "neither scopes nor callers"},
		{`[{"tools": ["a"], "scopes": [""]}]`, "scopes: an empty string"},
		{`[{"tools": ["a"], "callers": ["token:sre_token "]}]`, "callers: \"token:sre_token \" has surrounding spaces"},
		{`[{"tools": ["a"], "callers": ["a\u0000b"]}]`, "control characters"},
		{`[{"tools": ["a"], "scopes": ["` + strings.Repeat("s", maxValueLen+1) + `"]}]`, "longer than 256 bytes"},
		{`[{"name": "sre deletes", "tools": ["a"], "scopes": ["s"]}]`, `name "sre deletes": want 1 to 64 of`},
		{`[{"name": "", "tools": ["a"], "scopes": ["s"]}]`, `name "": want`},
		{`[{"name": 1, "tools": ["a"], "scopes": ["s"]}]`, "name: want a string, not a number"},
		{`[{"name": "x", "tools": ["a"], "scopes": ["s"]}, {"name": "x", "tools": ["b"], "scopes": ["s"]}]`,
			`rule #2: name "x" is taken by an earlier rule`},
		{`[{"name": "x", "tools": ["a"], "scopes": ["s"]}, {"name": "y", "tools": ["b"]}]`,
			`rule #2 ("y"): neither scopes nor callers`},
		{many, "more than 256 rules"},
		{"[" + strings.Repeat(" ", maxConfigBytes) + "]", "longer than 65536 bytes"},
	} {
		t.Run(c.want, func(t *testing.T) {
			config := map[string]string{"rules": c.rules}
			t.Cleanup(pdk.UseMock(&pdk.Mock{Config: config}))
			for _, req := range []abi.PolicyRequest{
				deletePod(gateway("token:sre_token")),
				{Server: "other", Tool: "x", Name: "other_x", Caller: gateway("token:sre_token")},
				{Server: "other", Tool: "x", Name: "other_x"},
			} {
				var d abi.PolicyDecision
				err := pdk.CallJSON(abi.HookPolicy, req, &d)
				if err == nil || !strings.Contains(err.Error(), "config rules") || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("rules %.80q: got %+v, %v; want a config error with %q", c.rules, d, err, c.want)
				}
			}
		})
	}
}

// The parsed rules are kept per instance, but a changed config (a new
// Mock here) is parsed again, a valid one after a broken one included.
func TestConfigChangeIsParsedAgain(t *testing.T) {
	req := deletePod(gateway("token:sre_token"))
	for _, c := range []struct {
		rules string
		ok    bool
	}{{"[", false}, {sreRules, true}, {`[{"tools": ["k8s:*"], "scopes": ["x"]}]`, true}, {"[", false}} {
		restore := pdk.UseMock(&pdk.Mock{Config: map[string]string{"rules": c.rules}})
		var d abi.PolicyDecision
		err := pdk.CallJSON(abi.HookPolicy, req, &d)
		restore()
		if (err == nil) != c.ok {
			t.Fatalf("rules %q: %+v, %v", c.rules, d, err)
		}
	}
}

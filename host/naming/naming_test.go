package naming

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

var nameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// checkMap asserts the invariants every result of Map must satisfy.
func checkMap(t testing.TB, m Mapper, keys []Key, got map[Key]string) {
	t.Helper()
	maxLen := m.MaxLength
	if maxLen == 0 {
		maxLen = DefaultMaxLength
	}
	byName := make(map[string]Key)
	for _, k := range keys {
		n, ok := got[k]
		if !ok {
			t.Fatalf("key %q missing from result", k)
		}
		if !Valid(n, maxLen) || !nameRE.MatchString(n) {
			t.Fatalf("key %q: invalid name %q (max %d)", k, n, maxLen)
		}
		if other, ok := byName[n]; ok && other != k {
			t.Fatalf("keys %q and %q share name %q", other, k, n)
		}
		byName[n] = k
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		m  Mapper
		ok bool
	}{
		{Mapper{}, true},
		{Mapper{Scheme: SchemePrefixed}, true},
		{Mapper{Scheme: SchemeServer, MaxLength: 16}, true},
		{Mapper{Scheme: SchemeBare, MaxLength: 128}, true},
		{Mapper{Scheme: "MCP"}, false},
		{Mapper{Scheme: "bogus"}, false},
		{Mapper{MaxLength: 15}, false},
		{Mapper{MaxLength: 129}, false},
		{Mapper{MaxLength: -1}, false},
	} {
		err := tc.m.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("%+v.Validate() = %v, want ok=%v", tc.m, err, tc.ok)
		}
		if _, err := tc.m.Map([]Key{{"s", "t"}}); (err == nil) != tc.ok {
			t.Errorf("%+v.Map() error = %v, want ok=%v", tc.m, err, tc.ok)
		}
	}
}

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "_"},
		{"read_file", "read_file"},
		{"Read-File-2", "Read-File-2"},
		{"files.read", "files_read"},
		{"a/b\\c", "a_b_c"},
		{"get weather", "get_weather"},
		{"café", "caf_"},       // one '_' per character, not per byte
		{"日本語", "___"},         // multi-byte runes
		{"emoji😀x", "emoji_x"}, // 4-byte rune
		{"a\x00b", "a_b"},
		{"\xff\xfe", "__"}, // invalid UTF-8: one '_' per byte
		{"tab\there", "tab_here"},
		{"a:b@c#d", "a_b_c_d"},
	} {
		if got := Sanitize(tc.in); got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestValid(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  int
		want bool
	}{
		{"a", 64, true},
		{"", 64, false},
		{"a.b", 64, false},
		{"a b", 64, false},
		{"é", 64, false},
		{strings.Repeat("a", 64), 64, true},
		{strings.Repeat("a", 65), 64, false},
		{strings.Repeat("a", 65), 0, false}, // 0 means the default, 64
		{strings.Repeat("a", 64), 0, true},
		{strings.Repeat("a", 17), 16, false},
		{"mcp__s__t", 16, true},
	} {
		if got := Valid(tc.name, tc.max); got != tc.want {
			t.Errorf("Valid(%q, %d) = %v, want %v", tc.name, tc.max, got, tc.want)
		}
	}
}

func TestMapSchemes(t *testing.T) {
	keys := []Key{
		{"github", "search"},
		{"github", "create_issue"},
		{"jira", "search"},
		{"fs", "read.file"},
		{"my server", "list/dir"},
	}
	for _, tc := range []struct {
		scheme string
		want   map[Key]string
	}{
		{"", map[Key]string{
			{"github", "search"}:       "mcp__github__search",
			{"github", "create_issue"}: "mcp__github__create_issue",
			{"jira", "search"}:         "mcp__jira__search",
			{"fs", "read.file"}:        "mcp__fs__read_file",
			{"my server", "list/dir"}:  "mcp__my_server__list_dir",
		}},
		{SchemePrefixed, map[Key]string{
			{"github", "search"}:       "mcp__github__search",
			{"github", "create_issue"}: "mcp__github__create_issue",
			{"jira", "search"}:         "mcp__jira__search",
			{"fs", "read.file"}:        "mcp__fs__read_file",
			{"my server", "list/dir"}:  "mcp__my_server__list_dir",
		}},
		{SchemeServer, map[Key]string{
			{"github", "search"}:       "github_search",
			{"github", "create_issue"}: "github_create_issue",
			{"jira", "search"}:         "jira_search",
			{"fs", "read.file"}:        "fs_read_file",
			{"my server", "list/dir"}:  "my_server_list_dir",
		}},
		{SchemeBare, map[Key]string{
			{"github", "search"}:       "github_search", // collides with jira's search
			{"github", "create_issue"}: "create_issue",
			{"jira", "search"}:         "jira_search",
			{"fs", "read.file"}:        "read_file",
			{"my server", "list/dir"}:  "list_dir",
		}},
	} {
		t.Run("scheme="+tc.scheme, func(t *testing.T) {
			m := Mapper{Scheme: tc.scheme}
			got, err := m.Map(keys)
			if err != nil {
				t.Fatal(err)
			}
			checkMap(t, m, keys, got)
			if len(got) != len(tc.want) {
				t.Errorf("got %d names, want %d: %v", len(got), len(tc.want), got)
			}
			for k, w := range tc.want {
				if got[k] != w {
					t.Errorf("%q -> %q, want %q", k, got[k], w)
				}
			}
		})
	}
}

func TestMapEmptyAndDuplicates(t *testing.T) {
	for _, scheme := range []string{SchemePrefixed, SchemeServer, SchemeBare} {
		m := Mapper{Scheme: scheme}
		keys := []Key{{"", ""}, {"", "t"}, {"s", ""}, {"s", "t"}, {"s", "t"}, {"", ""}}
		got, err := m.Map(keys)
		if err != nil {
			t.Fatal(err)
		}
		checkMap(t, m, keys, got)
		if len(got) != 4 {
			t.Errorf("scheme %s: got %d names for 4 distinct keys: %v", scheme, len(got), got)
		}
		if got, err := m.Map(nil); err != nil || len(got) != 0 {
			t.Errorf("scheme %s: Map(nil) = %v, %v", scheme, got, err)
		}
	}
}

func TestMapLongNames(t *testing.T) {
	long := strings.Repeat("very_long_tool_name_", 10)
	for _, scheme := range []string{SchemePrefixed, SchemeServer, SchemeBare} {
		for _, maxLen := range []int{16, 20, 64, 128} {
			m := Mapper{Scheme: scheme, MaxLength: maxLen}
			keys := []Key{{"srv", long + "a"}, {"srv", long + "b"}, {"srv", "short"}}
			got, err := m.Map(keys)
			if err != nil {
				t.Fatal(err)
			}
			checkMap(t, m, keys, got)
			for _, k := range keys[:2] {
				n := got[k]
				if len(n) != maxLen {
					t.Errorf("%s/%d: len(%q) = %d, want %d", scheme, maxLen, n, len(n), maxLen)
				}
				if !regexp.MustCompile(`_[0-9a-f]{8}$`).MatchString(n) {
					t.Errorf("%s/%d: %q lacks an 8-digit hash suffix", scheme, maxLen, n)
				}
			}
			// The two long names share their prefix; only the hash differs.
			a, b := got[keys[0]], got[keys[1]]
			if a[:maxLen-9] != b[:maxLen-9] {
				t.Errorf("%s/%d: prefixes differ: %q %q", scheme, maxLen, a, b)
			}
			// Deterministic across calls.
			again, _ := m.Map(keys)
			for k := range got {
				if again[k] != got[k] {
					t.Errorf("%s/%d: %q mapped to %q then %q", scheme, maxLen, k, got[k], again[k])
				}
			}
		}
	}
	// A long server name is shortened the same way.
	m := Mapper{}
	k := Key{strings.Repeat("s", 100), "t"}
	got, _ := m.Map([]Key{k})
	if n := got[k]; len(n) != 64 || !strings.HasPrefix(n, "mcp__sss") {
		t.Errorf("long server: %q", n)
	}
}

func TestMapCollisions(t *testing.T) {
	hashRE := regexp.MustCompile(`^(.*)_[0-9a-f]{8}$`)
	t.Run("same server", func(t *testing.T) {
		m := Mapper{}
		keys := []Key{{"s", "a.b"}, {"s", "a_b"}, {"s", "a b"}, {"s", "other"}}
		got, err := m.Map(keys)
		if err != nil {
			t.Fatal(err)
		}
		checkMap(t, m, keys, got)
		for _, k := range keys[:3] {
			sm := hashRE.FindStringSubmatch(got[k])
			if sm == nil || sm[1] != "mcp__s__a_b" {
				t.Errorf("%q -> %q, want mcp__s__a_b_<hash>", k, got[k])
			}
		}
		if got[keys[3]] != "mcp__s__other" {
			t.Errorf("non-colliding key renamed: %q", got[keys[3]])
		}
	})
	t.Run("across servers", func(t *testing.T) {
		// "a__b"/"c" and "a"/"b__c" both give mcp__a__b__c.
		m := Mapper{}
		keys := []Key{{"a__b", "c"}, {"a", "b__c"}}
		got, err := m.Map(keys)
		if err != nil {
			t.Fatal(err)
		}
		checkMap(t, m, keys, got)
	})
	t.Run("bare scheme same server", func(t *testing.T) {
		m := Mapper{Scheme: SchemeBare}
		keys := []Key{{"s", "x.y"}, {"s", "x_y"}, {"t", "z"}}
		got, err := m.Map(keys)
		if err != nil {
			t.Fatal(err)
		}
		checkMap(t, m, keys, got)
		for _, k := range keys[:2] {
			if sm := hashRE.FindStringSubmatch(got[k]); sm == nil || sm[1] != "x_y" {
				t.Errorf("%q -> %q, want x_y_<hash>", k, got[k])
			}
		}
		if got[keys[2]] != "z" {
			t.Errorf("z renamed to %q", got[keys[2]])
		}
	})
	t.Run("bare prefix meets bare name", func(t *testing.T) {
		// github/search and jira/search become github_search and
		// jira_search; a third server's tool literally named
		// "github_search" collides with the first.
		m := Mapper{Scheme: SchemeBare}
		keys := []Key{{"github", "search"}, {"jira", "search"}, {"other", "github_search"}}
		got, err := m.Map(keys)
		if err != nil {
			t.Fatal(err)
		}
		checkMap(t, m, keys, got)
		if got[keys[1]] != "jira_search" {
			t.Errorf("jira/search -> %q", got[keys[1]])
		}
	})
	t.Run("hashed name meets preferred name", func(t *testing.T) {
		// A tool literally named like the hashed form of a colliding pair
		// keeps its name; the colliding key gets a longer hash.
		m := Mapper{}
		pair := []Key{{"s", "a.b"}, {"s", "a_b"}}
		first, _ := m.Map(pair)
		squatter := Key{"s", strings.TrimPrefix(first[pair[0]], "mcp__s__")}
		keys := append(pair, squatter)
		got, err := m.Map(keys)
		if err != nil {
			t.Fatal(err)
		}
		checkMap(t, m, keys, got)
		if got[squatter] != first[pair[0]] {
			t.Errorf("squatter %q -> %q, want its preferred name %q", squatter, got[squatter], first[pair[0]])
		}
		if !regexp.MustCompile(`^mcp__s__a_b_[0-9a-f]{12}$`).MatchString(got[pair[0]]) {
			t.Errorf("displaced key -> %q, want a 12-digit hash", got[pair[0]])
		}
		if got[pair[1]] != first[pair[1]] {
			t.Errorf("other colliding key changed: %q -> %q", first[pair[1]], got[pair[1]])
		}
	})
	t.Run("NUL makes hash input identical", func(t *testing.T) {
		// server+"\x00"+tool is the same for both keys, so only salting
		// separates them.
		for _, maxLen := range []int{16, 64} {
			m := Mapper{MaxLength: maxLen}
			keys := []Key{{"a\x00b", "c"}, {"a", "b\x00c"}}
			got, err := m.Map(keys)
			if err != nil {
				t.Fatal(err)
			}
			checkMap(t, m, keys, got)
		}
	})
}

func shuffled(keys []Key, r *rand.Rand) []Key {
	out := append([]Key(nil), keys...)
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func TestMapOrderIndependent(t *testing.T) {
	var keys []Key
	for s := range 5 {
		for tl := range 20 {
			keys = append(keys, Key{fmt.Sprintf("srv%d", s), fmt.Sprintf("tool%d", tl)})
		}
		// Collisions and long names, to exercise every path.
		keys = append(keys, Key{fmt.Sprintf("srv%d", s), "a.b"}, Key{fmt.Sprintf("srv%d", s), "a_b"},
			Key{fmt.Sprintf("srv%d", s), strings.Repeat("x", 90)}, Key{"shared", fmt.Sprintf("srv%d.x", s)})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, scheme := range []string{SchemePrefixed, SchemeServer, SchemeBare} {
		for _, maxLen := range []int{16, 64} {
			m := Mapper{Scheme: scheme, MaxLength: maxLen}
			want, err := m.Map(keys)
			if err != nil {
				t.Fatal(err)
			}
			checkMap(t, m, keys, want)
			for range 20 {
				got, err := m.Map(shuffled(keys, r))
				if err != nil {
					t.Fatal(err)
				}
				for k, w := range want {
					if got[k] != w {
						t.Fatalf("%s/%d: %q -> %q after shuffle, want %q", scheme, maxLen, k, got[k], w)
					}
				}
			}
		}
	}
}

// TestMapStableWhenAddingServer is the gateway complaint: adding a server
// must not rename tools that do not collide with the new server's tools.
func TestMapStableWhenAddingServer(t *testing.T) {
	before := []Key{{"github", "search"}, {"github", "create_issue"}, {"fs", "read_file"}, {"fs", "write.file"}}
	added := []Key{{"jira", "search"}, {"jira", "create_ticket"}, {"notes", "read.file"}}
	for _, scheme := range []string{SchemePrefixed, SchemeServer, SchemeBare} {
		m := Mapper{Scheme: scheme}
		b, err := m.Map(before)
		if err != nil {
			t.Fatal(err)
		}
		a, err := m.Map(append(append([]Key(nil), before...), added...))
		if err != nil {
			t.Fatal(err)
		}
		checkMap(t, m, append(append([]Key(nil), before...), added...), a)
		for _, k := range before {
			changed := a[k] != b[k]
			// Only the bare scheme renames, and only the tools whose bare
			// names the new server also offers.
			wantChange := scheme == SchemeBare && (k.Tool == "search" || k.Tool == "read_file")
			if changed != wantChange {
				t.Errorf("%s: %q: %q -> %q (want change: %v)", scheme, k, b[k], a[k], wantChange)
			}
		}
	}
}

func Example() {
	m := Mapper{} // SchemePrefixed, 64 characters
	names, err := m.Map([]Key{
		{Server: "github", Tool: "search"},
		{Server: "my files", Tool: "read.file"},
		{Server: "jira", Tool: "search"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(names[Key{"github", "search"}])
	fmt.Println(names[Key{"my files", "read.file"}])
	fmt.Println(names[Key{"jira", "search"}])

	bare := Mapper{Scheme: SchemeBare, MaxLength: 32}
	names, _ = bare.Map([]Key{
		{Server: "github", Tool: "search"},
		{Server: "github", Tool: "create_issue"},
		{Server: "jira", Tool: "search"},
	})
	fmt.Println(names[Key{"github", "search"}])
	fmt.Println(names[Key{"github", "create_issue"}])
	// Output:
	// mcp__github__search
	// mcp__my_files__read_file
	// mcp__jira__search
	// github_search
	// create_issue
}

func FuzzMap(f *testing.F) {
	f.Add("github", "search", "jira", "search", "s", "a.b", uint8(0), uint8(48))
	f.Add("", "", "", "x", "a\x00b", "c", uint8(2), uint8(0))
	f.Add("a__b", "c", "a", "b__c", "日本", "ツール", uint8(1), uint8(112))
	f.Add(strings.Repeat("s", 70), strings.Repeat("t", 70), strings.Repeat("s", 70), strings.Repeat("t", 69)+"u", "x", "y", uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2, s3, t3 string, scheme, maxLen uint8) {
		m := Mapper{
			Scheme:    []string{SchemePrefixed, SchemeServer, SchemeBare, ""}[scheme%4],
			MaxLength: MinMaxLength + int(maxLen)%(MaxMaxLength-MinMaxLength+1),
		}
		// Derive extra keys that tend to collide with the fuzzed ones.
		keys := []Key{
			{s1, t1}, {s2, t2}, {s3, t3},
			{s1, t2}, {s2, t1}, {s1, Sanitize(t1)}, {s2, t1 + "."}, {s3, t3 + "_"}, {s1, t1},
		}
		got, err := m.Map(keys)
		if err != nil {
			t.Fatalf("Map(%q) with %+v: %v", keys, m, err)
		}
		checkMap(t, m, keys, got)
		distinct := make(map[Key]bool)
		for _, k := range keys {
			distinct[k] = true
		}
		if len(got) != len(distinct) {
			t.Fatalf("got %d names for %d distinct keys", len(got), len(distinct))
		}
		// Order independence.
		rev := make([]Key, len(keys))
		for i, k := range keys {
			rev[len(keys)-1-i] = k
		}
		again, err := m.Map(rev)
		if err != nil {
			t.Fatal(err)
		}
		for k, n := range got {
			if again[k] != n {
				t.Fatalf("%q -> %q, reversed input -> %q", k, n, again[k])
			}
		}
	})
}

func BenchmarkMap(b *testing.B) {
	var keys []Key
	for s := range 10 {
		for tl := range 100 {
			name := fmt.Sprintf("tool_%d", tl)
			if tl%10 == 0 {
				name = fmt.Sprintf("namespace.tool/%d", tl) // needs sanitising
			}
			if tl%25 == 0 {
				name = strings.Repeat("long_", 15) + name // needs shortening
			}
			keys = append(keys, Key{fmt.Sprintf("server-%d", s), name})
		}
	}
	for _, scheme := range []string{SchemePrefixed, SchemeBare} {
		b.Run("scheme="+scheme, func(b *testing.B) {
			m := Mapper{Scheme: scheme}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Map(keys); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReadmeExample keeps the hashes quoted in docs/tool-names.md honest.
func TestReadmeExample(t *testing.T) {
	got, err := Mapper{}.Map([]Key{{"s", "a.b"}, {"s", "a_b"}})
	if err != nil {
		t.Fatal(err)
	}
	if got[Key{"s", "a.b"}] != "mcp__s__a_b_407e8e5c" || got[Key{"s", "a_b"}] != "mcp__s__a_b_8d47d403" {
		t.Errorf("got %v", got)
	}
}

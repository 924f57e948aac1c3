// Package naming is the built-in name-mapping stage: it gives every tool of
// every configured server a public name that model providers accept.
//
// Providers only accept tool names matching ^[a-zA-Z0-9_-]{1,64}$ (some allow
// more or less), while MCP servers name their tools freely and two servers
// may well both offer a "search" tool. A Mapper turns the (server, tool) pairs
// the host discovered into public names that are valid, distinct and
// deterministic. The host keeps the returned map in both directions; names
// are not meant to be parsed back.
//
// Guarantees of Mapper.Map, for every scheme:
//   - every name is Valid for the configured maximum length;
//   - distinct keys get distinct names, across all servers;
//   - the result depends only on the set of keys, not on their order;
//   - a key whose preferred name does not collide with another key's keeps
//     that name when other servers or tools are added (with SchemeBare, a
//     tool's preferred name is its bare name only while no other server has a
//     tool with the same sanitized name; see SchemeBare).
package naming

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Key identifies a tool as a server names it: the configured server name and
// the tool name from that server's tools/list.
type Key struct{ Server, Tool string }

// Naming schemes. The names are what configuration files use.
const (
	// SchemePrefixed maps to "mcp__<server>__<tool>", the convention of
	// Claude Code, so names are familiar and never depend on other servers.
	// It is the default.
	SchemePrefixed = "mcp"
	// SchemeServer maps to "<server>_<tool>": shorter, and still independent
	// of other servers.
	SchemeServer = "server"
	// SchemeBare maps to "<tool>" and falls back to "<server>_<tool>" only for
	// tools whose sanitized name is also offered by another server. It gives
	// the shortest names, at a price: when a server is added that offers a
	// tool of the same name, the existing tool's name changes too (both get
	// the server prefix). This cannot be avoided without making names depend
	// on the order servers were added, which would make them non-deterministic.
	SchemeBare = "tool"
)

// Length limits for public names.
const (
	// DefaultMaxLength is the limit of OpenAI and the safe choice for every
	// provider.
	DefaultMaxLength = 64
	// MinMaxLength is the smallest configurable limit: below it a hash suffix
	// would leave almost no room for a readable prefix.
	MinMaxLength = 16
	// MaxMaxLength is the largest configurable limit; no provider we know of
	// accepts more.
	MaxMaxLength = 128
)

// hashLen is the number of hex digits of the suffix appended to shortened or
// colliding names: 32 bits keep accidental collisions improbable for any
// realistic number of tools while leaving most of the name readable.
const hashLen = 8

// Mapper maps (server, tool) keys to public names. The zero value is ready
// to use and means SchemePrefixed with DefaultMaxLength.
type Mapper struct {
	// Scheme is one of SchemePrefixed, SchemeServer, SchemeBare; empty means
	// SchemePrefixed.
	Scheme string
	// MaxLength is the maximum length of a public name, between MinMaxLength
	// and MaxMaxLength; zero means DefaultMaxLength.
	MaxLength int
}

// Validate reports a configuration error, so that a bad scheme or length in a
// config file is reported when it is loaded rather than on first use.
func (m Mapper) Validate() error {
	switch m.Scheme {
	case "", SchemePrefixed, SchemeServer, SchemeBare:
	default:
		return fmt.Errorf("naming: unknown scheme %q (want %q, %q or %q)",
			m.Scheme, SchemePrefixed, SchemeServer, SchemeBare)
	}
	if m.MaxLength != 0 && (m.MaxLength < MinMaxLength || m.MaxLength > MaxMaxLength) {
		return fmt.Errorf("naming: max length %d out of range [%d, %d]",
			m.MaxLength, MinMaxLength, MaxMaxLength)
	}
	return nil
}

// MaxLen is the effective maximum length of a public name.
func (m Mapper) MaxLen() int { return m.maxLength() }

// Pattern is the regular expression every public name of at most maxLength
// characters matches, as told to name-mapping plugins.
func Pattern(maxLength int) string {
	if maxLength <= 0 {
		maxLength = DefaultMaxLength
	}
	return fmt.Sprintf("^[a-zA-Z0-9_-]{1,%d}$", maxLength)
}

func (m Mapper) scheme() string {
	if m.Scheme == "" {
		return SchemePrefixed
	}
	return m.Scheme
}

func (m Mapper) maxLength() int {
	if m.MaxLength == 0 {
		return DefaultMaxLength
	}
	return m.MaxLength
}

// maxLevels bounds the search for a free name. Each level either lengthens
// the hash or, once it cannot grow, re-salts it, so in practice every key is
// placed at level 0 or 1; the bound only turns an impossible endless loop
// into an error.
const maxLevels = 64

// Map returns a public name for every key. Duplicate keys are allowed and get
// the same name. See the package documentation for the guarantees.
//
// How a name is chosen:
//  1. The preferred name is built from the sanitized server and tool names
//     according to the scheme. If it is longer than the maximum length, it is
//     cut and given a hash suffix: prefix + "_" + 8 hex digits of
//     sha256(server + "\x00" + tool) (the original, unsanitized names).
//  2. Keys whose preferred name is unique keep it.
//  3. Keys that share a preferred name with another key (say tools "a.b" and
//     "a_b", which both sanitize to "a_b") all get the hash-suffixed form of
//     their preferred name instead, even if it is short. Should that form be
//     taken too (by a preferred name of step 2 or another hashed name), the
//     hash is lengthened until the name is free.
func (m Mapper) Map(keys []Key) (map[Key]string, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	maxLen := m.maxLength()

	uniq := slices.Clone(keys)
	slices.SortFunc(uniq, compareKeys)
	uniq = slices.Compact(uniq)

	// Unshortened preferred names, from which hashed forms are cut.
	full := make(map[Key]string, len(uniq))
	switch m.scheme() {
	case SchemePrefixed:
		for _, k := range uniq {
			full[k] = "mcp__" + Sanitize(k.Server) + "__" + Sanitize(k.Tool)
		}
	case SchemeServer:
		for _, k := range uniq {
			full[k] = Sanitize(k.Server) + "_" + Sanitize(k.Tool)
		}
	case SchemeBare:
		servers := make(map[string]map[string]bool) // sanitized tool -> servers offering it
		for _, k := range uniq {
			t := Sanitize(k.Tool)
			if servers[t] == nil {
				servers[t] = make(map[string]bool)
			}
			servers[t][k.Server] = true
		}
		for _, k := range uniq {
			t := Sanitize(k.Tool)
			if len(servers[t]) > 1 {
				full[k] = Sanitize(k.Server) + "_" + t
			} else {
				full[k] = t
			}
		}
	}

	// Step 1 and 2: preferred names, kept where unique.
	byName := make(map[string][]Key, len(uniq))
	for _, k := range uniq {
		n := full[k]
		if len(n) > maxLen {
			n = hashed(n, k, maxLen, hashLen, "")
		}
		byName[n] = append(byName[n], k)
	}
	out := make(map[Key]string, len(uniq))
	taken := make(map[string]bool, len(uniq))
	var pending [][]Key // groups of keys that shared a candidate name
	for n, ks := range byName {
		if len(ks) == 1 {
			out[ks[0]] = n
			taken[n] = true
		} else {
			pending = append(pending, ks)
		}
	}

	// Step 3: hashed names for colliding keys. Each level is decided on the
	// whole set of pending keys before any name is handed out, so the result
	// does not depend on map iteration or input order.
	for level := 0; len(pending) > 0; level++ {
		if level >= maxLevels {
			return nil, errors.New("naming: cannot find distinct names (hash collisions)")
		}
		n := hashLen + 4*level
		salted := false
		if limit := min(maxLen-2, sha256.Size*2); n > limit {
			// The hash cannot grow any further: only keys with identical
			// hash input (impossible unless names contain NUL) or a real
			// sha256 prefix collision get here. Salt with the position in
			// the sorted group, which is deterministic and distinct.
			n, salted = limit, true
		}
		cand := make(map[string][]Key)
		for _, group := range pending {
			slices.SortFunc(group, compareKeys)
			for i, k := range group {
				salt := ""
				if salted {
					salt = strconv.Itoa(level) + "." + strconv.Itoa(i)
				}
				name := hashed(full[k], k, maxLen, n, salt)
				cand[name] = append(cand[name], k)
			}
		}
		// Candidates are distinct map keys, so handing one out cannot
		// affect another candidate of the same level.
		pending = pending[:0]
		for name, ks := range cand {
			if len(ks) == 1 && !taken[name] {
				out[ks[0]] = name
				taken[name] = true
				continue
			}
			pending = append(pending, ks)
		}
	}
	return out, nil
}

func compareKeys(a, b Key) int {
	if c := cmp.Compare(a.Server, b.Server); c != 0 {
		return c
	}
	return cmp.Compare(a.Tool, b.Tool)
}

// hashed returns name cut to fit maxLen together with "_" and n hex digits of
// the key's hash. name must already be sanitized (hence ASCII, so cutting
// bytes cuts characters).
func hashed(name string, k Key, maxLen, n int, salt string) string {
	h := sha256.New()
	h.Write([]byte(k.Server))
	h.Write([]byte{0})
	h.Write([]byte(k.Tool))
	if salt != "" {
		h.Write([]byte{0})
		h.Write([]byte(salt))
	}
	sum := hex.EncodeToString(h.Sum(nil))[:n]
	if keep := maxLen - 1 - n; len(name) > keep {
		name = name[:keep]
	}
	return name + "_" + sum
}

// Sanitize replaces every character outside [a-zA-Z0-9_-] with '_', one '_'
// per character (not per byte), and returns "_" for the empty string, so the
// result is always a non-empty valid name fragment. Invalid UTF-8 bytes are
// replaced one by one.
func Sanitize(s string) string {
	if s == "" {
		return "_"
	}
	if Valid(s, len(s)) {
		return s // the common case; no allocation
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if validChar(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Valid reports whether name is an acceptable public name: 1 to maxLength
// characters from [a-zA-Z0-9_-]. A maxLength <= 0 means DefaultMaxLength.
func Valid(name string, maxLength int) bool {
	if maxLength <= 0 {
		maxLength = DefaultMaxLength
	}
	if len(name) == 0 || len(name) > maxLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !validChar(rune(name[i])) {
			return false
		}
	}
	return true
}

func validChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

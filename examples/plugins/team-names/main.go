// Command team-names is an mcphost name-mapping plugin: every tool's public
// name becomes <team>_<server>_<tool>, with the team from the plugin's
// config, so that tools of several teams' hosts can share one agent without
// clashing. Build it with:
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o team-names.wasm .
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/mcphost/mcphost/pdk"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/pdk/mapnames"
)

const version = "1.0.0"

func init() {
	pdk.Describe("team-names", version)
	mapnames.Handle(mapNames)
}

// main never runs: the plugin is a WASI reactor, driven by its exports.
func main() {}

const (
	defaultMaxLength = 64 // what mcphost uses when the request says 0
	hashLen          = 8  // hex digits of the suffix that keeps shortened names apart
	// minMaxLength is mcphost's own lower bound; it leaves room for a few
	// characters of the name, "_", the hash and a "-<n>" counter.
	minMaxLength = 16
)

func mapNames(req *abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
	team, ok := pdk.Config("team")
	if !ok {
		return nil, errors.New("config team is not set")
	}
	maxLen := req.Constraints.MaxLength
	if maxLen == 0 {
		maxLen = defaultMaxLength
	}
	if maxLen < minMaxLength {
		return nil, fmt.Errorf("constraints: max_length %d is below %d, too short for a shortened name with its hash", maxLen, minMaxLength)
	}
	var pattern *regexp.Regexp
	if req.Constraints.Pattern != "" {
		var err error
		if pattern, err = regexp.Compile(req.Constraints.Pattern); err != nil {
			return nil, fmt.Errorf("constraints: bad pattern %q: %v", req.Constraints.Pattern, err)
		}
	}

	n := len(req.Tools)
	base := make([]string, n) // sanitized, full length
	names := make([]string, n)
	for i, k := range req.Tools {
		base[i] = sanitize(team + "_" + k.Server + "_" + k.Tool)
		names[i] = base[i]
		if len(names[i]) > maxLen {
			names[i] = withSuffix(base[i], hash(team, k), maxLen)
		}
	}

	// Sanitizing can make different tools look alike ("a.b" and "a_b"):
	// every name that is not unique gets the hash of its own identity, so
	// no colliding tool keeps the plain name at the expense of another.
	count := map[string]int{}
	for _, s := range names {
		count[s]++
	}
	for i, k := range req.Tools {
		if count[names[i]] > 1 {
			names[i] = withSuffix(base[i], hash(team, k), maxLen)
		}
	}
	// What is left: a hashed name equal to another tool's plain one, a
	// hash collision, or the same tool listed twice. Number them, in order.
	used := map[string]bool{}
	for i, k := range req.Tools {
		s := names[i]
		for j := 2; used[s]; j++ {
			s = withSuffix(base[i], hash(team, k)+"-"+strconv.Itoa(j), maxLen)
		}
		used[s] = true
		names[i] = s
	}

	if pattern != nil {
		for i, s := range names {
			if !pattern.MatchString(s) {
				return nil, fmt.Errorf("name %q for %s:%s does not match the pattern %q", s, req.Tools[i].Server, req.Tools[i].Tool, req.Constraints.Pattern)
			}
		}
	}
	return &abi.MapNamesResponse{Names: names}, nil
}

// sanitize replaces every byte outside [a-zA-Z0-9_-] with '_' (bytes, not
// runes: a multi-byte character becomes several '_', which the hash keeps
// apart from look-alikes).
func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// hash is a short digest of a tool's identity before sanitizing, so that
// tools whose names sanitize alike still get different suffixes.
func hash(team string, k abi.NameKey) string {
	sum := sha256.Sum256([]byte(team + "\x00" + k.Server + "\x00" + k.Tool))
	return hex.EncodeToString(sum[:])[:hashLen]
}

// withSuffix returns base cut so that "_"+suffix fits in maxLen, then the
// suffix. The suffix is ASCII and base is sanitized, so cutting bytes is safe.
func withSuffix(base, suffix string, maxLen int) string {
	keep := maxLen - 1 - len(suffix)
	if keep < 0 {
		keep = 0
	}
	if len(base) > keep {
		base = base[:keep]
	}
	return base + "_" + suffix
}

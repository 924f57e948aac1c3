package providers

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// nameRule is what a provider accepts as a tool name.
type nameRule struct {
	max   int
	first func(r rune) bool // the first character
	rest  func(r rune) bool // every other character
}

func alnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

var (
	// OpenAI (both APIs) and Anthropic: ^[a-zA-Z0-9_-]{1,64}$.
	plainRule = nameRule{
		max:   64,
		first: func(r rune) bool { return alnum(r) || r == '_' || r == '-' },
		rest:  func(r rune) bool { return alnum(r) || r == '_' || r == '-' },
	}
	// Gemini: a letter or underscore first, then letters, digits and
	// _ . : -, at most 64 characters (FunctionDeclaration.name in the
	// Gemini API reference; Vertex AI allows 128, the lower limit is kept).
	geminiRule = nameRule{
		max:   64,
		first: func(r rune) bool { return alnum(r) && (r < '0' || r > '9') || r == '_' },
		rest:  func(r rune) bool { return alnum(r) || r == '_' || r == '.' || r == ':' || r == '-' },
	}
)

func ruleFor(f Format) *nameRule {
	switch f {
	case OpenAI, OpenAIResponses, Anthropic:
		return &plainRule
	case Gemini:
		return &geminiRule
	}
	return nil // MCP: the public names as they are
}

func (r *nameRule) valid(name string) bool {
	if name == "" || len(name) > r.max { // bytes >= runes: a valid name is ASCII
		return false
	}
	for i, c := range name {
		if i == 0 && !r.first(c) || i > 0 && !r.rest(c) {
			return false
		}
	}
	return true
}

// hashDigits is the length of the hash suffix of a changed name: 32 bits
// keep accidental collisions improbable, and a collision is resolved anyway.
const hashDigits = 8

// fit turns a public name the provider refuses into one it accepts: every
// refused character becomes '_', a refused first character gets a '_' in
// front, and the name is cut to leave room for "_" and a hash of the public
// name (and of salt, when salt > 0). The hash is added to every changed
// name, so that "a.b" and "a:b" do not both become "a_b", and the result
// depends only on the public name.
func (r *nameRule) fit(public string, salt int) string {
	var b strings.Builder
	for i, c := range public {
		if i == 0 && !r.first(c) {
			b.WriteByte('_') // stands in front of a character allowed later, or for it
			if r.rest(c) {
				b.WriteRune(c)
			}
			continue
		}
		if r.rest(c) {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	h := sha256.New()
	h.Write([]byte(public))
	if salt > 0 {
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(salt)))
	}
	sum := hex.EncodeToString(h.Sum(nil))[:hashDigits]
	name := b.String() // ASCII only: cutting bytes cuts characters
	if keep := r.max - 1 - len(sum); len(name) > keep {
		name = name[:keep]
	}
	return name + "_" + sum
}

// maxSalt bounds the search for a free name; only a flood of crafted
// public names gets anywhere near it.
const maxSalt = 1000

// assignNames gives every public name a name the provider accepts: the
// public name itself when it fits, otherwise fit's form. Names that fit are
// placed first, then the changed ones in sorted order, each taking the
// first salt that gives a free name: the result depends only on the set of
// public names.
func assignNames(f Format, public []string) (map[string]string, error) {
	out := make(map[string]string, len(public))
	rule := ruleFor(f)
	taken := make(map[string]bool, len(public))
	var changed []string
	for _, p := range public {
		if p == "" {
			return nil, fmt.Errorf("providers: a tool has an empty name")
		}
		if _, dup := out[p]; dup {
			return nil, fmt.Errorf("providers: two tools are named %q; public names must be unique", cut(p, 128))
		}
		out[p] = ""
		if rule == nil || rule.valid(p) {
			out[p] = p
			taken[p] = true
		} else {
			changed = append(changed, p)
		}
	}
	slices.Sort(changed)
	for _, p := range changed {
		for salt := 0; ; salt++ {
			if salt > maxSalt {
				return nil, fmt.Errorf("providers: no free %s name for tool %q", f, cut(p, 128))
			}
			if n := rule.fit(p, salt); !taken[n] {
				out[p] = n
				taken[n] = true
				break
			}
		}
	}
	return out, nil
}

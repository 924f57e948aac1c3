// Package suggest finds what a person probably meant when a name they typed
// is unknown: a tool, a server or an argument. Names are compared by edit
// distance, ignoring case, so that a typo or a dropped prefix still finds
// the name ("nosuh" finds "nosuch", "ECHO" finds "echo").
package suggest

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxCompare bounds the runes of a name that are compared: names come from
// servers and command lines, and the distance costs the product of two
// lengths.
const maxCompare = 128

// maxTypos caps the distance of a suggestion: a long public name shares
// its mcp__server__ prefix with many others, and a third of its length
// would offer names that differ in the whole tool part.
const maxTypos = 4

// maxSuggestions is how many names one message offers at most.
const maxSuggestions = 3

// Closest returns the candidates nearest to name, best first: those at the
// smallest edit distance, when that distance is small enough to be a typo
// (see typos). An exact match (case
// ignored) counts as distance 0 and wins. At most three are returned, each
// once.
func Closest(name string, candidates []string) []string {
	cands := make([]candidate, len(candidates))
	for i, c := range candidates {
		cands[i] = candidate{name, c, c}
	}
	return closest(cands)
}

// candidate is one comparison: query against key; offer is what to
// suggest when key is among the closest.
type candidate struct{ query, key, offer string }

func closest(cands []candidate) []string {
	best := -1
	var out []string
	for _, c := range cands {
		if c.query == "" || c.key == "" {
			continue
		}
		q := fold(c.query)
		limit := typos(q)
		if best >= 0 {
			limit = min(limit, best)
		}
		d := Distance(q, fold(c.key), limit+1)
		switch {
		case d > limit:
		case best < 0 || d < best:
			best, out = d, append(out[:0], c.offer)
		case !slices.Contains(out, c.offer):
			out = append(out, c.offer)
		}
	}
	slices.Sort(out)
	if len(out) > maxSuggestions {
		out = out[:maxSuggestions]
	}
	return out
}

// typos is how far a name may be from what was meant: a third of its
// length, at least 1 but at most maxTypos; 0 (exact, case ignored) for a
// name of one letter, to which every other short name would be "close".
func typos(s string) int {
	if utf8.RuneCountInString(s) < 2 {
		return 0
	}
	return max(1, min(maxTypos, utf8.RuneCountInString(s)/3))
}

func fold(s string) string {
	s = strings.ToLower(s)
	if utf8.RuneCountInString(s) > maxCompare {
		s = string([]rune(s)[:maxCompare])
	}
	return s
}

// Distance is the edit distance between a and b in runes: insertions,
// deletions, substitutions and swaps of two neighbours each cost 1
// ("shwo" is 1 from "show"). It stops early and returns bound once the
// distance is known to be at least bound, so that comparing against many
// long names stays cheap.
func Distance(a, b string, bound int) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > maxCompare {
		ra = ra[:maxCompare]
	}
	if len(rb) > maxCompare {
		rb = rb[:maxCompare]
	}
	if diff := len(ra) - len(rb); diff >= bound || -diff >= bound {
		return bound
	}
	// Three rows of the table: the one before the previous is what a swap
	// looks back to.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	prevMin := 0
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			rowMin = min(rowMin, cur[j])
		}
		// Every later cell comes from this row or, by a swap, from the
		// previous one plus 1: when both are at the bound, so is the end.
		if rowMin >= bound && prevMin >= bound-1 {
			return bound
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	return min(prev[len(rb)], bound)
}

// Phrase is "did you mean "a"?" or "did you mean "a" or "b"?" for the
// names, or "" when there are none. Names are quoted with %q, so a name
// with a control character cannot act on a terminal.
func Phrase(names []string) string {
	if len(names) == 0 {
		return ""
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	if len(quoted) == 1 {
		return "did you mean " + quoted[0] + "?"
	}
	return "did you mean " + strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1] + "?"
}

// Near returns the candidates that name is most likely a mistyping of,
// best first, at most three: those equal to it once case, "_" and "-" are
// ignored ("maxResults" and "max_results"), else those at the smallest
// edit distance within nearTypos of it. It is stricter than Closest: a
// name near another may be refused outright (an argument a tool does not
// declare), so only a slip of a key or two counts, and never for a name of
// one or two letters.
func Near(name string, candidates []string) []string {
	q := squash(name)
	if q == "" {
		return nil
	}
	limit := nearTypos(q)
	best := -1
	var out []string
	for _, c := range candidates {
		k := squash(c)
		if k == "" {
			continue
		}
		bound := limit
		if best >= 0 {
			bound = min(bound, best)
		}
		d := 0
		if k != q {
			d = Distance(q, k, bound+1)
		}
		switch {
		case d > bound:
		case best < 0 || d < best:
			best, out = d, append(out[:0], c)
		case !slices.Contains(out, c):
			out = append(out, c)
		}
	}
	slices.Sort(out)
	if len(out) > maxSuggestions {
		out = out[:maxSuggestions]
	}
	return out
}

// nearTypos is how many edits Near forgives: none below three letters
// (every short name is a step from another), one up to five, two from six.
func nearTypos(s string) int {
	switch n := utf8.RuneCountInString(s); {
	case n < 3:
		return 0
	case n < 6:
		return 1
	}
	return 2
}

// squash folds a name for Near: lower case, without "_" and "-", cut to
// maxCompare runes.
func squash(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '_' || r == '-' {
			return -1
		}
		return r
	}, strings.ToLower(s))
	return fold(s)
}

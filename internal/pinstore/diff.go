package pinstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/internal/termtext"
)

// maxDiffCells bounds the work of one line diff (lines before × lines
// after): beyond it the whole old text is shown removed and the new one
// added, which is still a true, if longer, account of the change.
const maxDiffCells = 4 << 20

// Diff is a readable account of how a tool changed from approved to
// current, field by field: a line diff of the description and of the
// pretty-printed schemas, every line escaped for a terminal (the text is
// the server's). approved nil: the tool is new, or was pinned by its
// fingerprint alone.
func Diff(approved *Definition, current Definition) string {
	var b strings.Builder
	if approved == nil {
		approved = &Definition{Name: current.Name}
	}
	field := func(name, before, after string) {
		if before == after {
			return
		}
		fmt.Fprintf(&b, "  %s:\n", name)
		for _, l := range lineDiff(splitLines(before), splitLines(after)) {
			fmt.Fprintf(&b, "    %c %s\n", l.op, termtext.Line(l.text))
		}
	}
	field("title", approved.Title, current.Title)
	field("description", approved.Description, current.Description)
	field("inputSchema", pretty(approved.InputSchema), pretty(current.InputSchema))
	field("outputSchema", pretty(approved.OutputSchema), pretty(current.OutputSchema))
	field("annotations", pretty(approved.Annotations), pretty(current.Annotations))
	return b.String()
}

// pretty is raw indented, keys sorted, so that a diff shows what changed
// and not how it was written.
func pretty(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	c, err := canonicalJSON(raw)
	if err != nil {
		return string(raw)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, c, "", "  "); err != nil {
		return string(c)
	}
	return out.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

type diffLine struct {
	op   byte // ' ', '-' or '+'
	text string
}

// lineDiff is a longest-common-subsequence diff of two lists of lines.
func lineDiff(a, b []string) []diffLine {
	if len(a)*len(b) > maxDiffCells {
		out := make([]diffLine, 0, len(a)+len(b))
		for _, l := range a {
			out = append(out, diffLine{'-', l})
		}
		for _, l := range b {
			out = append(out, diffLine{'+', l})
		}
		return out
	}
	// lcs[i][j] is the length of the LCS of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []diffLine
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, diffLine{' ', a[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, diffLine{'-', a[i]})
			i++
		default:
			out = append(out, diffLine{'+', b[j]})
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, diffLine{'-', a[i]})
	}
	for ; j < len(b); j++ {
		out = append(out, diffLine{'+', b[j]})
	}
	return out
}

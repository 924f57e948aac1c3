// Package stderrtail picks, from the last lines a failed server wrote to
// stderr, the ones that say what failed, so that every command shows the
// same few lines instead of the last one.
//
// The last line is often a launcher's footer: npx ends with "A complete log
// of this run can be found in ...", after the "npm error 404 Not Found"
// that says why. Python ends a traceback with the exception, Node prints
// "Error: Cannot find module" above a stack. Telling keeps the lines that
// name an error and drops the known footers and stack frames; when no line
// names an error it keeps the last lines, which is the best guess left.
//
// The result is bounded (MaxLines lines, MaxLineBytes bytes each), and it is
// server text: callers escape it for the terminal (termtext.Line).
package stderrtail

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

const (
	// MaxLines is the most lines Telling returns.
	MaxLines = 8
	// MaxLineBytes is the longest line Telling returns, in bytes; a
	// longer one is cut at a rune boundary and ends with "…".
	MaxLineBytes = 300
)

// noise are lines that never say what failed: launchers' footers and
// pointers to logs, and stack frames (the error line above them does).
var noise = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`a complete log of this run can be found`,
	`note that you can also install from a`, `tarball, folder, http url, or git url`,
	`^(npm (error|err!)|npm (warn|notice))\s*(404)?\s*$`, // npm's empty continuation lines
	`^npm (warn|notice)\b`,
	`^\s+at\s`,          // Node and Java stack frames
	`^\s+File "`,        // Python stack frames
	`^\s*\^+\s*$`,       // a caret under the failing column
	`^\s*node:internal`, // Node's own frames
	`^\s*$`,
}, "|"))

// telling are words that mark a line as saying what failed.
var telling = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`error`, `err!`, `\bE[A-Z]{3,}\b`, `fatal`, `panic`, `exception`, `traceback`,
	`not found`, `no such`, `cannot`, `can't`, `could not`, `unable to`,
	`failed`, `denied`, `refused`, `invalid`, `missing`, `not set`,
	`\b40[0-9]\b`, `\b5[0-9][0-9]\b`, `unauthori[sz]ed`, `forbidden`,
}, "|"))

// strong marks the one line that says most: what was not found or what
// was raised.
var strong = regexp.MustCompile(`(?i)not found|no such|cannot find|enoent|permission denied|\b(error|exception|panic|fatal):`)

// Telling returns the lines of tail (a server's last stderr lines, oldest
// first) that say what failed, in their order, at most MaxLines (the last
// ones) and each at most MaxLineBytes. With no such line it returns the last
// lines that are not noise; nil for an empty tail.
func Telling(tail []string) []string {
	var kept, rest []string
	for _, line := range tail {
		if noise.MatchString(line) {
			continue
		}
		rest = append(rest, line)
		if telling.MatchString(line) {
			kept = append(kept, line)
		}
	}
	if len(kept) == 0 {
		kept = rest
	}
	if len(kept) > MaxLines {
		kept = kept[len(kept)-MaxLines:]
	}
	out := make([]string, 0, len(kept))
	for _, line := range kept {
		out = append(out, cut(strings.TrimRight(line, " \t\r")))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Key returns the one line of tail that says most about what failed (to
// quote in an error): the first telling line that says what was not found
// or raised, else the last telling line; "" for an empty tail.
func Key(tail []string) string {
	lines := Telling(tail)
	for _, line := range lines {
		if strong.MatchString(line) {
			return line
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return lines[len(lines)-1]
}

// Below returns the lines to show below an error: Telling(tail) without
// the line that errText already quotes (as Go's %q quotes it): the cause is
// said once.
func Below(tail []string, errText string) []string {
	var out []string
	for _, line := range Telling(tail) {
		if !strings.Contains(errText, strconv.Quote(line)) {
			out = append(out, line)
		}
	}
	return out
}

func cut(s string) string {
	if len(s) <= MaxLineBytes {
		return s
	}
	n := MaxLineBytes - len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

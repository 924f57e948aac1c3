// Package tomlguard refuses TOML text whose shape would make a recursive
// parser exhaust the stack, before the parser sees it.
//
// The TOML parser recurses once per part of a dotted key (a.b.c, in a
// [table.header] or before an "=") and once per level of arrays and inline
// tables. Go cannot recover from a stack overflow: a file of a few
// megabytes of "a.a.a..." would end the whole process instead of being an
// error. Check reads the text once, skipping strings and comments as the
// parser does, and refuses such a file.
package tomlguard

import (
	"bytes"
	"errors"
	"fmt"
)

// MaxKeyParts bounds the dot-separated parts of one key or table header.
// Real files use a handful.
const MaxKeyParts = 100

// The errors an *Error wraps.
var (
	// ErrTooDeep: arrays and inline tables nest deeper than allowed.
	ErrTooDeep = errors.New("nested too deep")
	// ErrLongKey: a key or table header has more than MaxKeyParts parts.
	ErrLongKey = errors.New("key of too many parts")
)

// Error says why and where Check refused a text. Its message holds no text
// of the file (a line may hold a secret).
type Error struct {
	Line, Column int   // 1-based; the column counts bytes
	Err          error // ErrTooDeep or ErrLongKey
	Limit        int   // the bound that was passed
}

func (e *Error) Error() string {
	if errors.Is(e.Err, ErrTooDeep) {
		return fmt.Sprintf("nested more than %d levels deep (arrays, inline tables and the dotted keys inside them)", e.Limit)
	}
	return fmt.Sprintf("a key or table header of more than %d dot-separated parts", e.Limit)
}

// Unwrap returns ErrTooDeep or ErrLongKey.
func (e *Error) Unwrap() error { return e.Err }

// Position is where the limit was crossed, as the TOML parser's errors give
// theirs.
func (e *Error) Position() (line, column int) { return e.Line, e.Column }

// Check returns an *Error when a key or table header of data has more than
// MaxKeyParts dot-separated parts, or when its arrays and inline tables nest
// deeper than maxDepth levels. A level is one array or inline table plus
// the parts of the key it is the value of: a.b = {c.d = [1]} is 3 + 3 = 6
// levels deep. Text that is not TOML is never an error here (the parser
// reports it); the answer is then only about the part the parser would
// read before it failed, which is all that matters. It reads each byte a
// bounded number of times.
func Check(data []byte, maxDepth int) error {
	return check(data, maxDepth, MaxKeyParts)
}

// check is Check with the bound of key parts as a parameter (the tests use
// a small one).
func check(data []byte, maxDepth, maxParts int) error {
	var (
		costs   []int // what each open array or inline table added to depth
		depth   int
		dots    int // '.' outside strings since the last delimiter
		keyCost int // parts of the key just before "=", 0 if none
	)
	fail := func(at int, err error, limit int) error {
		before := data[:at]
		line := bytes.Count(before, []byte("\n")) + 1
		col := at - (bytes.LastIndexByte(before, '\n') + 1) + 1
		return &Error{Line: line, Column: col, Err: err, Limit: limit}
	}
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"', '\'':
			i = stringEnd(data, i)
		case '#':
			if n := bytes.IndexByte(data[i:], '\n'); n >= 0 {
				i += n - 1 // the newline ends the segment below
			} else {
				i = len(data)
			}
		case '.':
			// Outside strings a dot separates key parts, or sits in a
			// number or a date (one per value): counting every dot of a
			// segment bounds the parts of any key in it.
			dots++
			if dots >= maxParts {
				return fail(i, ErrLongKey, maxParts)
			}
		case '=':
			keyCost, dots = dots+1, 0
		case '[', '{':
			// A table header's bracket counts as an array here: it is
			// closed on the same line, so it never adds up.
			cost := 1 + keyCost
			depth += cost
			if depth > maxDepth {
				return fail(i, ErrTooDeep, maxDepth)
			}
			costs = append(costs, cost)
			keyCost, dots = 0, 0
		case ']', '}':
			if n := len(costs); n > 0 {
				depth -= costs[n-1]
				costs = costs[:n-1]
			}
			keyCost, dots = 0, 0
		case ',', '\n':
			keyCost, dots = 0, 0
		}
	}
	return nil
}

// stringEnd returns the index of the last byte of the string that starts
// with the quote at data[i]: basic (double quotes, with backslash escapes)
// or literal (single quotes), on one line (it ends at the line's end at the
// latest) or multi-line (three quotes, and up to two more quotes before the
// closing three belong to the content); len(data) when it does not end.
// This is where the parser ends every string it accepts.
func stringEnd(data []byte, i int) int {
	q := data[i]
	basic := q == '"'
	if bytes.HasPrefix(data[i:], []byte{q, q, q}) {
		for j := i + 3; j < len(data); j++ {
			switch {
			case basic && data[j] == '\\':
				j++
			case data[j] == q && bytes.HasPrefix(data[j:], []byte{q, q, q}):
				end := j + 2
				for k := 0; k < 2 && end+1 < len(data) && data[end+1] == q; k++ {
					end++
				}
				return end
			}
		}
		return len(data)
	}
	for j := i + 1; j < len(data); j++ {
		switch {
		case basic && data[j] == '\\':
			j++
		case data[j] == q:
			return j
		case data[j] == '\n':
			return j - 1 // the newline ends the segment in Check
		}
	}
	return len(data)
}

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/termtext"
)

// maxAnswerBytes bounds what is read of a confirmation answer.
const maxAnswerBytes = 4096

// errNoTerminal explains a confirmation that could not be asked.
var errNoTerminal = errors.New("no terminal to ask on: pass --yes to approve such calls")

// confirm asks the person at the terminal to approve a call that a policy
// answered with "confirm". --yes approves without asking; without a terminal
// the call is denied, saying why.
func (a *app) confirm(ctx context.Context, req host.ConfirmRequest) (bool, error) {
	if a.yes {
		a.log.Info("confirmed by --yes", "server", req.Server, "tool", req.Tool, "stage", req.Stage)
		return true, nil
	}
	if !a.isTerminal(a.stdin) || !a.isTerminal(a.stderr) {
		return false, errNoTerminal
	}
	a.termMu.Lock()
	defer a.termMu.Unlock()
	// Every part is one escaped line: a line break in a tool name or a
	// policy's reason must not add a line of its own to the question.
	fmt.Fprintf(a.stderr, "\n%s asks for confirmation", termtext.Line(req.Stage))
	if req.Reason != "" {
		fmt.Fprintf(a.stderr, ": %s", termtext.Line(req.Reason))
	}
	fmt.Fprintf(a.stderr, "\n  call %s:%s", termtext.Line(req.Server), termtext.Line(req.Tool))
	if b, err := json.Marshal(req.Arguments); err == nil {
		fmt.Fprintf(a.stderr, " with %s", oneLine(string(b), 200))
	}
	fmt.Fprint(a.stderr, "\n  allow? [y/N] ")
	// An answer is a word: read one bounded line, or stop at Ctrl-C (the
	// signal handler keeps the process; the read would wait on).
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(io.LimitReader(a.stdin, maxAnswerBytes)).ReadString('\n')
		answer <- line
	}()
	var line string
	select {
	case line = <-answer:
	case <-ctx.Done():
		fmt.Fprintln(a.stderr)
		return false, ctx.Err()
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

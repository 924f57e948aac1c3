package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcphost/mcphost/host"
)

// errNoTerminal explains a confirmation that could not be asked.
var errNoTerminal = errors.New("no terminal to ask on: pass --yes to approve such calls")

// confirm asks the person at the terminal to approve a call that a policy
// answered with "confirm". --yes approves without asking; without a terminal
// the call is denied, saying why.
func (a *app) confirm(_ context.Context, req host.ConfirmRequest) (bool, error) {
	if a.yes {
		a.log.Info("confirmed by --yes", "server", req.Server, "tool", req.Tool, "stage", req.Stage)
		return true, nil
	}
	if !a.isTerminal(a.stdin) || !a.isTerminal(a.stderr) {
		return false, errNoTerminal
	}
	a.termMu.Lock()
	defer a.termMu.Unlock()
	fmt.Fprintf(a.stderr, "\n%s asks for confirmation", req.Stage)
	if req.Reason != "" {
		fmt.Fprintf(a.stderr, ": %s", req.Reason)
	}
	fmt.Fprintf(a.stderr, "\n  call %s:%s", req.Server, req.Tool)
	if b, err := json.Marshal(req.Arguments); err == nil {
		fmt.Fprintf(a.stderr, " with %s", oneLine(string(b), 200))
	}
	fmt.Fprint(a.stderr, "\n  allow? [y/N] ")
	line, _ := bufio.NewReader(a.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

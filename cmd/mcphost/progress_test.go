package main

import (
	"strings"
	"testing"
)

const eraseLine = "\r\033[K"

// On a terminal the start of the servers is shown on one line of stderr,
// each server marked as its connect ends, and the line is erased before
// anything else is printed.
func TestStartProgressOnTerminal(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.terminal = true
	cfg := e.configFile(map[string]any{"ts": testServer(t), "bad": brokenServer(t)})
	r := e.must(exitFailure, "--config", cfg, "tools")

	wantContains(t, "stderr", r.stderr, eraseLine+"⠋ connecting to 2 servers… bad  ts")
	last := strings.LastIndex(r.stderr, "connecting to")
	end := strings.LastIndex(r.stderr, eraseLine)
	if last < 0 || end < last {
		t.Fatalf("the line is not erased after its last frame:\n%q", r.stderr)
	}
	// The last frame has both servers' outcome, whichever ended first.
	frame := r.stderr[strings.LastIndex(r.stderr[:end], eraseLine)+len(eraseLine) : end]
	wantContains(t, "last frame", frame, "bad ✗", "ts ✓")
	// What follows the erase is the command's own output (the warning
	// about bad), on a clean line.
	rest := r.stderr[end+len(eraseLine):]
	if !strings.HasPrefix(rest, "warning: server bad") || strings.Contains(rest, "\r") {
		t.Errorf("after the erase: %q", rest)
	}
	wantNotContains(t, "stdout", r.stdout, "\r", "\033", "connecting")
	wantContains(t, "stdout", r.stdout, "mcp__ts__echo")
}

// Never with --json, never off a terminal, never for commands that do not
// ask for it.
func TestStartProgressOnlyForPeople(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	cfg := e.configFile(map[string]any{"ts": testServer(t)})
	for _, args := range [][]string{
		{"tools"}, {"servers"}, {"call", "ts:echo", "text=x"}, {"tools", "show", "ts:echo"},
	} {
		r := e.must(exitOK, append([]string{"--config", cfg}, args...)...)
		wantNotContains(t, strings.Join(args, " ")+" off a terminal", r.stderr, "connecting", "\r")
	}
	e.terminal = true
	for _, args := range [][]string{
		{"tools", "--json"}, {"servers", "--json"}, {"call", "ts:echo", "text=x", "--json"}, {"tools", "show", "ts:echo", "--json"},
	} {
		r := e.must(exitOK, append([]string{"--config", cfg}, args...)...)
		// (call still erases its own progress line, which a call that
		// reports none leaves empty.)
		wantNotContains(t, strings.Join(args, " ")+" on a terminal", r.stderr, "connecting", "⠋")
	}
	for _, args := range [][]string{{"servers"}, {"call", "ts:echo", "text=x"}, {"tools", "show", "ts:echo"}} {
		r := e.must(exitOK, append([]string{"--config", cfg}, args...)...)
		wantContains(t, strings.Join(args, " ")+" on a terminal", r.stderr, "connecting to ts…", "ts… ✓")
		if !strings.HasSuffix(r.stderr, eraseLine) {
			t.Errorf("%v: the line is not erased at the end: %q", args, r.stderr)
		}
		wantNotContains(t, strings.Join(args, " ")+" stdout", r.stdout, "\r", "connecting")
	}
}

// No server to start, no line.
func TestStartProgressWithoutServers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.terminal = true
	r := e.must(exitOK, "tools")
	if r.stderr != "" {
		t.Errorf("stderr %q", r.stderr)
	}
}

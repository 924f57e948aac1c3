// Command agent is a small tool-using agent on top of mcphost: it starts
// the MCP servers of the mcphost configuration, offers their tools to a
// model API (OpenAI, Anthropic or Gemini, chosen by environment
// variables), runs the tool calls the model asks for through the host, and
// prints the model's final answer.
//
//	MCPHOST_AGENT_PROVIDER=anthropic MCPHOST_AGENT_MODEL=claude-sonnet-4-5 \
//	MCPHOST_AGENT_API_KEY=... go run ./examples/agent "What is in notes.txt?"
//
// See README.md beside this file for every setting.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/providers"
	"github.com/mcphost/mcphost/internal/termtext"
)

// maxCallsPerTurn bounds the tool calls run for one reply of the model;
// the others are answered with an error.
const maxCallsPerTurn = 32

// closeTimeout bounds stopping the MCP servers at the end.
const closeTimeout = 10 * time.Second

// keyVariable holds the model API's key.
const keyVariable = "MCPHOST_AGENT_API_KEY"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], environment(), config.LoadOptions{}, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, termtext.Line(err.Error()))
		os.Exit(1)
	}
}

// environment reads the process environment, taking the key out of it
// first: stdio servers inherit this process's environment, and must not
// see the key.
func environment() func(string) string {
	key := os.Getenv(keyVariable)
	os.Unsetenv(keyVariable)
	return func(name string) string {
		if name == keyVariable {
			return key
		}
		return os.Getenv(name)
	}
}

// run is the whole program; env and load stand for the process's
// environment and configuration files, so that tests run it in-process.
func run(ctx context.Context, args []string, env func(string) string, load config.LoadOptions,
	stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("agent", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&load.ConfigFile, "config", load.ConfigFile, "an mcphost configuration `file` to read beside the usual ones")
	verbose := fs.Bool("v", false, "log the host's warnings and each tool call's outcome")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: agent [-config FILE] [-v] PROMPT...\n\nSettings come from MCPHOST_AGENT_* variables: see README.md.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	prompt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if prompt == "" {
		fs.Usage()
		return errors.New("agent: no prompt given")
	}
	s, err := readSettings(env)
	if err != nil {
		return err
	}

	cfg, err := config.Load(load)
	if err != nil {
		return err
	}
	level := hclog.Error
	if *verbose {
		level = hclog.Warn
	}
	h, err := host.New(cfg,
		host.WithLogger(hclog.New(&hclog.LoggerOptions{Name: "mcphost", Output: stderr, Level: level})),
		host.WithConnectAttempts(1)) // a program that runs once does not wait for reconnects
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
		defer cancel()
		h.Close(cctx)
	}()
	if err := h.Start(ctx); err != nil {
		return err
	}
	for _, st := range h.Status() {
		if st.Enabled && st.State != host.StateReady {
			fmt.Fprintf(stderr, "agent: server %s is %s: %s\n", termtext.Line(st.ID), st.State, termtext.Line(st.Error))
		}
	}

	ts, err := providers.Convert(s.format, h.Tools(), nil)
	if err != nil {
		return err
	}
	if *verbose {
		for _, w := range ts.Warnings {
			fmt.Fprintln(stderr, "agent: warning:", termtext.Line(w.String()))
		}
	}
	fmt.Fprintf(stderr, "agent: %d tools offered to %s\n", len(ts.Tools), s.format)
	conv := newConversation(s, ts.Tools, prompt)
	answer, err := loop(ctx, s, h, ts, conv, stderr, *verbose)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, termtext.Block(answer))
	return nil
}

// loop asks the model until it answers without tool calls, running the
// calls of every reply through the host.
func loop(ctx context.Context, s *settings, h *host.Host, ts *providers.Toolset, conv conversation,
	stderr io.Writer, verbose bool) (string, error) {
	for turn := 1; turn <= s.maxTurns; turn++ {
		r, err := conv.send(ctx)
		if err != nil {
			return "", err
		}
		if len(r.calls) == 0 {
			return r.text, nil
		}
		results := make([]any, 0, len(r.calls))
		for i, raw := range r.calls {
			call, err := ts.ParseCall(raw)
			var res *mcp.CallToolResult
			switch {
			case err != nil:
			case i >= maxCallsPerTurn:
				err = fmt.Errorf("agent: more than %d tool calls at once; call fewer", maxCallsPerTurn)
			default:
				fmt.Fprintf(stderr, "agent: calling %s\n", termtext.Line(call.Tool))
				res, err = h.CallTool(ctx, call.Tool, call.Arguments)
			}
			switch {
			case err != nil:
				fmt.Fprintf(stderr, "agent: %s\n", termtext.Line(err.Error()))
			case verbose && res.IsError:
				fmt.Fprintf(stderr, "agent: %s failed\n", termtext.Line(call.Tool))
			}
			results = append(results, ts.Result(call, res, err))
		}
		conv.answer(results)
	}
	return "", fmt.Errorf("agent: no final answer after %d model requests; raise MCPHOST_AGENT_MAX_TURNS", s.maxTurns)
}

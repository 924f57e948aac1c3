// Command agent is a small tool-using agent on top of mcphost: it starts
// the MCP servers of the mcphost configuration, offers their tools to a
// model API (OpenAI, Anthropic or Gemini, chosen by environment
// variables), runs the tool calls the model asks for through the host, and
// prints the model's final answer.
//
//	MCPHOST_AGENT_PROVIDER=anthropic MCPHOST_AGENT_MODEL=claude-sonnet-4-5 \
//	MCPHOST_AGENT_API_KEY_FILE=~/.config/anthropic.key go run ./examples/agent "What is in notes.txt?"
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
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/chain"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/host/providers"
	"github.com/mcphost/mcphost/internal/redact"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/plugins"
)

// maxCallsPerTurn bounds the tool calls run for one reply of the model;
// the others are answered with an error.
const maxCallsPerTurn = 32

// closeTimeout bounds stopping the MCP servers at the end.
const closeTimeout = 10 * time.Second

// keyVariable holds the model API's key; keyFileVariable names a file
// that holds it.
const (
	keyVariable     = "MCPHOST_AGENT_API_KEY"
	keyFileVariable = "MCPHOST_AGENT_API_KEY_FILE"
)

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
// first: stdio servers inherit the environment this process has when they
// start (os.Environ), which then no longer holds the key. The environment
// the process started with stays readable to processes of the same user
// (/proc/PID/environ on Linux), stdio servers included: the key file
// (keyFileVariable) keeps the key out of it.
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
//
// What it prints, and the error it returns, pass through scrub: the
// secrets of the configuration (server URLs' query values and passwords,
// headers, env values) and the API key are replaced by ****, whatever
// prints them (an HTTP error quoting a URL, the host's log, a server).
func run(ctx context.Context, args []string, env func(string) string, load config.LoadOptions,
	stdout, stderr io.Writer) (err error) {
	rOut, rErr := redact.NewWriter(stdout), redact.NewWriter(stderr)
	stdout, stderr = rOut, rErr
	scrub := func(text string) string { return text }
	defer func() {
		if err != nil {
			err = errors.New(scrub(err.Error()))
		}
	}()
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
	secrets := cfg.SecretValues()
	if s.apiKey != "" {
		secrets = append([]string{s.apiKey}, secrets...)
	}
	rOut.SetSecrets(secrets)
	rErr.SetSecrets(secrets)
	scrub = newScrubber(secrets)
	level := hclog.Error
	if *verbose {
		level = hclog.Warn
	}
	logger := hclog.New(&hclog.LoggerOptions{Name: "mcphost", Output: stderr, Level: level})
	// chain.NewHost carries out the configuration's policy, plugins and
	// result truncation on every call, and leaves the tools the policy
	// always denies out of h.Tools, so the model is not offered them.
	h, err := chain.NewHost(ctx, cfg, chain.Options{Plugins: plugins.Options{Logger: logger}},
		host.WithLogger(logger),
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
			fmt.Fprintf(stderr, "agent: server %s is %s: %s\n", termtext.Line(st.ID), st.State, termtext.Line(scrub(st.Error)))
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
	answer, err := loop(ctx, s, h, ts, conv, stderr, *verbose, scrub)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, termtext.Block(answer))
	return nil
}

// loop asks the model until it answers without tool calls, running the
// calls of every reply through the host. The text of a failure goes to
// the model with the secrets scrubbed out.
func loop(ctx context.Context, s *settings, h *host.Host, ts *providers.Toolset, conv conversation,
	stderr io.Writer, verbose bool, scrub func(string) string) (string, error) {
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
				err = errors.New(scrub(err.Error()))
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

// urlPattern finds URLs in text.
var urlPattern = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`)

// newScrubber returns a function that takes secrets out of text: each of
// the values given, then the password and the query values of every URL
// (config.RedactURL), which catches those too short to be listed.
func newScrubber(secrets []string) func(string) string {
	var pairs []string
	for _, v := range secrets {
		if v != "" {
			pairs = append(pairs, v, redact.Placeholder)
		}
	}
	r := strings.NewReplacer(pairs...)
	return func(text string) string {
		return urlPattern.ReplaceAllStringFunc(r.Replace(text), config.RedactURL)
	}
}

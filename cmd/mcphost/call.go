package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/user"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/safefile"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/pdk/abi"
)

func (a *app) callCommand() *cobra.Command {
	var (
		argsFlag string
		timeout  time.Duration
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "call NAME",
		Short: "Call a tool by its public name (or server:tool)",
		Long: `Call a tool by its public name (see "mcphost tools") or as server:tool.

Arguments are a JSON object: --args '{"text":"hi"}', --args @file.json, or
--args - to read them from standard input. The text content of the result is
printed; other content is summarised (use --json for the whole result).
Progress notifications are shown on standard error when it is a terminal.

Exit status: 0 success, 1 the tool reported an error, the call failed or
the name is unknown while a server did not start, 2 usage or configuration
error (bad --args, unknown tool).`,
		Example: `  mcphost call mcp__everything__echo --args '{"message":"hi"}'
  mcphost call everything:echo --args @args.json
  echo '{"message":"hi"}' | mcphost call everything:echo --args -
  mcphost call github:search_issues --args '{"q":"mcp"}' --timeout 2m --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, posArgs []string) error {
			args, err := readArgs(cmd.Context(), argsFlag, a.stdin)
			if err != nil {
				if cmd.Context().Err() != nil {
					return &exitError{code: exitInterrupted, err: err}
				}
				return &exitError{code: exitUsage, err: err}
			}
			name := posArgs[0]
			h, err := a.startHostFor(cmd.Context(), name)
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			if _, ok := h.Resolve(name); !ok {
				a.warnUnavailable(h)
				// The tool may be one of a server that did not start: that
				// is a failure (exit 1), not a usage error.
				if failed := failedServers(h.Status()); failed != nil {
					return &exitError{code: exitFailure, err: fmt.Errorf("no tool %q while %v (see the warnings above)", name, failed)}
				}
				return usageError("no tool %q: use a public name or server:tool from \"mcphost tools\"", name)
			}
			opts := []host.CallOption{host.WithCaller(cliCaller())}
			if timeout > 0 {
				opts = append(opts, host.WithTimeout(timeout))
			}
			// Progress redraws one line with \r and an escape sequence:
			// only on a terminal, never into a file or a pipe.
			showProgress := a.isTerminal(a.stderr)
			callDone := false // under termMu: late progress must not redraw
			if showProgress {
				opts = append(opts, host.WithProgress(func(p host.Progress) {
					a.termMu.Lock()
					defer a.termMu.Unlock()
					if !callDone {
						// Own terminal control, raw; the line itself is
						// server text, escaped by progressLine.
						fmt.Fprintf(termtext.RawOf(a.stderr), "\r\033[K%s", progressLine(p))
					}
				}))
			}
			res, err := h.CallTool(cmd.Context(), name, args, opts...)
			if showProgress {
				a.termMu.Lock()
				callDone = true
				fmt.Fprint(termtext.RawOf(a.stderr), "\r\033[K")
				a.termMu.Unlock()
			}
			if err != nil {
				if cmd.Context().Err() != nil {
					// Ctrl-C: the cause is the interruption, said plainly.
					return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted while calling %s", termtext.Line(name))}
				}
				return err
			}
			if asJSON {
				if err := printJSON(a.stdout, res); err != nil {
					return err
				}
			} else {
				printResult(a.stdout, res)
			}
			if res.IsError {
				return &exitError{code: exitFailure, err: fmt.Errorf("tool %s reported an error (its message is on standard output)", name)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&argsFlag, "args", "", "arguments as a JSON object, @FILE, or - for stdin")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "deadline for this call (default: the server's request_timeout)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole result as JSON")
	return cmd
}

// progressLine is one line of progress: server, percentage or count, message.
func progressLine(p host.Progress) string {
	line := fmt.Sprintf("%s: %g", p.Server, p.Progress)
	if p.Total > 0 {
		line = fmt.Sprintf("%s: %3.0f%%", p.Server, 100*p.Progress/p.Total)
	}
	if p.Message != "" {
		line += " " + p.Message
	}
	return oneLine(line, 100)
}

// startHostFor starts what a call of the tool name needs: the one server
// the name belongs to when that is known without listing, else every
// server. "server:tool" names its server, and so does "mcp__server__tool"
// under the default naming scheme (server ids cannot contain "__").
func (a *app) startHostFor(ctx context.Context, name string) (*host.Host, error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, err
	}
	srv := ""
	if s, _, ok := strings.Cut(name, ":"); ok {
		srv = s
	} else if rest, ok := strings.CutPrefix(name, "mcp__"); ok && cfg.Names.Scheme == config.SchemePrefixed {
		srv, _, _ = strings.Cut(rest, "__")
	}
	for _, s := range cfg.Servers {
		if s.ID == srv {
			cfg.Servers = []*config.Server{s}
			break
		}
	}
	return a.startHostWith(ctx, cfg)
}

// readStdin reads stdin whole (at most maxArgsBytes) unless ctx ends first.
// The read itself cannot be cancelled: it is left to end with the process.
func readStdin(ctx context.Context, stdin io.Reader) ([]byte, error) {
	if stdin == nil {
		return nil, nil
	}
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := safefile.ReadAll(stdin, "standard input", maxArgsBytes)
		done <- read{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		return nil, errors.New("interrupted while reading standard input")
	}
}

// maxArgsBytes caps the arguments read from a file or standard input.
const maxArgsBytes = 64 << 20

// readArgs parses the --args value: inline JSON, @file (a regular file) or -
// (stdin), each at most maxArgsBytes. Reading stdin ends when ctx does
// (Ctrl-C while a terminal waits for input).
func readArgs(ctx context.Context, v string, stdin io.Reader) (map[string]any, error) {
	var data []byte
	switch {
	case v == "":
		return map[string]any{}, nil
	case v == "-":
		b, err := readStdin(ctx, stdin)
		if err != nil {
			return nil, fmt.Errorf("--args -: %w", err)
		}
		data = b
	case strings.HasPrefix(v, "@"):
		b, err := safefile.ReadFile(v[1:], maxArgsBytes)
		if err != nil {
			return nil, fmt.Errorf("--args %s: %w (write @FILE with the path of a JSON file)", v, err)
		}
		data = b
	default:
		data = []byte(v)
	}
	src := "--args"
	if v == "-" || strings.HasPrefix(v, "@") {
		src = "--args " + v
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty: write a JSON object like '{\"key\":\"value\"}' (or {} for none)", src)
	}
	var parsed any
	if err := json.Unmarshal(data, &parsed); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: not valid JSON at byte %d: %v (write a JSON object like '{\"key\":\"value\"}')", src, se.Offset, err)
		}
		return nil, fmt.Errorf("%s: not valid JSON: %v (write a JSON object like '{\"key\":\"value\"}')", src, err)
	}
	args, ok := parsed.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: must be a JSON object like '{\"key\":\"value\"}', not %s", src, jsonKind(parsed))
	}
	return args, nil
}

// jsonKind names the JSON type of a decoded value, for error messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// printResult prints the text content and one line for every other content.
func printResult(w io.Writer, res *mcp.CallToolResult) {
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(w, c.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %d bytes]\n", c.MIMEType, len(c.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(w, "[resource link %s", c.URI)
			if c.Name != "" {
				fmt.Fprintf(w, " %q", c.Name)
			}
			fmt.Fprintln(w, "]")
		case *mcp.EmbeddedResource:
			printEmbedded(w, c.Resource)
		default:
			fmt.Fprintf(w, "[%T content]\n", c)
		}
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil {
			fmt.Fprintf(w, "[structured content: %s]\n", oneLine(string(b), 200))
		}
	}
}

func printEmbedded(w io.Writer, r *mcp.ResourceContents) {
	if r == nil {
		fmt.Fprintln(w, "[embedded resource]")
		return
	}
	if r.Text != "" {
		fmt.Fprintf(w, "[embedded resource %s]\n%s\n", r.URI, r.Text)
		return
	}
	fmt.Fprintf(w, "[embedded resource %s %s, %d bytes]\n", r.URI, r.MIMEType, len(r.Blob))
}

// printContents prints what resources/read returned.
func printContents(w io.Writer, contents []*mcp.ResourceContents) {
	for _, c := range contents {
		if c == nil {
			continue
		}
		if c.Blob != nil {
			fmt.Fprintf(w, "[%s %s, %d bytes, base64: %s]\n", c.URI, c.MIMEType, len(c.Blob), oneLine(base64.StdEncoding.EncodeToString(c.Blob), 60))
			continue
		}
		fmt.Fprintln(w, c.Text)
	}
}

func printContentItem(a *app, c mcp.Content) {
	printResult(a.stdout, &mcp.CallToolResult{Content: []mcp.Content{c}})
}

// cliCaller tells policies that a person on the command line is calling.
func cliCaller() abi.Caller {
	c := abi.Caller{Kind: "cli"}
	if u, err := user.Current(); err == nil {
		c.ID = u.Username
	}
	return c
}

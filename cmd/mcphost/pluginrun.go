package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// "plugin test": one call of one hook.

// testReport is `plugin test --json`.
type testReport struct {
	Plugin string   `json:"plugin"`
	Path   string   `json:"path"`
	Hook   abi.Hook `json:"hook"`
	OK     bool     `json:"ok"`
	// Request is the request sent, when --tool built it.
	Request json.RawMessage `json:"request,omitempty"`
	// Output is the output when it is JSON; OutputText when it is not.
	Output     json.RawMessage `json:"output,omitempty"`
	OutputText *string         `json:"output_text,omitempty"`
	// Valid: the output decodes as the hook's answer (plugins.DecodeOutput);
	// Invalid says why not.
	Valid             bool             `json:"valid"`
	Invalid           string           `json:"invalid,omitempty"`
	Summary           string           `json:"summary,omitempty"`
	DurationNS        int64            `json:"duration_ns"`
	Duration          string           `json:"duration"`
	MemoryBytes       uint64           `json:"memory_bytes"`
	KernelMemoryBytes uint64           `json:"kernel_memory_bytes"`
	FreshInstance     bool             `json:"fresh_instance"`
	Limits            reportLimits     `json:"limits"`
	Error             *testReportError `json:"error,omitempty"`
	// allowed_hosts and allow_private, when set.
	reportHTTP
}

type reportLimits struct {
	TimeoutMS      int64 `json:"timeout_ms"`
	MemoryMB       int   `json:"memory_mb"`
	MaxOutputBytes int64 `json:"max_output_bytes"`
}

func newReportLimits(p *plugins.Plugin) reportLimits {
	l := p.Limits()
	return reportLimits{TimeoutMS: l.Timeout.Milliseconds(), MemoryMB: l.MemoryMB, MaxOutputBytes: l.MaxOutputBytes}
}

// reportHTTP is what --allowed-host and --allow-private set.
type reportHTTP struct {
	AllowedHosts []string `json:"allowed_hosts,omitempty"`
	AllowPrivate bool     `json:"allow_private,omitempty"`
}

func newReportHTTP(spec *plugins.Spec) reportHTTP {
	return reportHTTP{AllowedHosts: spec.AllowedHosts, AllowPrivate: spec.AllowPrivate}
}

// print writes the "http" line of a report, when there is something to say.
func (h reportHTTP) print(w io.Writer) {
	if len(h.AllowedHosts) == 0 && !h.AllowPrivate {
		return
	}
	hosts := "none"
	if len(h.AllowedHosts) > 0 {
		hosts = strings.Join(h.AllowedHosts, ", ")
	}
	line := "allowed_hosts " + hosts
	if h.AllowPrivate {
		line += "; allow_private"
	}
	fmt.Fprintf(w, "http\t%s\n", line)
}

type testReportError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (a *app) pluginTestCommand() *cobra.Command {
	var (
		f        callFlags
		showCred bool
		sample   string
	)
	cmd := &cobra.Command{
		Use:   "test FILE [--hook HOOK] (--input FILE.json|- | --tool NAME [--args JSON]) [flags]\n  mcphost plugin test --sample HOOK",
		Short: "Call one hook of a plugin once and show the output, duration and memory",
		Long: `Load a plugin as a plugins entry would be (with the --config, --secret,
--allowed-host, --allow-private and limits given here), call one hook once on
a fresh instance with --input, and print the output (pretty JSON), whether it
is a valid answer for the hook (as the host checks it: a policy decision of
allow, deny or confirm, a CallToolResult...), how long the call took and the
memory the instance used (the guest's linear memory and Extism's kernel
memory, where input and output live). The plugin's log lines (mcphost_log)
are shown on standard error at info level and above, or as --log-level says.
--hook may be left out when the plugin has only one hook.

--tool NAME builds the request instead of --input: a policy request for a
call of the tool NAME with --args (a JSON object, @FILE or -), on --server
(default "test"), as --name (default mcp__SERVER__TOOL), with the tool's
annotations (--annotations JSON, or --read-only, --destructive,
--idempotent, --open-world; none given means what MCP says of a tool without
annotations: destructive and open-world) and a caller (--caller ID,
--caller-kind, --scope; none given: no caller). With --result (the tool's
CallToolResult) it builds a transform_result request instead. A policy's
decision is then printed as "decision" and "reason" lines; --json prints the
report with the request and the raw answer.

--sample HOOK prints a request of that hook with every field filled, to
read the fields off or to edit into an --input file; no FILE is needed.

The input is the hook's request (pdk/abi/ABI.md), for example:
  policy            {"server":"github","tool":"delete_repo","name":"github_delete_repo","arguments":{"repo":"x"},"annotations":{"destructiveHint":true}}
  filter_tools      {"server":"github","tools":[{"name":"create_issue"},{"name":"delete_repo"}]}
  map_names         {"tools":[{"server":"github","tool":"create_issue"}],"constraints":{"max_length":64,"pattern":"^[a-zA-Z0-9_-]{1,64}$"}}
  transform_result  {"server":"fs","tool":"read","name":"fs_read","result":{"content":[{"type":"text","text":"hi"}]}}
  auth              {"server":"corp","url":"https://mcp.corp.example/mcp"}

Here --config sets the plugin's config entries (KEY=VALUE), not a config
file. --secret NAME=ENVVAR (or NAME='${ENVVAR}') is one entry of secrets:
its value comes from the environment, never from the command line, and is
never printed. --allowed-host is one entry of
allowed_hosts (a host-name glob, no scheme, port or path) and
--allow-private is allow_private: without --allowed-host an auth plugin's
mcphost_http reaches no host, and without --allow-private no loopback or
private address and no plain http:// URL, as in the host. Only a plugin with
an auth hook may have allowed hosts. An auth answer's header values are
shown redacted unless --show-credentials is given.

Exit status: 0 the call returned a valid answer; 1 the plugin did not load,
the call failed (the error names its kind: error, trap, timeout, memory,
exit, output, input) or the output is not a valid answer; 2 usage error.`,
		Example: `  mcphost plugin test deny-destructive.wasm --tool delete_file --args '{"path":"/x"}'
  mcphost plugin test deny-destructive.wasm --tool read_file --server fs --read-only --json
  mcphost plugin test caller-rules.wasm --tool delete_pod --server k8s --caller token:sre --scope sre
  mcphost plugin test --sample policy > request.json
  mcphost plugin test deny-destructive.wasm --hook policy --input request.json
  mcphost plugin test deny-destructive.wasm --hook policy --config allow='github:delete_*' --input - < request.json
  mcphost plugin test header-auth.wasm --hook auth --secret token=GITHUB_TOKEN \
      --input '{"server":"gh","url":"https://api.example.com/mcp"}'
  mcphost plugin test corp-auth.wasm --hook auth --secret client_secret='${CORP_SECRET}' \
      --allowed-host login.corp.example --input '{"server":"corp","url":"https://mcp.corp.example/mcp"}'
  mcphost plugin test corp-auth.wasm --hook auth --allowed-host 127.0.0.1 --allow-private \
      --input '{"server":"corp","url":"http://127.0.0.1:8080/mcp"}'
  mcphost plugin test slow.wasm --hook policy --input request.json --timeout-ms 500 --memory-mb 128 --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("sample") {
				if len(args) > 0 {
					return fmt.Errorf("--sample takes no plugin file: it prints a request without calling a plugin (drop %q)", args[0])
				}
				return nil
			}
			if len(args) != 1 {
				return fmt.Errorf("accepts 1 arg(s), received %d: give the plugin's .wasm file (or --sample HOOK for a sample request)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("sample") {
				return a.printSample(sample)
			}
			pc, err := a.prepare(cmd.Context(), cmd.CommandPath(), args[0], &f)
			if err != nil {
				return err
			}
			log := a.log
			if !cmd.Flags().Changed("log-level") {
				// A plugin author wants the plugin's own info lines.
				log = hclog.New(&hclog.LoggerOptions{Name: "mcphost", Output: a.stderr, Level: hclog.Info})
			}
			ctx := cmd.Context()
			p, err := a.open(ctx, pc, a.pluginOptions(log))
			if err != nil {
				return err
			}
			defer p.Close(context.Background())
			tr := plugins.Try(ctx, p, pc.hook, pc.input)
			rep := testReport{
				Plugin:     pluginName(p),
				Path:       pc.path,
				Hook:       pc.hook,
				Limits:     newReportLimits(p),
				reportHTTP: newReportHTTP(pc.spec),
			}
			if pc.built {
				rep.Request = json.RawMessage(pc.input)
			}
			if res := tr.Result; res != nil {
				rep.DurationNS = res.Duration.Nanoseconds()
				rep.Duration = formatDuration(res.Duration)
				rep.MemoryBytes, rep.KernelMemoryBytes = res.MemoryBytes, res.KernelMemoryBytes
				rep.FreshInstance = res.FreshInstance
			}
			var failure error
			if tr.Err != nil {
				rep.Error = &testReportError{Kind: plugins.KindOf(tr.Err).String(), Message: tr.Err.Error()}
				failure = pluginFailure(tr.Err)
			} else {
				out := tr.Result.Output
				if tr.Invalid != nil {
					rep.Invalid = tr.Invalid.Error()
					failure = &exitError{code: exitFailure, err: fmt.Errorf("plugin %s: hook %s: the output is not a valid %s answer: %v (the host would treat the call as failed; see pdk/abi/ABI.md)", rep.Plugin, pc.hook, pc.hook, tr.Invalid)}
				} else {
					rep.Valid = true
					rep.Summary = summarize(tr.Answer, showCred)
				}
				if pc.hook == abi.HookAuth && !showCred {
					out = redactAuth(out)
				}
				if json.Valid(out) {
					rep.Output = json.RawMessage(out)
				} else {
					s := displayText(out)
					rep.OutputText = &s
				}
			}
			rep.OK = failure == nil
			if f.asJSON {
				if err := printJSON(a.stdout, rep); err != nil {
					return err
				}
			} else if err := printTest(a.stdout, rep); err != nil {
				return err
			}
			return failure
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&showCred, "show-credentials", false, "print an auth answer's header values instead of redacting them")
	cmd.Flags().StringVar(&sample, "sample", "", "print a sample request of this hook ("+hookNames()+") with every field filled, and call nothing")
	return cmd
}

func printTest(w io.Writer, rep testReport) error {
	// A request built from flags asks "what does the policy say": the
	// decision in words, not the JSON, and not again in the summary.
	decided := rep.Request != nil && rep.Hook == abi.HookPolicy && rep.Valid
	switch {
	case decided:
		if err := printDecision(w, rep.Output); err != nil {
			return err
		}
	case rep.Output != nil:
		var buf bytes.Buffer
		if err := json.Indent(&buf, rep.Output, "", "  "); err != nil {
			buf.Reset()
			buf.Write(rep.Output)
		}
		fmt.Fprintf(w, "%s\n\n", buf.Bytes())
	case rep.OutputText != nil:
		fmt.Fprintf(w, "output (not JSON): %s\n\n", *rep.OutputText)
	}
	tw := table(w)
	fmt.Fprintf(tw, "plugin\t%s (%s)\n", rep.Plugin, rep.Path)
	fmt.Fprintf(tw, "hook\t%s\n", rep.Hook)
	if rep.Request != nil {
		fmt.Fprintf(tw, "request\t%s\n", oneLine(string(rep.Request), 200))
	}
	switch {
	case rep.Error != nil:
		fmt.Fprintf(tw, "error\t%s: %s\n", rep.Error.Kind, rep.Error.Message)
	case decided:
		fmt.Fprintf(tw, "valid\tyes: a policy decision\n")
	case rep.Valid:
		fmt.Fprintf(tw, "valid\tyes: %s\n", rep.Summary)
	default:
		fmt.Fprintf(tw, "valid\tno: %s\n", rep.Invalid)
	}
	if rep.Duration != "" {
		fmt.Fprintf(tw, "duration\t%s\n", rep.Duration)
		fresh := "a fresh instance"
		if !rep.FreshInstance {
			fresh = "a reused instance"
		}
		fmt.Fprintf(tw, "memory\t%s guest, %s kernel (%s)\n", formatBytes(rep.MemoryBytes), formatBytes(rep.KernelMemoryBytes), fresh)
	}
	fmt.Fprintf(tw, "limits\ttimeout_ms %d, memory_mb %d, max_output_bytes %d\n", rep.Limits.TimeoutMS, rep.Limits.MemoryMB, rep.Limits.MaxOutputBytes)
	rep.reportHTTP.print(tw)
	return tw.Flush()
}

// printDecision writes a policy decision as lines a person reads: the
// decision, its reason and the arguments of a rewrite.
func printDecision(w io.Writer, output []byte) error {
	var d abi.PolicyDecision
	if err := json.Unmarshal(output, &d); err != nil {
		return fmt.Errorf("plugin test: reading the decision: %w", err)
	}
	tw := table(w)
	fmt.Fprintf(tw, "decision\t%s\n", termtext.Line(string(d.Decision)))
	if d.Reason != "" {
		fmt.Fprintf(tw, "reason\t%s\n", termtext.Line(d.Reason))
	}
	if d.Arguments != nil {
		b, err := json.Marshal(d.Arguments)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "arguments\t%s (rewritten)\n", oneLine(string(b), 200))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// summarize says in a few words what a decoded answer means.
func summarize(v any, showCred bool) string {
	switch r := v.(type) {
	case *abi.PolicyDecision:
		s := "decision " + string(r.Decision)
		if r.Reason != "" {
			s += " (" + oneLine(r.Reason, 120) + ")"
		}
		if r.Arguments != nil {
			s += ", arguments rewritten"
		}
		return s
	case *abi.FilterToolsResponse:
		if len(r.Tools) == 0 {
			return "keeps no tool"
		}
		return fmt.Sprintf("keeps %d tool(s): %s", len(r.Tools), oneLine(strings.Join(r.Tools, ", "), 120))
	case *abi.MapNamesResponse:
		return fmt.Sprintf("%d name(s): %s", len(r.Names), oneLine(strings.Join(r.Names, ", "), 120))
	case *abi.TransformResultResponse:
		return fmt.Sprintf("a CallToolResult of %d bytes", len(r.Result))
	case *abi.AuthResponse:
		names := make([]string, 0, len(r.Headers))
		for k := range r.Headers {
			names = append(names, k)
		}
		sort.Strings(names)
		s := fmt.Sprintf("%d header(s)", len(names))
		if len(names) > 0 {
			s += ": " + strings.Join(names, ", ")
		}
		if !showCred && len(names) > 0 {
			s += " (values redacted)"
		}
		if r.ExpiresIn > 0 {
			s += fmt.Sprintf(", expires in %ds", r.ExpiresIn)
		}
		return s
	}
	return "a valid answer"
}

// redactAuth replaces the header values of an auth answer: they are
// credentials.
func redactAuth(out []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(out, &m) != nil {
		return out
	}
	var headers map[string]json.RawMessage
	if json.Unmarshal(m["headers"], &headers) != nil || headers == nil {
		return out
	}
	for k, v := range headers {
		var s string
		n := len(v)
		if json.Unmarshal(v, &s) == nil {
			n = len(s)
		}
		headers[k], _ = json.Marshal(fmt.Sprintf("[redacted: %d bytes]", n))
	}
	m["headers"], _ = json.Marshal(headers)
	b, err := json.Marshal(m)
	if err != nil {
		return out
	}
	return b
}

// displayText is output that is not JSON, fit for a terminal: bounded and
// quoted (control characters escaped).
func displayText(b []byte) string {
	more := ""
	if len(b) > maxOutputShown {
		b, more = b[:maxOutputShown], fmt.Sprintf(" (first %d of %d bytes)", maxOutputShown, len(b))
	}
	if !utf8.Valid(b) {
		return fmt.Sprintf("%q%s", b, more)
	}
	return strconv.Quote(string(b)) + more
}

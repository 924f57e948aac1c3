package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/argcheck"
	"github.com/mcphost/mcphost/internal/termtext"
)

func (a *app) toolsShowCommand() *cobra.Command {
	var (
		asJSON bool
		server adhocFlags
	)
	cmd := &cobra.Command{
		Use:   "show NAME [-- CMD ARGS...]",
		Short: "Print one tool: its names, description, annotations, arguments and schemas",
		Long: `Print one tool by its public name or server:tool: the public name, the
server and the name it gives the tool, the description, the annotations
(readOnlyHint, destructiveHint...), a usage line for "mcphost call", the
arguments, and the input and output schemas in full. With --json, the tool
as "mcphost tools --json" lists it.
` + adhocHelp,
		Example: `  mcphost tools show mcp__everything__get-sum
  mcphost tools show github:search_issues --json
  mcphost tools show echo -- npx -y @modelcontextprotocol/server-everything`,
		Args: func(cmd *cobra.Command, args []string) error {
			if own := beforeDash(cmd, args); len(own) != 1 {
				return fmt.Errorf("accepts 1 arg(s) (the tool's name) before --, received %d", len(own))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			name := server.take(cmd, args)[0]
			h, tool, err := a.startForTool(withStartProgress(cmd.Context(), !asJSON), &server, name)
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			if asJSON {
				return printJSON(a.stdout, tool)
			}
			return printTool(a.stdout, tool, server.usageSuffix())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the tool as JSON")
	server.register(cmd.Flags())
	return cmd
}

// printTool prints one tool for a person. Server text is escaped (the
// writer does it) and every line of it is indented, so that a line break
// in a description cannot pass for a line of mcphost's own.
func printTool(w io.Writer, t host.Tool, adhocUsage string) error {
	tw := table(w)
	fmt.Fprintf(tw, "name\t%s\n", termtext.Line(t.Name))
	fmt.Fprintf(tw, "server\t%s\n", termtext.Line(t.Server))
	fmt.Fprintf(tw, "tool\t%s\n", termtext.Line(t.Tool))
	if t.Title != "" {
		fmt.Fprintf(tw, "title\t%s\n", termtext.Line(t.Title))
	}
	if ann := annotations(t.Annotations); ann != "" {
		fmt.Fprintf(tw, "annotations\t%s\n", ann)
	}
	if t.Denied != "" {
		fmt.Fprintf(tw, "DENIED\t%s: every call is refused\n", termtext.Line(t.Denied))
	}
	params, _ := argcheck.Params(t.InputSchema)
	fmt.Fprintf(tw, "usage\t%s\n", termtext.Line(usageLine(t.Name, params)+adhocUsage))
	if err := tw.Flush(); err != nil {
		return err
	}
	if t.Description != "" {
		fmt.Fprintf(w, "\ndescription:\n%s\n", indent(termtext.Block(strings.TrimRight(t.Description, "\n"))))
	}
	if len(params) > 0 {
		fmt.Fprintln(w, "\narguments:")
		tw := table(w)
		for _, p := range params {
			req := ""
			if p.Required {
				req = "required"
			}
			cells := []string{"  " + termtext.Line(p.Name), termtext.Line(p.Label), req, oneLine(p.Description, 60)}
			for len(cells) > 1 && cells[len(cells)-1] == "" {
				cells = cells[:len(cells)-1] // no padding at the end of a line
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, s := range []struct {
		title  string
		schema any
	}{{"input schema", t.InputSchema}, {"output schema", t.OutputSchema}} {
		if s.schema == nil {
			continue
		}
		b, err := json.MarshalIndent(s.schema, "", "  ")
		if err != nil {
			return fmt.Errorf("tool %s: %s: %w", termtext.Line(t.Name), s.title, err)
		}
		fmt.Fprintf(w, "\n%s:\n%s\n", s.title, indent(termtext.Block(string(b))))
	}
	return nil
}

// indent puts two spaces before every line of s.
func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// annotations lists the hints a tool sets, by their MCP names.
func annotations(a *mcp.ToolAnnotations) string {
	if a == nil {
		return ""
	}
	var parts []string
	if a.ReadOnlyHint {
		parts = append(parts, "readOnlyHint")
	}
	if a.DestructiveHint != nil {
		parts = append(parts, fmt.Sprintf("destructiveHint=%t", *a.DestructiveHint))
	}
	if a.IdempotentHint {
		parts = append(parts, "idempotentHint")
	}
	if a.OpenWorldHint != nil {
		parts = append(parts, fmt.Sprintf("openWorldHint=%t", *a.OpenWorldHint))
	}
	return strings.Join(parts, ", ")
}

// usageLine is how to call the tool with key=value arguments: the
// required ones, then the others in brackets (a few; "..." for more).
func usageLine(name string, params []argcheck.Param) string {
	parts := []string{"mcphost call " + name}
	optional := 0
	for _, p := range params {
		if !p.Required {
			optional++
			if optional > 4 {
				parts = append(parts, "[...]")
				break
			}
		}
		word := p.Name + "=" + placeholder(p.Label)
		if !p.Required {
			word = "[" + word + "]"
		}
		parts = append(parts, word)
	}
	return strings.Join(parts, " ")
}

// placeholder stands for a value of the label's type: NUMBER, TEXT, JSON.
func placeholder(label string) string {
	switch {
	case label == "string":
		return "TEXT"
	case label == "number" || label == "integer" || label == "boolean":
		return strings.ToUpper(label)
	case label == "object" || strings.HasPrefix(label, "array"):
		return "JSON"
	}
	return "VALUE"
}

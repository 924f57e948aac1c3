package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/argcheck"
	"github.com/mcphost/mcphost/internal/termtext"
)

func (a *app) resourcesCommand() *cobra.Command {
	var (
		asJSON bool
		server string
		adhoc  adhocFlags
	)
	cmd := &cobra.Command{
		Use:   "resources [-- CMD ARGS...]",
		Short: "List resources and resource templates",
		Long:  "List the resources and resource templates of every ready server.\n" + adhocHelp,
		Args:  noArgsBeforeDash,
		RunE: func(cmd *cobra.Command, args []string) error {
			adhoc.take(cmd, args)
			h, server, err := a.startListing(withStartProgress(cmd.Context(), !asJSON), &adhoc, server)
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			if server == "" {
				a.warnUnavailable(h)
			} else if err := serverReady(h, server); err != nil {
				return err
			}
			// Listed at connect, a moment ago: not asked for again.
			res, tmpls := h.ListedResources(server)
			if asJSON {
				if res == nil {
					res = []host.Resource{}
				}
				if tmpls == nil {
					tmpls = []host.ResourceTemplate{}
				}
				return printJSON(a.stdout, map[string]any{"resources": res, "templates": tmpls})
			}
			tw := table(a.stdout)
			fmt.Fprintln(tw, "SERVER\tURI\tNAME\tMIME TYPE")
			for _, r := range res {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Server, termtext.Line(r.URI), oneLine(r.Name, 40), termtext.Line(r.MIMEType))
			}
			for _, t := range tmpls {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Server, termtext.Line(t.URITemplate), oneLine(t.Name, 40)+" (template)", termtext.Line(t.MIMEType))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&server, "server", "", "only this server (an id from \"mcphost mcp list\")")
	adhoc.register(cmd.Flags())
	return cmd
}

func (a *app) readCommand() *cobra.Command {
	var (
		asJSON bool
		server string
	)
	cmd := &cobra.Command{
		Use:   "read URI",
		Short: "Read a resource (the server is found from the listings unless --server is given)",
		Long: `Read a resource by URI. The server is the one whose listing (see
"mcphost resources") has the URI, or whose resource template matches it;
give --server when none does or when several do. Text is printed as it is;
binary content is summarised (use --json for the whole result). The full
result of a truncated call (mcphost://results/ID) is printed as "mcphost
call" prints results; --json prints it as the JSON it was stored as.`,
		Example: `  mcphost read demo://readme
  mcphost read mcphost://results/0123456789abcdef01234567 --json
  mcphost read file:///etc/hosts --server files --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := a.startHost(cmd.Context(), server)
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			res, err := h.ReadResource(cmd.Context(), server, args[0])
			if err != nil {
				a.warnUnavailable(h)
				return lookupError(err, host.ErrUnknownResource)
			}
			if stored, ok := storedResult(args[0], res); ok {
				if asJSON {
					_, err := fmt.Fprintf(termtext.RawOf(a.stdout), "%s\n", res.Contents[0].Text)
					return err
				}
				printResult(a.stdout, stored)
				return nil
			}
			if asJSON {
				return printJSON(a.stdout, res)
			}
			printContents(a.stdout, res.Contents)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole result as JSON (a stored tool result: as it was stored)")
	cmd.Flags().StringVar(&server, "server", "", "the id of the server that has the resource (needed when no listing names it)")
	return cmd
}

func (a *app) promptsCommand() *cobra.Command {
	var (
		asJSON bool
		server string
		adhoc  adhocFlags
	)
	cmd := &cobra.Command{
		Use:   "prompts [-- CMD ARGS...]",
		Short: "List prompts",
		Long:  "List the prompts of every ready server, with their arguments.\n" + adhocHelp,
		Args:  noArgsBeforeDash,
		RunE: func(cmd *cobra.Command, args []string) error {
			adhoc.take(cmd, args)
			h, server, err := a.startListing(withStartProgress(cmd.Context(), !asJSON), &adhoc, server)
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			if server == "" {
				a.warnUnavailable(h)
			}
			prompts, err := h.Prompts(cmd.Context(), server)
			if err != nil {
				if server != "" {
					return err
				}
				fmt.Fprintf(a.stderr, "warning: %v\n", err)
			}
			if asJSON {
				if prompts == nil {
					prompts = []host.Prompt{}
				}
				return printJSON(a.stdout, prompts)
			}
			tw := table(a.stdout)
			fmt.Fprintln(tw, "SERVER:PROMPT\tARGUMENTS\tDESCRIPTION")
			for _, p := range prompts {
				var args []string
				for _, arg := range p.Arguments {
					n := arg.Name
					if arg.Required {
						n += "*"
					}
					args = append(args, n)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", termtext.Line(p.Display), termtext.Line(strings.Join(args, ",")), oneLine(p.Description, 60))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	cmd.Flags().StringVar(&server, "server", "", "only this server (an id from \"mcphost mcp list\")")
	adhoc.register(cmd.Flags())
	return cmd
}

func (a *app) promptCommand() *cobra.Command {
	var (
		asJSON  bool
		noCheck bool
		kv      []string
	)
	cmd := &cobra.Command{
		Use:   "prompt NAME",
		Short: "Get a prompt (NAME or server:NAME) with --arg key=value",
		Long: `Get a prompt from a server and print its messages. NAME is the prompt's name
when only one server has it, else server:NAME (see "mcphost prompts", where
required arguments are marked with *).

The arguments are checked against those the prompt declares before the
server is asked: a missing required argument, or one it does not declare
that is close to one it does ("topc" for "topic") or stands for a missing
one, is reported at once; any other undeclared one is sent, with a warning.
--no-check sends them as they are.`,
		Example: `  mcphost prompt summarize --arg topic='MCP hosts'
  mcphost prompt everything:complex_prompt --arg temperature=0.5 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			pargs := map[string]string{}
			for _, s := range kv {
				k, v, ok := strings.Cut(s, "=")
				if !ok || k == "" {
					return usageError("--arg %q: write key=value", s)
				}
				pargs[k] = v
			}
			h, err := a.startHost(cmd.Context(), "")
			if err != nil {
				return err
			}
			defer a.closeHost(h)
			if !noCheck {
				if err := a.checkPromptArgs(h, args[0], pargs); err != nil {
					return err
				}
			}
			res, err := h.GetPrompt(cmd.Context(), args[0], pargs)
			if err != nil {
				a.warnUnavailable(h)
				return lookupError(err, host.ErrUnknownPrompt)
			}
			if asJSON {
				return printJSON(a.stdout, res)
			}
			if res.Description != "" {
				fmt.Fprintf(a.stdout, "# %s\n", res.Description)
			}
			for _, m := range res.Messages {
				fmt.Fprintf(a.stdout, "[%s]\n", termtext.Line(string(m.Role)))
				printContentItem(a, m.Content)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the whole result as JSON")
	cmd.Flags().StringArrayVar(&kv, "arg", nil, "prompt argument key=value (repeatable)")
	cmd.Flags().BoolVar(&noCheck, "no-check", false, "send the arguments without checking them against those the prompt declares")
	return cmd
}

// checkPromptArgs checks args against the arguments the prompt declares,
// as listed, before the server is asked for it. A prompt that is not
// listed is not checked: the get says what is wrong.
func (a *app) checkPromptArgs(h *host.Host, name string, args map[string]string) error {
	p, ok := h.ListedPrompt(name)
	if !ok {
		return nil
	}
	declared := make([]argcheck.PromptArgument, 0, len(p.Arguments))
	for _, d := range p.Arguments {
		if d != nil {
			declared = append(declared, argcheck.PromptArgument{Name: d.Name, Required: d.Required})
		}
	}
	warnings, err := argcheck.ReviewPrompt(declared, args)
	return a.argsVerdict("prompt", name, "prompts --server "+p.Server, warnings, err)
}

// lookupError makes a name that resolves to nothing a usage error (exit 2).
func lookupError(err, unknown error) error {
	if errors.Is(err, unknown) {
		return &exitError{code: exitUsage, err: err}
	}
	return err
}

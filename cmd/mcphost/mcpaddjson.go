package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/clientconf"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/safefile"
	"github.com/mcphost/mcphost/internal/termtext"
)

// mcpAddJSONCommand is "mcphost mcp add-json": one server given as JSON, in
// any client's shape, converted as "mcp import" converts that client's file.
func (a *app) mcpAddJSONCommand() *cobra.Command {
	var (
		scopeName           string
		replace, skipInputs bool
	)
	cmd := &cobra.Command{
		Use:   "add-json ID JSON",
		Short: "Add a server given as JSON, in any MCP client's shape",
		Long: `Add one server given as a JSON object, as another client writes it: mcphost's
own fields, Claude Desktop / Claude Code / Cursor (command, args, env, type,
url, headers), Windsurf (serverUrl), VS Code (envFile, ${input:ID}), Codex
(its TOML fields as JSON), Gemini CLI (httpUrl, timeout, includeTools), Zed
("command": {"path"}), Goose (cmd, envs, uri) or Codelia. The shape is
recognised by its keys and converted as "mcphost mcp import" converts that
client's file; what is converted and what is left out is printed. A
snippet of a whole file holding one server ({"mcpServers": {...}}) is taken
too. JSON "-" reads it from standard input. Written into a trusted
project's file, it leaves the project untrusted until "mcphost trust".`,
		Example: `  mcphost mcp add-json weather '{"command":"npx","args":["-y","weather-mcp"],"env":{"KEY":"${WEATHER_KEY}"}}'
  mcphost mcp add-json docs '{"httpUrl":"https://docs.example.com/mcp","timeout":30000}' --scope user
  pbpaste | mcphost mcp add-json tools -`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := parseScope(scopeName, false)
			if err != nil {
				return err
			}
			data := []byte(args[1])
			if args[1] == "-" {
				if data, err = safefile.ReadAll(a.stdin, "standard input", config.MaxConfigBytes); err != nil {
					return &exitError{code: exitUsage, err: err}
				}
			}
			env, err := a.importEnv()
			if err != nil {
				return err
			}
			im, shape, err := clientconf.ImportJSON(args[0], data, env)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "recognised: %s\n", shape.Description())
			s := &importedServer{im: *im, from: "JSON", scope: scope, status: statusAdded}
			if s.file, _, err = config.ScopeFile(a.loadOptions(), scope); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			for _, c := range im.Converted {
				fmt.Fprintf(a.stdout, "  converted: %s\n", termtext.Line(c))
			}
			for _, d := range im.Dropped {
				fmt.Fprintf(a.stdout, "  dropped %s: %s\n", termtext.Line(d.Field), termtext.Line(d.Reason))
			}
			if reason, err := config.BlockedEntry(a.loadOptions(), scope, im.Entry); err != nil || reason != "" {
				if err == nil {
					err = errors.New(reason)
				}
				return &exitError{code: exitUsage, err: fmt.Errorf("server %q not added: %w", im.Entry.ID, err)}
			}
			if err := a.checkImported(s, skipInputs, heldSecrets{}); err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("server %q not added: %w", s.im.Entry.ID, err)}
			}
			if err := a.confirmSecretReplace(cmd.Context(), s.replaces); err != nil {
				return err
			}
			answers, err := a.collectInputs(cmd.Context(), []*importedServer{s}, skipInputs)
			if err != nil {
				return err
			}
			if err := answers.store(s, a.secretStoreOf); err != nil {
				return err
			}
			entry := im.Fill(answers.plainFor(s))
			trusted := scope == config.ScopeProject && a.projectTrusted()
			path, err := config.AddServerWith(a.loadOptions(), scope, entry, config.AddOptions{Replace: replace, Untyped: true})
			if errors.Is(err, config.ErrServerExists) {
				return usageError("%v\npass --replace to overwrite it", err)
			}
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "added server %q to %s%s\n", entry.ID, path, scopeNote(scope))
			a.untypedTrustNote(a.stdout, scope, path, entry.ID, trusted, false)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&scopeName, "scope", "s", string(config.ScopeLocal), "local (only you, in this directory), project (.mcphost.yaml, shared) or user (your config file, every project)")
	f.BoolVar(&replace, "replace", false, "replace an existing entry with the same id")
	f.BoolVar(&skipInputs, "skip-inputs", false, "do not ask for VS Code inputs: passwords are stored later with \"mcphost secret set\"")
	return cmd
}

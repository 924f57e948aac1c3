package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/clientconf"
	"github.com/mcphost/mcphost/host/config"
)

// importedServer is one server of an import, with where it goes and what
// became of it.
type importedServer struct {
	im     clientconf.Imported
	from   string // the client file
	kind   clientconf.Kind
	scope  config.Scope
	file   string // the mcphost file it goes to
	status string // add, added, replace, replaced, conflict, duplicate, failed
	err    error
	// replaces are the secret names the import stores a value under that
	// hold one already (the plan says so, and its confirmation allows it);
	// same those that hold the very value to store (nothing to store).
	replaces []string
	same     map[string]bool
	// shadows is the user file whose entry of the same id this one, in the
	// local scope, takes the place of in this directory.
	shadows string
}

// Statuses of an imported server, as --json prints them.
const (
	statusAdd       = "add"       // --dry-run: would be added
	statusAdded     = "added"     //
	statusReplace   = "replace"   // --dry-run with --force: would replace an entry
	statusReplaced  = "replaced"  //
	statusConflict  = "conflict"  // the id is in the target file; not written without --force
	statusDuplicate = "duplicate" // two files of this import give the id to one scope
	statusFailed    = "failed"
)

func (a *app) mcpImportCommand() *cobra.Command {
	var (
		from, scopeName                   string
		dryRun, asJSON, force, skipInputs bool
	)
	cmd := &cobra.Command{
		Use:   "import --from KIND [PATH]",
		Short: "Import the servers another MCP client is configured with",
		Long: `Read the servers another MCP client is configured with and add them, with
the same checks as "mcphost mcp add". KIND is one of:
  ` + strings.Join(clientconf.KindNames(), ", ") + `
PATH defaults to every file of that client that exists (the user's file and
the current directory's). What is printed first is the plan: each server's
id, transport and target, what was converted to mcphost's fields and what
was left out, and why.

Each server goes to the scope it came from: a user file's to your user
file, a project file's to the project's .mcphost.yaml, and Claude Code's
servers for one directory (~/.claude.json) to the local scope; --scope puts
them all in one scope. A server whose id is already in the target file is
reported and left as it is, unless --force replaces it. What an import
writes into a trusted project's file leaves the project untrusted until you
have read the file and run "mcphost trust" again.

A PATH at a project's place (.vscode/mcp.json, .cursor/mcp.json, .mcp.json,
.gemini/settings.json, ...) is that project's file: outside the current
directory it is imported only with --scope. A project's file whose path,
symbolic links resolved, leads outside its project is not read.

VS Code inputs (${input:ID}) are asked for once, on the terminal: a password
is kept as an mcphost secret (see "mcphost secret": the OS keychain, or a
private file where there is none) and the entry refers to it as
${secret:NAME}; any other answer is written into the entry (never into the
shared project file: such a server goes to the project scope only with
--skip-inputs, which writes the input's default). A client secret written in
clear in the client's file is kept the same way. Without a terminal, pass
--skip-inputs: nothing is stored, the entry refers to ${secret:NAME} all the
same, and the server starts once you store it with "mcphost secret set NAME".

The plan shows each command in full; then the import asks for a "y" before
writing (--yes: without asking). --dry-run shows the plan and writes and
stores nothing.`,
		Example: `  mcphost mcp import --from claude-desktop --dry-run
  mcphost mcp import --from cursor --scope user
  mcphost mcp import --from vscode .vscode/mcp.json
  mcphost mcp import --from codex ~/.codex/config.toml --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				return usageError("--from is required: the client to import from (%s)", strings.Join(clientconf.KindNames(), ", "))
			}
			kind, err := clientconf.ParseKind(from)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			var scope config.Scope
			if scopeName != "" {
				if scope, err = parseScope(scopeName, false); err != nil {
					return err
				}
			}
			env, err := a.importEnv()
			if err != nil {
				return err
			}
			srcs, err := importSources(kind, env, args, scope != "")
			if err != nil {
				return err
			}
			var (
				servers []*importedServer
				results []*clientconf.Result
			)
			for _, src := range srcs {
				res, err := clientconf.ImportFile(src.Location, src.Env)
				if err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("%w\nnothing was imported: fix the file, or give the path of another with mcphost mcp import --from %s PATH", err, kind)}
				}
				results = append(results, res)
				for _, im := range res.Servers {
					s := &importedServer{im: im, from: src.Location.Path, kind: kind, scope: scope}
					if s.scope == "" {
						s.scope = targetScope(&s.im)
					}
					servers = append(servers, s)
				}
			}
			if err := a.planImport(servers, force, dryRun, skipInputs); err != nil {
				return err
			}
			// With --json, standard output holds the JSON alone.
			progress := a.stdout
			if asJSON {
				progress = a.stderr
			}
			if !asJSON {
				a.printImportPlan(a.stdout, results, servers, skipInputs)
			}
			if !dryRun {
				if err := a.confirmImport(cmd.Context(), results, servers, asJSON, skipInputs); err != nil {
					return err
				}
				if err := a.writeImport(cmd, progress, servers, force, skipInputs); err != nil {
					return err
				}
			} else if !asJSON {
				fmt.Fprintln(a.stdout, "dry run: nothing written, nothing stored")
			}
			if asJSON {
				if err := printJSON(a.stdout, a.importJSON(results, servers, dryRun)); err != nil {
					return err
				}
			}
			return importOutcome(servers, dryRun)
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "the client to import from: "+strings.Join(clientconf.KindNames(), ", "))
	f.StringVarP(&scopeName, "scope", "s", "", "put every server in this scope: local, project or user (default: the scope each came from)")
	f.BoolVar(&dryRun, "dry-run", false, "show what would be imported; write and store nothing")
	f.BoolVar(&asJSON, "json", false, "print the plan and the result as JSON (secret values masked)")
	f.BoolVar(&force, "force", false, "replace servers whose id is already in the target file")
	f.BoolVar(&skipInputs, "skip-inputs", false, "do not ask for VS Code inputs: passwords are stored later with \"mcphost secret set\", other inputs take their default")
	return cmd
}

// importEnv is what locating and reading client files depends on: the
// command's environment (tests set HOME), the project directory.
func (a *app) importEnv() (clientconf.Env, error) {
	work := a.workDir
	if work == "" {
		wd, err := os.Getwd()
		if err != nil {
			return clientconf.Env{}, fmt.Errorf("the current directory: %w", err)
		}
		work = wd
	}
	work, err := filepath.Abs(work)
	if err != nil {
		return clientconf.Env{}, err
	}
	home := a.getenv("HOME")
	if runtime.GOOS == "windows" && a.getenv("USERPROFILE") != "" {
		home = a.getenv("USERPROFILE")
	}
	if home == "" && a.environ == nil {
		home, _ = os.UserHomeDir()
	}
	return clientconf.Env{GOOS: runtime.GOOS, Home: home, WorkDir: work, Getenv: a.getenv}, nil
}

// importSources is the file given (see clientconf.ImportSourceAt), or the
// client's files that exist; every refusal is a usage error.
func importSources(kind clientconf.Kind, env clientconf.Env, args []string, scopeGiven bool) ([]clientconf.ImportSource, error) {
	if len(args) == 1 {
		src, err := clientconf.ImportSourceAt(kind, env, args[0], scopeGiven)
		if err != nil {
			return nil, &exitError{code: exitUsage, err: err}
		}
		return []clientconf.ImportSource{src}, nil
	}
	srcs, err := clientconf.ImportSources(kind, env)
	if err != nil {
		return nil, &exitError{code: exitUsage, err: err}
	}
	return srcs, nil
}

// importOutcome is the exit status: 2 when nothing could be read into an
// entry, 1 when a server was not written (a conflict, a failure) or, in a
// dry run, would not be, else 0.
func importOutcome(servers []*importedServer, dryRun bool) error {
	var conflicts, failed []string
	for _, s := range servers {
		switch s.status {
		case statusConflict, statusDuplicate:
			conflicts = append(conflicts, s.im.Entry.ID)
		case statusFailed:
			failed = append(failed, s.im.Entry.ID)
		}
	}
	// A dry run exits as the import would: 1 says that it would not
	// write every server.
	switch {
	case len(failed) > 0 && dryRun:
		return &exitError{code: exitFailure, err: fmt.Errorf("would not be imported: %s", strings.Join(failed, ", "))}
	case len(failed) > 0:
		return &exitError{code: exitFailure, err: fmt.Errorf("not imported: %s", strings.Join(failed, ", "))}
	case len(conflicts) > 0 && dryRun:
		return &exitError{code: exitFailure, err: fmt.Errorf("would not be imported, already configured: %s (pass --force to replace them)", strings.Join(conflicts, ", "))}
	case len(conflicts) > 0:
		return &exitError{code: exitFailure, err: fmt.Errorf("already configured, left as they are: %s (pass --force to replace them)", strings.Join(conflicts, ", "))}
	}
	return nil
}

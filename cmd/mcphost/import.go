package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/clientconf"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/safefile"
	"github.com/mcphost/mcphost/internal/termtext"
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
	// replaces are the keychain names the import stores a value under that
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
is kept in the OS keychain and the entry refers to it as ${secret:NAME}; any
other answer is written into the entry (never into the shared project file:
such a server goes to the project scope only with --skip-inputs, which
writes the input's default). A client secret written in clear in the
client's file goes to the keychain the same way. Without a terminal, pass
--skip-inputs and store the passwords later with "mcphost secret set".

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
			srcs, err := importLocations(kind, env, args, scope != "")
			if err != nil {
				return err
			}
			var (
				servers []*importedServer
				results []*clientconf.Result
			)
			for _, src := range srcs {
				res, err := clientconf.ImportFile(src.loc, src.env)
				if err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("%w\nnothing was imported: fix the file, or give the path of another with mcphost mcp import --from %s PATH", err, kind)}
				}
				results = append(results, res)
				for _, im := range res.Servers {
					s := &importedServer{im: im, from: src.loc.Path, kind: kind, scope: scope}
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

// importSource is one client file to read, with the environment it is
// read in: for a project's file, WorkDir is that project's directory
// (what its ${workspaceFolder} and relative paths mean).
type importSource struct {
	loc clientconf.Location
	env clientconf.Env
}

// importLocations is the file given, or the client's files that exist.
// A file given is a project's by its place (.vscode/mcp.json, ...), or when
// it is in the current directory and not one of the user's own files; a
// project's file outside the current directory is refused unless the
// scope was named (scopeGiven): its servers are not this directory's,
// and the user scope runs them everywhere without "mcphost trust".
func importLocations(kind clientconf.Kind, env clientconf.Env, args []string, scopeGiven bool) ([]importSource, error) {
	if len(args) == 1 {
		p := args[0]
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.WorkDir, p)
		}
		p = filepath.Clean(p)
		src := importSource{loc: clientconf.Location{Kind: kind, Scope: clientconf.ScopeUser, Path: p}, env: env}
		if dir, ok := clientconf.ProjectFileDir(kind, env, p); ok {
			if !inDir(env.WorkDir, dir) && !scopeGiven {
				return nil, usageError("%s is the file of the project in %s, not of this directory: nothing was imported.\n"+
					"Run the import in %s (its servers then go to that project's file, which runs them only after \"mcphost trust\"), "+
					"or read its plan (--dry-run) and name the scope with --scope local, project or user", termtext.Line(p), termtext.Line(dir), termtext.Line(dir))
			}
			src.loc.Scope, src.env.WorkDir = clientconf.ScopeProject, dir
		} else if !clientconf.UserFile(env, p) {
			if !inDir(env.WorkDir, p) && !scopeGiven {
				// Neither the user's own file nor this directory's: it
				// may be anyone's, and the user scope runs it everywhere
				// without "mcphost trust".
				return nil, usageError("%s is neither one of your clients' own files nor in this directory: nothing was imported.\n"+
					"Read its plan (--dry-run) and name the scope with --scope local, project or user", termtext.Line(p))
			}
			if inDir(env.WorkDir, p) {
				src.loc.Scope = clientconf.ScopeProject
			}
		}
		return []importSource{src}, nil
	}
	var (
		found  []importSource
		looked []string
	)
	for _, loc := range clientconf.Locations(kind, env) {
		looked = append(looked, loc.Path)
		if _, err := os.Stat(loc.Path); err == nil {
			found = append(found, importSource{loc: loc, env: env})
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, usageError("%s: %v", loc.Path, err)
		}
	}
	if len(found) == 0 {
		return nil, usageError("no %s configuration found (looked for %s): give the file's path", kind, strings.Join(looked, ", "))
	}
	return found, nil
}

// inDir reports whether path is dir or inside it.
func inDir(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}

// writeImport asks for the inputs, stores the secrets and writes the
// servers that are to be added or replaced. What it writes comes from a
// file the user did not type: a trusted project whose file gets a server
// is not kept trusted, and the user is told to read it and trust it again.
// The error is for inputs that could not be asked for; then nothing is
// written.
func (a *app) writeImport(cmd *cobra.Command, w io.Writer, servers []*importedServer, force, skipInputs bool) error {
	var todo []*importedServer
	for _, s := range servers {
		if s.status == statusAdded || s.status == statusReplaced {
			todo = append(todo, s)
		}
	}
	answers, err := a.collectInputs(cmd.Context(), todo, skipInputs)
	if err != nil {
		return fmt.Errorf("%w\nnothing was imported", err)
	}
	opts := a.loadOptions()
	trusted := a.projectTrusted()
	written := map[config.Scope]*importedServer{}
	for _, s := range todo {
		if s.err = answers.store(s); s.err != nil {
			s.status = statusFailed
			continue
		}
		entry := s.im.Fill(answers.plainFor(s))
		if _, s.err = config.AddServerWith(opts, s.scope, entry, config.AddOptions{Replace: force, Untyped: true}); s.err != nil {
			s.status = statusFailed
			continue
		}
		if _, ok := written[s.scope]; !ok {
			written[s.scope] = s
		}
	}
	for _, s := range todo {
		switch s.status {
		case statusAdded, statusReplaced:
			fmt.Fprintf(w, "%s server %q to %s%s\n", s.status, s.im.Entry.ID, termtext.Line(s.file), scopeNote(s.scope))
		case statusFailed:
			fmt.Fprintf(w, "server %q not imported: %s\n", s.im.Entry.ID, termtext.Line(s.err.Error()))
		}
	}
	for _, scope := range []config.Scope{config.ScopeProject, config.ScopeLocal, config.ScopeUser} {
		if s := written[scope]; s != nil {
			a.untypedTrustNote(w, s.scope, s.file, s.im.Entry.ID, trusted, w != a.stdout)
		}
	}
	return nil
}

// projectTrusted reports whether the current directory's project is
// trusted, with its files as they are now.
func (a *app) projectTrusted() bool {
	ok, err := config.IsTrusted(a.loadOptions(), "")
	return err == nil && ok
}

// untypedTrustNote follows a write of a server the user did not type (an
// import, add-json) into the file of scope. Into the project file of a
// project that was trusted before, it says that the project must be
// trusted again: such content does not keep it trusted. Otherwise it is
// the usual hint (not with --json, whose standard output is the JSON).
func (a *app) untypedTrustNote(w io.Writer, scope config.Scope, file, id string, wasTrusted, quiet bool) {
	if scope == config.ScopeProject && wasTrusted {
		dir := filepath.Dir(file)
		fmt.Fprintf(w, "note: the project was trusted; what was just written into %s is not, and until it is, none of the project's servers start: read the file, then run \"mcphost trust %s\"\n",
			termtext.Line(file), termtext.Line(shellQuote(dir)))
		return
	}
	if !quiet {
		a.trustHint(scope, id)
	}
}

// importOutcome is the exit status: 2 when nothing could be read into an
// entry, 1 when a server was not written (a conflict, a failure), else 0.
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
	switch {
	case len(failed) > 0:
		return &exitError{code: exitFailure, err: fmt.Errorf("not imported: %s", strings.Join(failed, ", "))}
	case len(conflicts) > 0 && !dryRun:
		return &exitError{code: exitFailure, err: fmt.Errorf("already configured, left as they are: %s (pass --force to replace them)", strings.Join(conflicts, ", "))}
	}
	return nil
}

// importJSON is the --json form of the plan or the result; values of env
// and headers are masked as in "mcp list --json".
func (a *app) importJSON(results []*clientconf.Result, servers []*importedServer, dryRun bool) map[string]any {
	type fileJSON struct {
		Path    string               `json:"path"`
		Kind    clientconf.Kind      `json:"kind"`
		Skipped []clientconf.Skipped `json:"skipped"`
		Notes   []string             `json:"notes"`
	}
	files := []fileJSON{}
	for _, r := range results {
		files = append(files, fileJSON{Path: r.Path, Kind: r.Kind, Skipped: nonNil(r.Skipped), Notes: nonNil(r.Notes)})
	}
	list := []map[string]any{}
	for _, s := range servers {
		list = append(list, a.importedJSON(s))
	}
	return map[string]any{"dry_run": dryRun, "files": files, "servers": list}
}

func (a *app) importedJSON(s *importedServer) map[string]any {
	e := s.im.Entry
	d := map[string]any{
		"id": e.ID, "name": s.im.Name, "from": s.from, "kind": s.kind, "scope": s.scope, "file": s.file,
		"status": s.status, "transport": transportOf(e), "entry": maskedEntry(e, a.showSecrets),
		"converted": nonNil(s.im.Converted), "dropped": nonNil(s.im.Dropped), "inputs": nonNil(s.im.Inputs),
	}
	if s.err != nil {
		d["error"] = s.err.Error()
	}
	if s.shadows != "" {
		d["shadows"] = s.shadows
	}
	if len(s.replaces) > 0 {
		d["replaces_secrets"] = s.replaces
	}
	return d
}

// maskedEntry is an entry with the values of env and headers masked, and
// those of arguments that follow a secret's flag (--token, --api-key).
func maskedEntry(e config.ServerEntry, show bool) config.ServerEntry {
	e.Env, e.Headers = masked(e.Env, show), masked(e.Headers, show)
	if !show {
		e.URL = config.RedactURL(e.URL)
		if len(e.Args) > 0 {
			e.Args = clientconf.MaskSecretArgs(e.Args)
		}
	}
	return e
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

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
			if err := a.checkImported(s, skipInputs, keychainCache{}); err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("server %q not added: %w", s.im.Entry.ID, err)}
			}
			if err := a.confirmSecretReplace(cmd.Context(), s.replaces); err != nil {
				return err
			}
			answers, err := a.collectInputs(cmd.Context(), []*importedServer{s}, skipInputs)
			if err != nil {
				return err
			}
			if err := answers.store(s); err != nil {
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

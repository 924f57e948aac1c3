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
reported and left as it is, unless --force replaces it.

VS Code inputs (${input:ID}) are asked for once, on the terminal: a password
is kept in the OS keychain and the entry refers to it as ${secret:NAME}; any
other answer is written into the entry. A client secret written in clear in
the client's file goes to the keychain the same way. Without a terminal,
pass --skip-inputs and store the passwords later with "mcphost secret set".
--dry-run shows the plan and writes and stores nothing.`,
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
			locs, err := importLocations(kind, env, args)
			if err != nil {
				return err
			}
			var (
				servers []*importedServer
				results []*clientconf.Result
			)
			for _, loc := range locs {
				res, err := clientconf.ImportFile(loc, env)
				if err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("%w\nnothing was imported: fix the file, or give the path of another with mcphost mcp import --from %s PATH", err, kind)}
				}
				results = append(results, res)
				for _, im := range res.Servers {
					s := &importedServer{im: im, from: loc.Path, kind: kind, scope: scope}
					if s.scope == "" {
						s.scope = targetScope(&s.im)
					}
					servers = append(servers, s)
				}
			}
			if err := a.planImport(servers, force, dryRun); err != nil {
				return err
			}
			if !asJSON {
				a.printImportPlan(results, servers)
			}
			if !dryRun {
				// With --json, standard output holds the JSON alone.
				progress := a.stdout
				if asJSON {
					progress = a.stderr
				}
				written, err := a.writeImport(cmd, progress, servers, force, skipInputs)
				if err != nil {
					return err
				}
				if !asJSON {
					for scope, id := range written {
						a.trustHint(scope, id)
					}
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

// importLocations is the file given, or the client's files that exist.
func importLocations(kind clientconf.Kind, env clientconf.Env, args []string) ([]clientconf.Location, error) {
	if len(args) == 1 {
		p := args[0]
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.WorkDir, p)
		}
		scope := clientconf.ScopeUser
		if rel, err := filepath.Rel(env.WorkDir, p); err == nil && filepath.IsLocal(rel) {
			scope = clientconf.ScopeProject
		}
		return []clientconf.Location{{Kind: kind, Scope: scope, Path: p}}, nil
	}
	var (
		found  []clientconf.Location
		looked []string
	)
	for _, loc := range clientconf.Locations(kind, env) {
		looked = append(looked, loc.Path)
		if _, err := os.Stat(loc.Path); err == nil {
			found = append(found, loc)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, usageError("%s: %v", loc.Path, err)
		}
	}
	if len(found) == 0 {
		return nil, usageError("no %s configuration found (looked for %s): give the file's path", kind, strings.Join(looked, ", "))
	}
	return found, nil
}

// targetScope is where an imported server goes by default: the scope it
// came from. A project's server that refers to a keychain secret is not
// moved elsewhere: a project file may not refer to the user's keychain, and
// the local and user scopes run without "mcphost trust", so a cloned
// repository's server gets there only when the user names the scope
// (planImport refuses it with that advice).
func targetScope(im *clientconf.Imported) config.Scope {
	switch im.Scope {
	case clientconf.ScopeProject:
		return config.ScopeProject
	case clientconf.ScopeLocal:
		return config.ScopeLocal
	}
	return config.ScopeUser
}

// planImport finds each server's target file and whether its id is taken
// there (or by another server of this import).
func (a *app) planImport(servers []*importedServer, force, dryRun bool) error {
	opts := a.loadOptions()
	files := map[config.Scope]string{}
	taken := map[string]string{} // scope/id -> client file
	for _, s := range servers {
		if _, ok := files[s.scope]; !ok {
			p, _, err := config.ScopeFile(opts, s.scope)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			files[s.scope] = p
		}
		s.file = files[s.scope]
		key := string(s.scope) + "/" + s.im.Entry.ID
		if other, dup := taken[key]; dup {
			s.status = statusDuplicate
			s.err = fmt.Errorf("%s also has a server %q for the %s scope; only the first is imported", other, s.im.Entry.ID, s.scope)
			continue
		}
		taken[key] = s.from
		if s.scope == config.ScopeProject && s.im.UsesKeychain() {
			s.status = statusFailed
			s.err = errors.New("it refers to a secret of your keychain, which a shared project file may not: read its command, then import it with --scope local (or --scope user), which runs it without \"mcphost trust\"")
			continue
		}
		scopes, _, err := config.ServerScopes(opts, s.im.Entry.ID)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		exists := false
		for _, sc := range scopes {
			exists = exists || sc == s.scope
		}
		switch {
		case exists && !force:
			s.status = statusConflict
		case exists:
			s.status = map[bool]string{true: statusReplace, false: statusReplaced}[dryRun]
		default:
			s.status = map[bool]string{true: statusAdd, false: statusAdded}[dryRun]
		}
	}
	return nil
}

// printImportPlan shows, file by file, what the import does with each
// server. Everything from a client's file is escaped to one line.
func (a *app) printImportPlan(results []*clientconf.Result, servers []*importedServer) {
	w := a.stdout
	for _, res := range results {
		fmt.Fprintf(w, "%s (%s):\n", termtext.Line(res.Path), res.Kind)
		n := 0
		for _, s := range servers {
			if s.from != res.Path {
				continue
			}
			n++
			a.printPlannedServer(s)
		}
		for _, sk := range res.Skipped {
			fmt.Fprintf(w, "  - %s: not imported: %s\n", termtext.Line(sk.Name), termtext.Line(sk.Reason))
		}
		for _, note := range res.Notes {
			fmt.Fprintf(w, "  note: %s\n", termtext.Line(note))
		}
		if n == 0 && len(res.Skipped) == 0 && len(res.Notes) == 0 {
			fmt.Fprintln(w, "  no servers")
		}
	}
}

func (a *app) printPlannedServer(s *importedServer) {
	w := a.stdout
	mark := map[string]string{statusAdd: "+", statusAdded: "+", statusReplace: "~", statusReplaced: "~"}[s.status]
	if mark == "" {
		mark = "!"
	}
	e := s.im.Entry
	fmt.Fprintf(w, "  %s %s  %s %s  → %s scope (%s)\n", mark, e.ID, transportOf(e), oneLine(entryTarget(e, a.showSecrets), 60), s.scope, termtext.Line(s.file))
	for _, c := range s.im.Converted {
		fmt.Fprintf(w, "      converted: %s\n", termtext.Line(c))
	}
	for _, d := range s.im.Dropped {
		fmt.Fprintf(w, "      dropped %s: %s\n", termtext.Line(d.Field), termtext.Line(d.Reason))
	}
	for _, in := range s.im.Inputs {
		switch {
		case in.Value != "":
			fmt.Fprintf(w, "      secret: %s, to keep in the OS keychain\n", in.Secret)
		case in.Password:
			fmt.Fprintf(w, "      input %s (%s): asked once, kept in the OS keychain as %s\n", termtext.Line(in.ID), termtext.Line(in.Description), in.Secret)
		default:
			fmt.Fprintf(w, "      input %s (%s): asked once, written in the entry\n", termtext.Line(in.ID), termtext.Line(in.Description))
		}
	}
	switch s.status {
	case statusConflict:
		fmt.Fprintf(w, "      conflict: %s already has a server %q: not replaced (pass --force to replace it)\n", termtext.Line(s.file), e.ID)
	case statusReplace, statusReplaced:
		fmt.Fprintf(w, "      replaces the server %q of %s (--force)\n", e.ID, termtext.Line(s.file))
	case statusDuplicate, statusFailed:
		fmt.Fprintf(w, "      not imported: %s\n", termtext.Line(s.err.Error()))
	}
}

// transportOf is an entry's transport as the loader infers it.
func transportOf(e config.ServerEntry) string {
	switch {
	case e.Transport != "":
		return e.Transport
	case e.Command != "":
		return config.TransportStdio
	}
	return config.TransportHTTP
}

// entryTarget is what an entry runs or where it is, for the plan.
func entryTarget(e config.ServerEntry, show bool) string {
	if e.Command != "" {
		return shellJoin(append([]string{e.Command}, e.Args...))
	}
	if show {
		return e.URL
	}
	return config.RedactURL(e.URL)
}

// writeImport asks for the inputs, stores the secrets and writes the
// servers that are to be added or replaced.
// It returns a server written to each scope (for the trust hint); an error
// only when the inputs could not be asked for, and then nothing is written.
func (a *app) writeImport(cmd *cobra.Command, w io.Writer, servers []*importedServer, force, skipInputs bool) (map[config.Scope]string, error) {
	var todo []*importedServer
	for _, s := range servers {
		if s.status == statusAdded || s.status == statusReplaced {
			todo = append(todo, s)
		}
	}
	answers, err := a.collectInputs(cmd.Context(), todo, skipInputs)
	if err != nil {
		return nil, fmt.Errorf("%w\nnothing was imported", err)
	}
	opts := a.loadOptions()
	written := map[config.Scope]string{}
	for _, s := range todo {
		if s.err = answers.store(s); s.err != nil {
			s.status = statusFailed
			continue
		}
		entry := s.im.Fill(answers.plainFor(s))
		if _, s.err = config.AddServer(opts, s.scope, entry, force); s.err != nil {
			s.status = statusFailed
			continue
		}
		if _, ok := written[s.scope]; !ok {
			written[s.scope] = entry.ID
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
	return written, nil
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
	return d
}

// maskedEntry is an entry with the values of env and headers masked.
func maskedEntry(e config.ServerEntry, show bool) config.ServerEntry {
	e.Env, e.Headers = masked(e.Env, show), masked(e.Headers, show)
	if !show {
		e.URL = config.RedactURL(e.URL)
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
too. JSON "-" reads it from standard input.`,
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
			answers, err := a.collectInputs(cmd.Context(), []*importedServer{s}, skipInputs)
			if err != nil {
				return err
			}
			if err := answers.store(s); err != nil {
				return err
			}
			entry := im.Fill(answers.plainFor(s))
			path, err := config.AddServer(a.loadOptions(), scope, entry, replace)
			if errors.Is(err, config.ErrServerExists) {
				return usageError("%v\npass --replace to overwrite it", err)
			}
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(a.stdout, "added server %q to %s%s\n", entry.ID, path, scopeNote(scope))
			a.trustHint(scope, entry.ID)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&scopeName, "scope", "s", string(config.ScopeLocal), "local (only you, in this directory), project (.mcphost.yaml, shared) or user (your config file, every project)")
	f.BoolVar(&replace, "replace", false, "replace an existing entry with the same id")
	f.BoolVar(&skipInputs, "skip-inputs", false, "do not ask for VS Code inputs: passwords are stored later with \"mcphost secret set\"")
	return cmd
}

package clientconf

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/safefile"
	"github.com/mcphost/mcphost/internal/termtext"
	"github.com/mcphost/mcphost/internal/userdirs"
)

// DefaultEntryName is the name of the entry "client install" writes.
const DefaultEntryName = "mcphost"

// maxNesting bounds how deeply a client's file may nest before it is
// parsed: the parsers recurse, and a hostile file must not exhaust the
// stack.
const maxNesting = 1000

// InstallKinds lists the clients "client install" can hook to mcphost.
var InstallKinds = []Kind{ClaudeDesktop, ClaudeCode, Cursor, Windsurf, VSCode, Codex, Gemini, Zed}

// entryShape is how one client writes a stdio server entry.
type entryShape struct {
	format    Format // FormatJSON, FormatJSONC or FormatTOML
	container string // the object (or TOML table) holding the entries
	typeStdio bool   // the entry says "type": "stdio" (VS Code)
	emptyEnv  bool   // the entry has "env": {} (Zed's documented shape)
}

func shapeOf(kind Kind) (entryShape, bool) {
	switch kind {
	case ClaudeDesktop, ClaudeCode, Cursor, Windsurf:
		return entryShape{format: FormatJSON, container: "mcpServers"}, true
	case VSCode:
		return entryShape{format: FormatJSONC, container: "servers", typeStdio: true}, true
	case Gemini:
		return entryShape{format: FormatJSONC, container: "mcpServers"}, true
	case Zed:
		return entryShape{format: FormatJSONC, container: "context_servers", emptyEnv: true}, true
	case Codex:
		return entryShape{format: FormatTOML, container: "mcp_servers"}, true
	}
	return entryShape{}, false
}

// entry is the server entry mcphost writes, in the order its fields are
// written.
func (s entryShape) entry(command string, args []string) entryObj {
	var o entryObj
	if s.typeStdio {
		o = append(o, entryField{"type", "stdio"})
	}
	o = append(o, entryField{"command", command}, entryField{"args", args})
	if s.emptyEnv {
		o = append(o, entryField{"env", entryObj{}})
	}
	return o
}

// InstallOptions says what to install and where.
type InstallOptions struct {
	Scope   Scope    // ScopeUser when empty
	File    string   // edit this file instead of the client's standard one
	Name    string   // the entry's name; DefaultEntryName when empty
	Command string   // the mcphost executable the client runs (uninstall: an entry running it counts as mcphost's)
	Args    []string // its arguments; ["serve"] when nil
	// Force replaces an entry of the same name that differs (install), or
	// removes one that does not run "mcphost serve" (uninstall).
	Force bool
	// ProjectCommand, for InstallStates, is what a project file's entry
	// runs ("": Command).
	ProjectCommand string
}

func (o InstallOptions) name() string {
	if o.Name == "" {
		return DefaultEntryName
	}
	return o.Name
}

func (o InstallOptions) args() []string {
	if o.Args == nil {
		return []string{"serve"}
	}
	return o.Args
}

// validName keeps entry names to what every client and format takes
// without quoting (a TOML bare key).
var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Action is what a Change does to the file.
type Action int

const (
	ActionNone    Action = iota // nothing to do (Note says why)
	ActionAdd                   // add the entry
	ActionReplace               // replace an entry of the same name (--force)
	ActionRemove                // remove the entry
)

// Change is one planned edit of a client's file: shown to the person,
// then applied (or not).
type Change struct {
	Kind      Kind
	Scope     Scope
	Path      string // the client's file
	Target    string // the file edited: Path with every symbolic link in it resolved
	Format    Format
	Container string // where the entry lives: mcpServers, servers, ...
	Name      string
	Action    Action
	Note      string // for ActionNone: "already installed", "not installed"
	Created   bool   // the file does not exist: Apply creates it (and its directory)

	existed       bool
	before, after []byte
	oldEntry      any      // the entry being replaced or removed (masked before display)
	newEntry      entryObj // the entry being added
	// backupDir is where Apply keeps the file as it was; backupErr says
	// why there is none (no state directory is known).
	backupDir string
	backupErr error
}

// ConflictError is an existing entry of the same name that install would
// have to replace, or one that uninstall would remove although it does not
// run "mcphost serve".
type ConflictError struct {
	Path, Name string
	Command    string // what the existing entry runs (its command only)
	Install    bool
}

func (e *ConflictError) Error() string {
	// The command comes from the client's file: quoted, so that a newline
	// in it cannot add a line to the message.
	runs := "no command"
	if e.Command != "" {
		runs = fmt.Sprintf("command %q", e.Command)
	}
	if e.Install {
		return fmt.Sprintf("clientconf: %s already has a different entry %q (%s): pass --force to replace it, or --name to install under another name", termtext.Line(e.Path), e.Name, runs)
	}
	return fmt.Sprintf("clientconf: the entry %q in %s does not run \"mcphost serve\" (%s): pass --force to remove it anyway", e.Name, termtext.Line(e.Path), runs)
}

// errEditMismatch means an edit did not give the document it should have:
// a bug, or a file written in a form the editor does not handle. Nothing is
// written then.
var errEditMismatch = errors.New("the edited file would not hold exactly the intended change")

// InstallLocation is the file install edits for kind in scope.
func InstallLocation(kind Kind, env Env, scope Scope) (Location, error) {
	if _, ok := shapeOf(kind); !ok {
		return Location{}, fmt.Errorf("clientconf: %q cannot be hooked to mcphost by \"client install\" (use one of %s)", kind, installKindList())
	}
	if scope == "" {
		scope = ScopeUser
	}
	if scope != ScopeUser && scope != ScopeProject {
		return Location{}, fmt.Errorf("clientconf: unknown scope %q: use user or project", scope)
	}
	if env.Home == "" || !filepath.IsAbs(env.Home) {
		return Location{}, errors.New("clientconf: no home directory is known (set HOME): cannot locate the clients' files")
	}
	if scope == ScopeProject && (env.WorkDir == "" || !filepath.IsAbs(env.WorkDir)) {
		return Location{}, errors.New("clientconf: the project directory is not known: cannot locate the project's file")
	}
	var scoped []string
	for _, l := range Locations(kind, env) {
		if l.Scope != scope {
			continue
		}
		// VS Code keeps servers in mcp.json; its settings.json "mcp"
		// section is read by import only.
		if kind == VSCode && filepath.Base(l.Path) == "settings.json" {
			continue
		}
		return l, nil
	}
	for _, l := range Locations(kind, env) {
		scoped = append(scoped, string(l.Scope))
	}
	return Location{}, fmt.Errorf("clientconf: %s has no %s configuration file (its scopes: %s): use --scope %s", kind, scope, strings.Join(scoped, ", "), scoped[0])
}

func installKindList() string {
	names := make([]string, len(InstallKinds))
	for i, k := range InstallKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// PlanInstall reads the client's file and works out how to add the entry
// that runs mcphost; nothing is written.
func PlanInstall(kind Kind, env Env, o InstallOptions) (*Change, error) {
	return planChange(kind, env, o, true)
}

// PlanUninstall reads the client's file and works out how to remove the
// entry; nothing is written.
func PlanUninstall(kind Kind, env Env, o InstallOptions) (*Change, error) {
	return planChange(kind, env, o, false)
}

func planChange(kind Kind, env Env, o InstallOptions, install bool) (*Change, error) {
	sh, ok := shapeOf(kind)
	if !ok {
		return nil, fmt.Errorf("clientconf: %q cannot be hooked to mcphost by \"client install\" (use one of %s)", kind, installKindList())
	}
	name := o.name()
	if !validName.MatchString(name) {
		return nil, fmt.Errorf("clientconf: entry name %q: use 1 to 64 letters, digits, '_' or '-'", name)
	}
	if install && o.Command == "" {
		return nil, errors.New("clientconf: no command to install: give the path of the mcphost executable")
	}
	var err error
	c := &Change{Kind: kind, Scope: o.Scope, Format: sh.format, Container: sh.container, Name: name}
	if c.Scope == "" {
		c.Scope = ScopeUser
	}
	if o.File != "" {
		c.Path = o.File
	} else {
		loc, err := InstallLocation(kind, env, c.Scope)
		if err != nil {
			return nil, err
		}
		c.Path = loc.Path
	}
	if c.Target, err = resolveTarget(c.Path); err != nil {
		return nil, err
	}
	if o.File == "" && c.Scope == ScopeProject {
		if err := inProject(c.Path, c.Target, env.WorkDir); err != nil {
			return nil, err
		}
	}
	data, existed, err := readClientFile(c.Target)
	if err != nil {
		return nil, err
	}
	c.before, c.existed, c.Created = data, existed, !existed
	if dir, err := env.stateDir(); err != nil {
		c.backupErr = err
	} else {
		c.backupDir = filepath.Join(dir, "backups")
	}
	ed := entryEditor{shape: sh, path: c.Path, name: name}
	if install {
		c.newEntry = sh.entry(o.Command, o.args())
		err = ed.install(c, o.Force)
	} else {
		err = ed.uninstall(c, o.Command, o.Force)
	}
	if err != nil {
		return nil, err
	}
	if c.Action == ActionNone {
		c.Created = false
	}
	return c, nil
}

// resolveTarget is the file path leads to, every symbolic link in it (the
// file's own and its directories') resolved; the part that does not exist
// yet is kept as it is. Without a link on the way, it is path itself.
func resolveTarget(path string) (string, error) {
	p, rest := path, ""
	for {
		_, err := os.Lstat(p)
		if err == nil {
			r, err := filepath.EvalSymlinks(p)
			if err != nil {
				return "", fmt.Errorf("clientconf: %s leads through a symbolic link to a file that cannot be read (%s): fix or remove the link", termtext.Line(path), termtext.Line(err.Error()))
			}
			if r = filepath.Join(r, rest); r == filepath.Clean(path) {
				return path, nil
			}
			return r, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("clientconf: %s", termtext.Line(err.Error()))
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path, nil
		}
		p, rest = parent, filepath.Join(filepath.Base(p), rest)
	}
}

// inProject refuses a project's file that leads (through a symbolic link,
// of the file or of a directory) out of the project directory: a project
// could otherwise have the user's own file edited, and its backup, with the
// user's tokens, left in the project.
func inProject(path, target, project string) error {
	dir, err := resolveTarget(project)
	if err != nil {
		return err
	}
	if isWithin(dir, target) {
		return nil
	}
	return fmt.Errorf("clientconf: the project's file %s is a symbolic link (or lies in a linked directory) to %s, outside the project directory %s: mcphost does not edit it as the project's file; replace the link with a file of the project's own, or use --scope user for your own file",
		termtext.Line(path), termtext.Line(target), termtext.Line(dir))
}

// readClientFile reads a client's file; a missing one is empty.
func readClientFile(path string) (data []byte, existed bool, err error) {
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if _, serr := os.Stat(path); serr != nil {
			return nil, false, fmt.Errorf("clientconf: %s is a symbolic link to a file that cannot be read (%s): fix or remove the link", termtext.Line(path), termtext.Line(serr.Error()))
		}
	}
	data, err = safefile.ReadFile(path, config.MaxConfigBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case errors.Is(err, safefile.ErrTooLarge):
		return nil, false, fmt.Errorf("clientconf: reading %s: mcphost does not edit a file that large; add the entry by hand", termtext.Line(err.Error()))
	case err != nil:
		return nil, false, fmt.Errorf("clientconf: reading %s", termtext.Line(err.Error()))
	}
	return data, true, nil
}

// editor edits one file's entry; install and uninstall dispatch on the
// format to the JSON or TOML editor.
type entryEditor struct {
	shape entryShape
	path  string
	name  string
}

func (ed entryEditor) install(c *Change, force bool) error {
	var (
		out []byte
		old any
		has bool
		err error
	)
	want := c.newEntry.generic()
	src, bom := cutBOM(c.before)
	if ed.shape.format == FormatTOML {
		out, old, has, err = ed.tomlInstall(src, c.newEntry, want, force)
	} else {
		out, old, has, err = ed.jsonInstall(src, c.newEntry, want, force)
	}
	if err != nil {
		return err
	}
	out = slices.Concat(bom, out)
	switch {
	case has && sameEntry(old, want):
		c.Action, c.Note = ActionNone, "already installed"
		return nil
	case has:
		c.Action, c.oldEntry = ActionReplace, old
	default:
		c.Action = ActionAdd
	}
	c.after = out
	return nil
}

func (ed entryEditor) uninstall(c *Change, command string, force bool) error {
	var (
		out []byte
		old any
		has bool
		err error
	)
	check := func(old any) error {
		if !force && !LooksLikeMcphost(old, command) {
			return &ConflictError{Path: ed.path, Name: ed.name, Command: entryCommand(old)}
		}
		return nil
	}
	src, bom := cutBOM(c.before)
	if ed.shape.format == FormatTOML {
		out, old, has, err = ed.tomlUninstall(src, check)
	} else {
		out, old, has, err = ed.jsonUninstall(src, check)
	}
	if err != nil {
		return err
	}
	out = slices.Concat(bom, out)
	if !has {
		c.Action, c.Note = ActionNone, "not installed"
		return nil
	}
	c.Action, c.oldEntry, c.after = ActionRemove, old, out
	return nil
}

// sameEntry reports whether an existing entry runs what install would
// write: the same type, command and arguments. Fields the person added
// (env values, a startup timeout, "enabled") do not make it different.
func sameEntry(old any, want map[string]any) bool {
	m, ok := old.(map[string]any)
	if !ok {
		return false
	}
	if t, ok := m["type"]; ok && want["type"] == nil && t != "stdio" {
		return false // "claude mcp add" writes "type": "stdio"; that one is the same
	}
	if want["type"] != nil && m["type"] != want["type"] {
		return false
	}
	return reflect.DeepEqual(m["command"], want["command"]) && reflect.DeepEqual(m["args"], want["args"])
}

// cutBOM takes off a UTF-8 byte order mark (Windows editors write one),
// to be put back in front of the edited file.
func cutBOM(b []byte) (rest, bom []byte) {
	if m := []byte("\xef\xbb\xbf"); bytes.HasPrefix(b, m) {
		return b[len(m):], m
	}
	return b, nil
}

// LooksLikeMcphost reports whether an entry (as decoded from a client's
// file) runs the mcphost gateway: its command is mcphost (or command) and
// its arguments hold "serve".
func LooksLikeMcphost(entry any, command string) bool {
	m, ok := entry.(map[string]any)
	if !ok {
		return false
	}
	cmd := entryCommand(m)
	base := cmd
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	base = strings.TrimSuffix(strings.ToLower(base), ".exe")
	if base != "mcphost" && (command == "" || cmd != command) {
		return false
	}
	args, _ := m["args"].([]any)
	for _, a := range args {
		if a == "serve" {
			return true
		}
	}
	return false
}

func entryCommand(entry any) string {
	m, _ := entry.(map[string]any)
	s, _ := m["command"].(string)
	return s
}

// ErrChanged is returned by Apply when the file changed after it was read.
var ErrChanged = errors.New("changed since it was read")

// Apply writes the change at Target: a backup of the file as it was
// (returned; "" for a new file) in the user's state directory (see
// writeBackup), then the new content through a
// temporary file and a rename, keeping the file's mode (a new file gets
// 0600, a new directory 0700). If the file changed since Plan read it (the
// client writing it), or Path now leads elsewhere, nothing is written.
func (c *Change) Apply() (backup string, err error) {
	if c.Action == ActionNone {
		return "", nil
	}
	target, err := resolveTarget(c.Path)
	if err != nil {
		return "", err
	}
	if target != c.Target {
		return "", fmt.Errorf("clientconf: %s %w: it now leads to %s (a symbolic link changed): nothing was written; run the command again", termtext.Line(c.Path), ErrChanged, termtext.Line(target))
	}
	now, existed, err := readClientFile(c.Target)
	if err != nil {
		return "", err
	}
	if existed != c.existed || !bytes.Equal(now, c.before) {
		return "", fmt.Errorf("clientconf: %s %w (is the client running and writing it?): nothing was written; run the command again", termtext.Line(c.Target), ErrChanged)
	}
	if c.existed {
		if c.backupErr != nil {
			return "", fmt.Errorf("clientconf: keeping a backup of %s: %w (nothing was written)", termtext.Line(c.Target), c.backupErr)
		}
		if backup, err = writeBackup(c.backupDir, c.Target, c.before, time.Now()); err != nil {
			return "", err
		}
	}
	if err := safefile.WriteAtomic(c.Target, c.after); err != nil {
		return backup, fmt.Errorf("clientconf: writing %s: %w (the original is unchanged)", termtext.Line(c.Target), err)
	}
	return backup, nil
}

// writeBackup keeps data in dir (private, made if missing), in a new file
// (never overwriting an earlier backup, never following a link) of mode
// 0600: the file may hold other servers' secrets. Its name starts with
// path's base name and a hash of path (userdirs.KeyedName), then the date:
// a person finds the backups of one file by listing the directory.
func writeBackup(dir, path string, data []byte, now time.Time) (string, error) {
	if err := safefile.PrivateDir(dir); err != nil {
		return "", fmt.Errorf("clientconf: keeping a backup of %s: %w (nothing was written)", termtext.Line(path), err)
	}
	base := filepath.Join(dir, userdirs.KeyedName(path)+"."+now.Format("20060102-150405"))
	for i := 1; i <= 100; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("clientconf: keeping a backup of %s: %w (nothing was written)", termtext.Line(path), err)
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(name)
			return "", fmt.Errorf("clientconf: keeping a backup of %s: %w (nothing was written)", termtext.Line(path), werr)
		}
		return name, nil
	}
	return "", fmt.Errorf("clientconf: keeping a backup of %s: too many backups named %s*: remove old ones", termtext.Line(path), termtext.Line(base))
}

// After is the file's content once the change is applied.
func (c *Change) After() []byte { return c.after }

// InstallState is whether one client's file runs mcphost.
type InstallState struct {
	Kind   Kind
	Scope  Scope
	Path   string
	Target string // Path with its symbolic links resolved ("" if that failed)
	// State is "installed", "different" (an entry of that name runs
	// something else: Command), "not installed", "no file" or "error" (Err).
	State   string
	Command string
	Err     error
}

// InstallStates looks at every file "client install" can edit (user and
// project scope) for the entry o describes; nothing is written.
func InstallStates(env Env, o InstallOptions) []InstallState {
	var out []InstallState
	for _, kind := range InstallKinds {
		for _, scope := range []Scope{ScopeUser, ScopeProject} {
			loc, err := InstallLocation(kind, env, scope)
			if err != nil {
				continue // no file of that scope
			}
			st := InstallState{Kind: kind, Scope: scope, Path: loc.Path}
			o := o
			o.Scope, o.Force = scope, false
			if scope == ScopeProject && o.ProjectCommand != "" {
				o.Command = o.ProjectCommand
			}
			c, err := PlanInstall(kind, env, o)
			if c != nil {
				st.Target = c.Target
			}
			var conflict *ConflictError
			switch {
			case errors.As(err, &conflict):
				st.State, st.Command = "different", conflict.Command
			case err != nil:
				st.State, st.Err = "error", err
			case c.Action == ActionNone:
				st.State = "installed"
			case c.Created:
				st.State = "no file"
			default:
				st.State = "not installed"
			}
			out = append(out, st)
		}
	}
	return out
}

package clientconf

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/safefile"
)

// ScopeLocal is where Claude Code keeps a directory's private servers
// (~/.claude.json, projects[<dir>].mcpServers): the user's own file, but
// meant for one directory only.
const ScopeLocal Scope = "local"

// maxServers bounds how many servers one file may bring in.
const maxServers = 1000

// Imported is one server read from another client's file.
type Imported struct {
	// Name is the server's name in the client's file; Entry.ID is the
	// mcphost id it becomes (the same name, made valid if need be).
	Name  string
	Entry config.ServerEntry
	// Scope is where the server was configured: the user's file, a
	// project's, or (Claude Code) the user's file for one directory.
	Scope Scope
	// Converted says what was written differently from the client's file
	// ("startup_timeout_sec 20 → startup_timeout 20s"); never a value that
	// could be a secret.
	Converted []string
	// Dropped lists what mcphost does not take, each with the reason.
	Dropped []Dropped
	// Inputs are values to ask for (VS Code inputs) or to keep in the OS
	// keychain (a client secret written in the file) before the entry can
	// be written; see Fill.
	Inputs []Input
}

// Dropped is a field of the client's entry that mcphost leaves out.
type Dropped struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// Input is a value the entry needs that is not in it: a VS Code input
// (asked for once), or a secret the client's file held in clear that
// belongs in the OS keychain.
type Input struct {
	// ID is the input's id in the client's file ("" for a secret found in
	// clear).
	ID          string   `json:"id,omitempty"`
	Description string   `json:"description,omitempty"`
	Password    bool     `json:"password"`
	Default     string   `json:"default,omitempty"`
	Options     []string `json:"options,omitempty"`
	// Secret is the keychain name of a password (the entry says
	// ${secret:Secret}); "" for a plain value, which Fill writes into the
	// entry.
	Secret string `json:"secret,omitempty"`
	// Value is known already (a secret the file held in clear): store it
	// without asking. Never printed.
	Value string `json:"-"`
}

// placeholder stands in the entry for a plain input until Fill replaces
// it. Every literal "$" of a converted value is escaped, so the text can
// come from nowhere else.
func (in Input) placeholder() string { return "${input:" + in.ID + "}" }

// Skipped is a server of the client's file that is not imported.
type Skipped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Result is what one client file holds for mcphost.
type Result struct {
	Kind    Kind
	Path    string
	Servers []Imported
	Skipped []Skipped
	// Notes are about the file as a whole (servers of other directories,
	// a section mcphost has no use for).
	Notes []string
}

// Source says where a file's bytes came from; it decides how relative
// paths and ${workspaceFolder} resolve and which scope the servers get.
type Source struct {
	Path  string // for messages; "" for text given on the command line
	Scope Scope  // user or project
	Env   Env    // WorkDir and Home resolve variables; GOOS the path separator
}

// ImportFile reads the servers of one client file. A missing file is an
// error wrapping fs.ErrNotExist. A project's file (loc.Scope ScopeProject)
// is of the project in env.WorkDir: one whose path, symbolic links
// resolved, leads outside it is an error wrapping ErrOutsideProject.
func ImportFile(loc Location, env Env) (*Result, error) {
	if loc.Scope == ScopeProject {
		if err := checkInProject(loc.Path, env.WorkDir); err != nil {
			return nil, err
		}
	}
	data, err := safefile.ReadFile(loc.Path, maxBytesOf(loc.Kind, loc.Path, config.MaxConfigBytes))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("clientconf: %s: %w", loc.Path, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("clientconf: %w", err)
	}
	return Import(loc.Kind, data, Source{Path: loc.Path, Scope: loc.Scope, Env: env})
}

// Import reads the servers of a kind's file from its bytes. A file that
// does not parse is an error naming it; a server that cannot be imported is
// listed in Skipped with the reason, and never stops the others.
func Import(kind Kind, data []byte, src Source) (*Result, error) {
	name := src.Path
	if name == "" {
		name = string(kind) + " settings"
	}
	if limit := maxBytesOf(kind, src.Path, config.MaxConfigBytes); int64(len(data)) > limit {
		return nil, fmt.Errorf("clientconf: %s: over the limit of %d bytes", name, limit)
	}
	imp, ok := importers[kind]
	if !ok {
		_, err := ParseKind(string(kind))
		return nil, err
	}
	var root map[string]any
	var err error
	if format := formatOf(kind, src.Path); kind == ClaudeCode && format == FormatJSONC {
		// Claude Code writes strict JSON, and ~/.claude.json is large.
		root, err = readClaudeJSON(data)
	} else {
		root, err = parseClientFile(format, data)
	}
	if err != nil {
		return nil, fmt.Errorf("clientconf: %s: %w", name, err)
	}
	if src.Scope == "" {
		src.Scope = ScopeUser
	}
	res := &Result{Kind: kind, Path: src.Path}
	f := &fileReader{res: res, src: src, kind: kind, ids: map[string]bool{}}
	imp(f, root)
	return res, nil
}

// formatOf is how kind writes its file (a .toml or .yaml PATH is read as
// such whatever the kind).
func formatOf(kind Kind, path string) Format {
	lower := strings.ToLower(path)
	switch {
	case strings.HasSuffix(lower, ".toml"):
		return FormatTOML
	case strings.HasSuffix(lower, ".yaml"), strings.HasSuffix(lower, ".yml"):
		return FormatYAML
	case strings.HasSuffix(lower, ".json"), strings.HasSuffix(lower, ".jsonc"):
		return FormatJSONC
	}
	switch kind {
	case Codex:
		return FormatTOML
	case Goose:
		return FormatYAML
	}
	return FormatJSONC
}

// importers read a kind's parsed file.
var importers = map[Kind]func(*fileReader, map[string]any){
	ClaudeDesktop: importMCPServers,
	ClaudeCode:    importClaudeCode,
	Cursor:        importMCPServers,
	Windsurf:      importMCPServers,
	Tenx:          importMCPServers,
	VSCode:        importVSCode,
	Codex:         importCodex,
	Gemini:        importGemini,
	Zed:           importZed,
	Goose:         importGoose,
	Codelia:       importCodelia,
	Beans:         importBeans,
}

// fileReader collects one file's servers.
type fileReader struct {
	res  *Result
	src  Source
	kind Kind
	ids  map[string]bool // scope + "\x00" + id, for the ids taken so far
}

func (f *fileReader) notef(format string, args ...any) {
	f.res.Notes = append(f.res.Notes, fmt.Sprintf(format, args...))
}

func (f *fileReader) skip(name, reason string) {
	f.res.Skipped = append(f.res.Skipped, Skipped{Name: name, Reason: reason})
}

// importSection is the importer of a file whose servers are one map, at
// path ("key", or "parent.key" for a map inside another), each entry read
// by read; missing is how the note for a file without it names the map.
func importSection(path, missing string, read func(r *entryReader)) func(*fileReader, map[string]any) {
	return func(f *fileReader, root map[string]any) {
		m, key := root, path
		if parent, k, ok := strings.Cut(path, "."); ok {
			m, _ = root[parent].(map[string]any)
			key = k
		}
		sec := f.section(m, path, key)
		if sec == nil {
			f.notef("no %s in this file", missing)
			return
		}
		f.servers(sec, f.src.Scope, read)
	}
}

// section returns root[key] as a map of servers; a section of the wrong
// shape is a note, and an absent one nil.
func (f *fileReader) section(root map[string]any, path string, key string) map[string]any {
	v, ok := root[key]
	if !ok || v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		f.notef("%s is not a map of servers; nothing read from it", path)
		return nil
	}
	return m
}

// servers runs read on every server of a section, in name order, and keeps
// what it imports.
func (f *fileReader) servers(section map[string]any, scope Scope, read func(r *entryReader)) {
	names := sortedNames(section)
	if len(names) > maxServers {
		f.notef("%d servers in one section: only the first %d (by name) are read", len(names), maxServers)
		names = names[:maxServers]
	}
	for _, name := range names {
		m, ok := section[name].(map[string]any)
		if !ok {
			f.skip(name, "the entry is not an object of fields")
			continue
		}
		im := &Imported{Name: name, Scope: scope}
		im.Entry.ID = f.newID(im, name, scope)
		r := newEntryReader(f.kind, m, im, f.src.Env, f.src.Path)
		f.read(r, read)
	}
}

// read runs one entry's reader and files the result.
func (f *fileReader) read(r *entryReader, read func(r *entryReader)) {
	read(r)
	if r.skipReason == "" {
		r.settle()
	}
	if r.skipReason != "" {
		f.skip(r.im.Name, r.skipReason)
		return
	}
	if err := r.im.validate(); err != nil {
		f.skip(r.im.Name, err.Error())
		return
	}
	f.res.Servers = append(f.res.Servers, *r.im)
}

// newID turns a client's server name into an mcphost id, unique in this
// file's scope, saying so when it differs. (Two names that differ only in
// characters mcphost does not allow would otherwise become one id.)
func (f *fileReader) newID(im *Imported, name string, scope Scope) string {
	id := ValidServerID(name)
	base := id
	taken := func(id string) bool { return f.ids[string(scope)+"\x00"+id] }
	for n := 2; taken(id); n++ {
		suffix := fmt.Sprintf("-%d", n)
		id = truncateID(base, 64-len(suffix)) + suffix
	}
	f.ids[string(scope)+"\x00"+id] = true
	if id != name {
		im.convertf("id %q → %q (mcphost ids are 1 to 64 letters, digits, _ and -, without \"__\")", name, id)
	}
	return id
}

// ValidServerID turns a name into a valid mcphost server id
// (config.CheckServerID): other characters become "-", "__" becomes "_",
// a name over 64 characters keeps a hash of the whole so that two long
// names stay apart, and the reserved id gets a suffix. The same name always
// gives the same id.
func ValidServerID(name string) string {
	if config.CheckServerID(name) == nil {
		return name
	}
	var b strings.Builder
	for _, c := range name {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	id := b.String()
	for strings.Contains(id, "--") {
		id = strings.ReplaceAll(id, "--", "-")
	}
	for strings.Contains(id, "__") {
		id = strings.ReplaceAll(id, "__", "_")
	}
	id = strings.Trim(id, "-_")
	if id == "" {
		id = "server"
	}
	if len(id) > 64 {
		sum := sha256.Sum256([]byte(name))
		id = truncateID(id, 55) + "-" + hex.EncodeToString(sum[:4])
	}
	if strings.EqualFold(id, config.ReservedServerID) {
		id += "-server"
	}
	return id
}

// truncateID cuts an id to n bytes without leaving "_" or "-" at the end
// (where a suffix would make "__").
func truncateID(id string, n int) string {
	if len(id) > n {
		id = id[:n]
	}
	return strings.TrimRight(id, "-_")
}

func (im *Imported) convertf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, c := range im.Converted {
		if c == msg {
			return
		}
	}
	im.Converted = append(im.Converted, msg)
}

func (im *Imported) drop(field, reason string) {
	im.Dropped = append(im.Dropped, Dropped{Field: field, Reason: reason})
}

// addInput records an input the entry refers to, once.
func (im *Imported) addInput(in Input) {
	for _, have := range im.Inputs {
		if have.ID == in.ID && have.Secret == in.Secret {
			return
		}
	}
	im.Inputs = append(im.Inputs, in)
}

// UsesKeychain reports whether the entry refers to a secret of the OS
// keychain (${secret:NAME}), which a project file may not: such a server
// of a project's file belongs in the local scope.
func (im *Imported) UsesKeychain() bool {
	for _, in := range im.Inputs {
		if in.Secret != "" {
			return true
		}
	}
	return false
}

// Fill returns the entry with every plain input replaced by its answer
// (answers by input ID; a missing answer takes the input's default).
// Passwords stay ${secret:NAME} references: the caller stores them.
func (im *Imported) Fill(answers map[string]string) config.ServerEntry {
	e := cloneEntry(im.Entry)
	for _, in := range im.Inputs {
		if in.Secret != "" {
			continue
		}
		v, ok := answers[in.ID]
		if !ok {
			v = in.Default
		}
		replaceInEntry(&e, in.placeholder(), v)
	}
	return e
}

// validate checks the entry as it will be written (plain inputs filled
// with a stand-in), by the loader's own rules.
func (im *Imported) validate() error {
	answers := map[string]string{}
	for _, in := range im.Inputs {
		answers[in.ID] = "value"
	}
	e := im.Fill(answers)
	if err := e.Validate(); err != nil {
		return fmt.Errorf("the entry mcphost would write is not valid: %w", err)
	}
	return nil
}

func cloneEntry(e config.ServerEntry) config.ServerEntry {
	c := e
	c.Args = append([]string(nil), e.Args...)
	c.Env = cloneMap(e.Env)
	c.Headers = cloneMap(e.Headers)
	if e.Tools != nil {
		t := *e.Tools
		c.Tools = &t
	}
	return c
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// replaceInEntry writes value where placeholder stands: escaped in the
// fields mcphost expands, as it is in cwd, which it does not.
func replaceInEntry(e *config.ServerEntry, placeholder, value string) {
	esc := escapeEveryDollar(value)
	r := func(s string) string { return strings.ReplaceAll(s, placeholder, esc) }
	e.Command = r(e.Command)
	for i := range e.Args {
		e.Args[i] = r(e.Args[i])
	}
	for k, v := range e.Env {
		e.Env[k] = r(v)
	}
	for k, v := range e.Headers {
		e.Headers[k] = r(v)
	}
	e.URL = r(e.URL)
	e.EnvFile = r(e.EnvFile)
	e.Cwd = strings.ReplaceAll(e.Cwd, placeholder, value)
}

// MaskSecretArgs is args as a plan shows them: the value of a flag that
// names a secret (the argument after --token, --api-key and the like, or
// the part after "=") masked, as the diff of "client install" shows an
// entry's arguments.
func MaskSecretArgs(args []string) []string {
	in := make([]any, len(args))
	for i, a := range args {
		in[i] = a
	}
	masked, _ := maskArgs(in).([]any)
	out := make([]string, len(masked))
	for i, a := range masked {
		out[i], _ = a.(string)
	}
	return out
}

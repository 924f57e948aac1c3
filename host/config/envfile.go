package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcphost/mcphost/internal/safefile"
)

// env_file: a file of KEY=VALUE lines whose variables a stdio server gets,
// as VS Code's envFile and docker's --env-file give them.

// MaxEnvFileBytes caps an env_file: such files are a few lines, and the
// operating system limits a process's whole environment to a few MiB.
const MaxEnvFileBytes = 256 << 10

// maxEnvFileVars bounds the variables of one env_file.
const maxEnvFileVars = 4096

// ParseEnvFile reads the KEY=VALUE lines of an env file, the dotenv way:
//
//	# a comment, and blank lines, are skipped
//	KEY=value             unquoted: trimmed; " #" starts a comment
//	export KEY=value      "export " is allowed and ignored
//	KEY="a\nb \"q\""      double quotes: \n \r \t \" \\ and \$ are escapes;
//	                      the value may span lines
//	KEY='literal $x'      single quotes: taken as written, may span lines
//
// Values are never expanded (${VAR} stays as written) and a later KEY
// replaces an earlier one. Names are letters, digits, '_' and '.', not
// starting with a digit. Errors give the line and the name, never a value.
func ParseEnvFile(data []byte) (map[string]string, error) {
	if len(data) > MaxEnvFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", MaxEnvFileBytes)
	}
	p := &envParser{s: strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n"), line: 1}
	out := map[string]string{}
	for {
		key, val, ok, err := p.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		if _, dup := out[key]; !dup && len(out) >= maxEnvFileVars {
			return nil, fmt.Errorf("line %d: more than %d variables", p.line, maxEnvFileVars)
		}
		out[key] = val
	}
}

type envParser struct {
	s    string
	i    int
	line int
}

func (p *envParser) skipBlanks() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// skipLine moves past the end of the current line.
func (p *envParser) skipLine() {
	if j := strings.IndexByte(p.s[p.i:], '\n'); j >= 0 {
		p.i += j + 1
		p.line++
		return
	}
	p.i = len(p.s)
}

// next returns the next variable; ok is false at the end of the file.
func (p *envParser) next() (key, val string, ok bool, err error) {
	for {
		p.skipBlanks()
		if p.i >= len(p.s) {
			return "", "", false, nil
		}
		switch p.s[p.i] {
		case '\n':
			p.i++
			p.line++
			continue
		case '#':
			p.skipLine()
			continue
		}
		break
	}
	line := p.line
	if rest := p.s[p.i:]; strings.HasPrefix(rest, "export") && len(rest) > 6 && (rest[6] == ' ' || rest[6] == '\t') {
		p.i += 6
		p.skipBlanks()
	}
	start := p.i
	for p.i < len(p.s) && (isNameByte(p.s[p.i]) || p.s[p.i] == '.') {
		p.i++
	}
	key = p.s[start:p.i]
	switch {
	case key == "":
		return "", "", false, fmt.Errorf("line %d: expected NAME=VALUE", line)
	case key[0] >= '0' && key[0] <= '9':
		return "", "", false, fmt.Errorf("line %d: bad name %q: it must not start with a digit", line, key)
	}
	p.skipBlanks()
	if p.i >= len(p.s) || p.s[p.i] != '=' {
		return "", "", false, fmt.Errorf("line %d: %s: expected \"=\" after the name", line, key)
	}
	p.i++
	p.skipBlanks()
	if p.i < len(p.s) && (p.s[p.i] == '"' || p.s[p.i] == '\'') {
		val, err = p.quoted(key, line)
	} else {
		val = p.unquoted()
	}
	if err != nil {
		return "", "", false, err
	}
	if strings.IndexByte(val, 0) >= 0 {
		return "", "", false, fmt.Errorf("line %d: %s: the value holds a NUL byte, which no environment variable can", line, key)
	}
	return key, val, true, nil
}

// unquoted reads the rest of the line: up to a '#' that follows a blank,
// trailing blanks trimmed.
func (p *envParser) unquoted() string {
	end := strings.IndexByte(p.s[p.i:], '\n')
	if end < 0 {
		end = len(p.s) - p.i
	}
	v := p.s[p.i : p.i+end]
	p.i += end
	for j := 1; j < len(v); j++ {
		if v[j] == '#' && (v[j-1] == ' ' || v[j-1] == '\t') {
			v = v[:j]
			break
		}
	}
	return strings.TrimRight(v, " \t")
}

// quoted reads a quoted value and what may follow it on its last line
// (blanks and a comment).
func (p *envParser) quoted(key string, line int) (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", fmt.Errorf("line %d: %s: the value's %c quote is not closed", line, key, q)
		}
		c := p.s[p.i]
		p.i++
		switch {
		case c == q:
			p.skipBlanks()
			if p.i < len(p.s) && p.s[p.i] == '#' {
				p.skipLine()
			} else if p.i < len(p.s) && p.s[p.i] != '\n' {
				return "", fmt.Errorf("line %d: %s: unexpected text after the closing quote", p.line, key)
			}
			return b.String(), nil
		case c == '\n':
			p.line++
			b.WriteByte(c)
		case c == '\\' && q == '"' && p.i < len(p.s):
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '"', '\\', '$':
				b.WriteByte(e)
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
				if e == '\n' {
					p.line++
				}
			}
		default:
			b.WriteByte(c)
		}
	}
}

// envFile reads the entry's env_file, if any, and returns its absolute path
// and env with the file's variables added under the entry's own (the
// entry's env wins). A relative path is taken from the directory of the
// file that names it (the project directory for the local file). An entry
// of a project file may only name a file inside the project: a cloned
// repository naming ~/.aws/credentials would otherwise hand the user's
// credentials to its server.
func (d *decoder) envFile(env map[string]string) (string, map[string]string) {
	const field = "env_file"
	raw := d.str(field)
	if raw == "" {
		return "", env
	}
	l := d.origin(field)
	p, ok := d.expand(field, raw)
	if !ok {
		return "", env
	}
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		home, ok := d.env("HOME")
		if !ok || home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				d.fail(field, "cannot find the home directory for %q: %v", raw, err)
				return "", env
			}
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		base := l.dir
		if base == "" {
			base = d.workDir
		}
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)
	// Errors show the path as written when it holds a reference: the
	// value of a variable is not for error messages.
	shown := p
	if strings.Contains(raw, "$") {
		shown = raw
	}
	fromProject := l.fromProject() && l.dir != ""
	outside := func() (string, map[string]string) {
		d.fail(field, "%s is outside the project directory %s: a project file may only name an env file inside the project "+
			"(a cloned repository could otherwise hand your credentials to its server); name that file in your local or user scope instead", shown, l.dir)
		return p, env
	}
	// As written, and then (when the file is read) with symbolic links
	// resolved: a link in the repository may point anywhere.
	if fromProject && !within(l.dir, p) {
		return outside()
	}
	// An untrusted project's server does not start: its env file is not
	// read, so that a cloned repository cannot make every command read
	// thousands of them.
	if d.checkOnly || l.untrusted {
		return p, env
	}
	readPath := p
	if fromProject {
		inside, isOutside, err := projectEnvPath(l.dir, p)
		switch {
		case err != nil:
			d.fail(field, "%v", unwrapPathError(err, shown))
			return p, env
		case isOutside:
			return outside()
		}
		readPath = inside // what was checked is what is read
	}
	data, err := safefile.ReadFile(readPath, MaxEnvFileBytes)
	if err != nil {
		d.fail(field, "%v", unwrapPathError(err, shown))
		return p, env
	}
	vars, err := ParseEnvFile(data)
	if err != nil {
		d.fail(field, "%s: %v", shown, err)
		return p, env
	}
	if len(vars) == 0 {
		return p, env
	}
	out := make(map[string]string, len(vars)+len(env))
	for k, v := range vars {
		out[k] = v
	}
	for k, v := range env {
		out[k] = v
	}
	return p, out
}

// projectEnvPath is the file to read for the env_file p (absolute and
// clean) that a project file in dir names: p with its symbolic links
// resolved, or p itself when it does not exist (reading it then fails).
// outside reports a p outside dir, as written or once resolved; err is why
// the links could not be resolved. The loader and the trust hash both ask
// here, so that the hash covers what the loader reads.
func projectEnvPath(dir, p string) (read string, outside bool, err error) {
	if !within(dir, p) {
		return "", true, nil
	}
	inside, err := insideDir(dir, p)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return p, false, nil
	case err != nil:
		return "", false, err
	case inside == "":
		return "", true, nil
	}
	return inside, false, nil
}

// insideDir resolves the symbolic links of p and dir and returns the
// resolved p if it lies inside dir, "" if it does not. An error (p does
// not exist, say) is returned as it is.
func insideDir(dir, p string) (string, error) {
	rp, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	rd, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	if !within(rd, rp) {
		return "", nil
	}
	return rp, nil
}

// within reports whether p is dir or lies below it, as written (a symbolic
// link is not followed here).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && filepath.IsLocal(rel)
}

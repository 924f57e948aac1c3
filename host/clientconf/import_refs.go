package clientconf

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcphost/mcphost/host/config"
)

// Variable references: each client writes them its own way; mcphost writes
// ${VAR} (and ${secret:NAME}), expands nothing else, and reads "$$" as one
// "$". What a client would have kept literal is escaped, so that the server
// gets the same text from mcphost as from the client.

// refStyle is how a client writes references to variables in its values.
type refStyle int

const (
	// refNone: the client expands nothing, every "$" is literal (Claude
	// Desktop, Codex, Zed, Goose, Codelia).
	refNone refStyle = iota
	// refShell: ${VAR} and ${VAR:-default}, as mcphost (Claude Code).
	refShell
	// refEditor: ${env:VAR}, ${workspaceFolder}, ${userHome}... (VS Code,
	// Cursor, Windsurf); VS Code adds ${input:ID}.
	refEditor
	// refDollar: $VAR and ${VAR} (Gemini CLI).
	refDollar
)

func styleOf(kind Kind) refStyle {
	switch kind {
	case ClaudeCode, Beans, Tenx:
		return refShell
	case VSCode, Cursor, Windsurf:
		return refEditor
	case Gemini:
		return refDollar
	}
	return refNone
}

// convert rewrites the variable references of s, from field, in mcphost's
// textSyntax. expands says whether mcphost expands the field (cwd it does not:
// there references must be resolved now). A non-empty reason means s holds
// something mcphost cannot express; the caller drops the field.
func (r *entryReader) convert(field, s string, expands bool) (string, string) {
	switch r.style {
	case refShell:
		if !expands || !strings.Contains(s, "$") {
			return s, ""
		}
		if _, err := config.Expand(s, func(string) (string, bool) { return "", true }); err == nil {
			return s, ""
		}
		r.im.convertf("%s: kept literally (its \"$\" is not a valid ${VAR} reference)", field)
		return escapeEveryDollar(s), ""
	case refNone:
		if !expands {
			return s, ""
		}
		out := escapeDollars(s)
		if out != s {
			r.im.convertf("%s: \"$\" doubled: %s does not expand ${...}, and mcphost keeps $$ as one \"$\"", field, displayName(r.kind))
		}
		return out, ""
	case refDollar:
		return r.convertDollar(field, s, expands)
	}
	return r.convertEditor(field, s, expands)
}

var (
	envName  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	plainRef = regexp.MustCompile(`^[A-Za-z0-9_.:/ -]*$`)
)

// convertEditor rewrites ${env:VAR}, ${workspaceFolder} and the like.
func (r *entryReader) convertEditor(field, s string, expands bool) (string, string) {
	return rewriteRefs(s, expands, func(ref string) (string, int, string) {
		if !strings.HasPrefix(ref, "${") {
			return "", 0, ""
		}
		end := strings.IndexByte(ref[2:], '}')
		if end < 0 {
			return "", 0, ""
		}
		rep, reason := r.editorVar(field, ref[2:2+end], expands)
		return rep, end + 3, reason
	})
}

// rewriteRefs copies s, replacing the references in it: at each "$", ref
// is given the rest of s and returns the replacement and the length of
// the reference it read (0 for none: the "$" is literal, doubled when
// mcphost expands the field), or a reason s cannot be converted.
func rewriteRefs(s string, expands bool, ref func(rest string) (string, int, string)) (string, string) {
	if !strings.Contains(s, "$") {
		return s, ""
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		rep, n, reason := ref(s[i:])
		switch {
		case reason != "":
			return "", reason
		case n > 0:
			b.WriteString(rep)
			i += n
			continue
		case expands:
			b.WriteString("$$")
		default:
			b.WriteByte('$')
		}
		i++
	}
	return b.String(), ""
}

// refName shows a reference's name in a message if it looks like a name
// (it comes from a file and might be anything).
func refName(name string) string {
	if len(name) <= 64 && plainRef.MatchString(name) {
		return "${" + name + "}"
	}
	return "a ${...} reference"
}

func (r *entryReader) editorVar(field, name string, expands bool) (string, string) {
	lit := func(v string) string {
		if expands {
			return escapeEveryDollar(v)
		}
		return v
	}
	sep := "/"
	if r.env.GOOS == "windows" {
		sep = `\`
	}
	switch {
	case strings.HasPrefix(name, "env:"):
		v := strings.TrimPrefix(name, "env:")
		if !envName.MatchString(v) {
			return "", refName(name) + " does not name an environment variable mcphost can expand"
		}
		if !expands {
			return "", fmt.Sprintf("mcphost does not expand variables in %s, and ${env:%s} cannot be resolved now", field, v)
		}
		r.im.convertf("${env:%s} → ${%s}", v, v)
		return "${" + v + "}", ""
	case name == "workspaceFolder" || name == "workspaceRoot" || name == "workspaceFolderBasename":
		if r.env.WorkDir == "" {
			return "", "${" + name + "} needs a project directory"
		}
		dir := r.env.WorkDir
		if name == "workspaceFolderBasename" {
			dir = filepath.Base(dir)
		}
		r.im.convertf("${%s} → %s", name, dir)
		return lit(dir), ""
	case name == "userHome":
		if r.env.Home == "" {
			return "", "${userHome} needs a home directory"
		}
		r.im.convertf("${userHome} → %s", r.env.Home)
		return lit(r.env.Home), ""
	case name == "pathSeparator" || name == "/":
		return sep, ""
	case strings.HasPrefix(name, "input:") && r.inputs != nil:
		return r.input(field, strings.TrimPrefix(name, "input:"), expands)
	case strings.HasPrefix(name, "file:"):
		return "", "${file:...} (a value read from a file) has no mcphost equivalent: put the value in an environment variable and write ${VAR}"
	}
	return "", refName(name) + " has no mcphost equivalent"
}

// input turns ${input:ID} into a keychain reference (a password) or a
// placeholder that Fill replaces (a plain value).
func (r *entryReader) input(field, id string, expands bool) (string, string) {
	in, ok := r.inputs[id]
	if !ok {
		return "", fmt.Sprintf("refers to input %s, which the file's \"inputs\" does not define", refName("input:"+id))
	}
	if in.Type != "promptString" && in.Type != "pickString" {
		return "", fmt.Sprintf("input %s is of type %q, which mcphost cannot ask for", refName("input:"+id), printableField(in.Type))
	}
	if in.Password {
		if !expands {
			return "", fmt.Sprintf("mcphost does not expand secrets in %s", field)
		}
		name := SecretName(r.source, r.im.Entry.ID, id)
		r.im.addInput(Input{ID: id, Description: in.Description, Password: true, Secret: name})
		r.im.convertf("${input:%s} → ${secret:%s} (a password: kept as an mcphost secret)", id, name)
		return "${secret:" + name + "}", ""
	}
	r.im.addInput(Input{ID: id, Description: in.Description, Default: in.Default, Options: in.Options})
	r.im.convertf("${input:%s}: asked once, written as a plain value", id)
	return Input{ID: id}.placeholder(), ""
}

// convertDollar rewrites Gemini CLI's $VAR and ${VAR} as ${VAR}; any other
// "$" is literal.
func (r *entryReader) convertDollar(field, s string, expands bool) (string, string) {
	return rewriteRefs(s, expands, func(ref string) (string, int, string) {
		name, n := "", 0
		if strings.HasPrefix(ref, "${") {
			if end := strings.IndexByte(ref[2:], '}'); end >= 0 && envName.MatchString(ref[2:2+end]) {
				name, n = ref[2:2+end], end+3
			}
		} else if m := leadingName.FindString(ref[1:]); m != "" {
			name, n = m, len(m)+1
		}
		switch {
		case name == "":
			return "", 0, ""
		case !expands:
			return "", 0, fmt.Sprintf("mcphost does not expand variables in %s, and $%s cannot be resolved now", field, name)
		}
		r.im.convertf("$%s → ${%s} (mcphost refuses to start the server while it is unset)", name, name)
		return "${" + name + "}", n, ""
	})
}

var leadingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)

// escapeDollars makes s literal for mcphost's expansion, changing it only
// if it has to: only "${" and "$$" mean something there.
func escapeDollars(s string) string {
	if strings.Contains(s, "${") || strings.Contains(s, "$$") {
		return escapeEveryDollar(s)
	}
	return s
}

// escapeEveryDollar doubles every "$": safe wherever the text lands in a
// longer value.
func escapeEveryDollar(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// SecretName is the keychain name of a value a server's entry refers to:
// "<server>.<what>.<tag>", where tag is a short hash of source (the path of
// the client file the entry comes from), so that two files, whoever wrote
// them, never name the same secret: a cloned repository's file that
// defines a server "github" with an input "pat" does not get to refer to
// the token the user's own file stored. Letters, digits, ".", "_" and "-"
// (authn's rule); a hash replaces the end of a name over 64 characters.
// The same source, server and input always give the same name.
func SecretName(source, serverID, what string) string {
	var b strings.Builder
	for _, c := range serverID + "." + what {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('-')
		}
	}
	name := b.String()
	src := sha256.Sum256([]byte(source))
	tag := "." + hex.EncodeToString(src[:4])
	if len(name)+len(tag) > 64 {
		sum := sha256.Sum256([]byte(serverID + "\x00" + what))
		name = name[:64-len(tag)-9] + "-" + hex.EncodeToString(sum[:4])
	}
	return name + tag
}

// keepSecret writes a secret the client's file held in clear as a keychain
// reference, and records the value to store.
func (r *entryReader) keepSecret(what, value string) string {
	name := SecretName(r.source, r.im.Entry.ID, what)
	r.im.addInput(Input{Description: fmt.Sprintf("%s of server %s", what, r.im.Entry.ID), Password: true, Secret: name, Value: value})
	r.im.convertf("%s: kept as the mcphost secret %s, referenced as ${secret:%s}", what, name, name)
	return "${secret:" + name + "}"
}

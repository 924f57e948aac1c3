package clientconf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcphost/mcphost/internal/termtext"
)

// entryObj is a JSON object (or TOML table) whose keys keep the order they
// are written in. Values are string, []string or entryObj.
type entryObj []entryField

type entryField struct {
	key   string
	value any
}

// generic is the entry as encoding/json (with UseNumber) and the TOML
// parser decode it, to compare with what a file holds.
func (o entryObj) generic() map[string]any {
	m := make(map[string]any, len(o))
	for _, f := range o {
		switch v := f.value.(type) {
		case string:
			m[f.key] = v
		case []string:
			a := make([]any, len(v))
			for i, s := range v {
				a[i] = s
			}
			m[f.key] = a
		case entryObj:
			m[f.key] = v.generic()
		}
	}
	return m
}

// quote writes s as a JSON string, which is also a valid TOML basic
// string: the escapes Go emits (\" \\ \n \t \uXXXX ...) are TOML's too.
func jsonQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// lineEnding is the line ending a file uses: "\r\n" if it has any, else
// "\n".
func lineEnding(src []byte) string {
	if bytes.Contains(src, []byte("\r\n")) {
		return "\r\n"
	}
	return "\n"
}

// memberStyle is how the members around an insertion are laid out.
type memberStyle struct {
	pretty bool   // one member per line
	spaced bool   // a space after ':' and ',' (when not pretty)
	unit   string // one level of indentation
	nl     string // "\n" or "\r\n"
}

// member renders `"key": value` whose line is indented by ind.
func (st memberStyle) member(key string, v any, ind string) string {
	return jsonQuote(key) + st.colon() + st.value(v, ind)
}

func (st memberStyle) colon() string {
	if st.pretty || st.spaced {
		return ": "
	}
	return ":"
}

func (st memberStyle) value(v any, ind string) string {
	switch v := v.(type) {
	case string:
		return jsonQuote(v)
	case []string:
		sep := ","
		if st.pretty || st.spaced {
			sep = ", "
		}
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = jsonQuote(s)
		}
		return "[" + strings.Join(parts, sep) + "]"
	case entryObj:
		if len(v) == 0 {
			return "{}"
		}
		var b strings.Builder
		b.WriteString("{")
		for i, f := range v {
			if i > 0 {
				b.WriteString(",")
			}
			switch {
			case st.pretty:
				b.WriteString(st.nl + ind + st.unit)
			case st.spaced && i > 0:
				b.WriteString(" ")
			}
			b.WriteString(st.member(f.key, f.value, ind+st.unit))
		}
		if st.pretty {
			b.WriteString(st.nl + ind)
		}
		b.WriteString("}")
		return b.String()
	}
	return "null"
}

// tomlTable renders [container.name] with the entry's keys, one per line.
func tomlTable(container, name string, o entryObj, nl string) string {
	var b strings.Builder
	b.WriteString("[" + container + "." + name + "]" + nl)
	for _, f := range o {
		b.WriteString(tomlKey(f.key) + " = " + tomlValue(f.value) + nl)
	}
	return b.String()
}

func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return jsonQuote(v)
	case []string:
		parts := make([]string, len(v))
		for i, s := range v {
			parts[i] = jsonQuote(s)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case entryObj:
		if len(v) == 0 {
			return "{}"
		}
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = tomlKey(f.key) + " = " + tomlValue(f.value)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return `""`
}

func tomlKey(k string) string {
	if k != "" && strings.Trim(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == "" {
		return k
	}
	return jsonQuote(k)
}

// Diff shows the change of the entry alone, never the rest of the file:
// the lines removed ("- ") and added ("+ "). An entry being replaced or
// removed is shown with every value but its command, type and arguments
// masked, since it may hold a token. Each line is escaped (termtext.Line):
// the entry's keys and values come from the client's file.
func (c *Change) Diff() string {
	var b strings.Builder
	write := func(sign, text string) {
		for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
			b.WriteString(sign + " " + termtext.Line(line) + "\n")
		}
	}
	if c.oldEntry != nil {
		write("-", c.render(fromGeneric(maskEntry(c.oldEntry))))
	}
	if c.newEntry != nil && (c.Action == ActionAdd || c.Action == ActionReplace) {
		write("+", c.render(c.newEntry))
	}
	return b.String()
}

func (c *Change) render(o entryObj) string {
	if c.Format == FormatTOML {
		return tomlTable(c.Container, c.Name, o, "\n")
	}
	st := memberStyle{pretty: true, unit: "  ", nl: "\n"}
	return st.member(c.Name, o, "")
}

// Summary says in a few words what the change does.
func (c *Change) Summary() string {
	switch c.Action {
	case ActionAdd:
		return fmt.Sprintf("add %q to %s", c.Name, c.Container)
	case ActionReplace:
		return fmt.Sprintf("replace %q in %s", c.Name, c.Container)
	case ActionRemove:
		return fmt.Sprintf("remove %q from %s", c.Name, c.Container)
	}
	return fmt.Sprintf("%q is %s", c.Name, c.Note)
}

// fromGeneric turns a decoded entry into an entryObj for display, its keys
// in a stable order (command, type and args first).
func fromGeneric(v any) entryObj {
	m, ok := v.(map[string]any)
	if !ok {
		return entryObj{{"(entry)", displayValue(v)}}
	}
	rank := func(k string) int {
		switch k {
		case "type":
			return 0
		case "command":
			return 1
		case "args":
			return 2
		}
		return 3
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if ri, rj := rank(keys[i]), rank(keys[j]); ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	o := make(entryObj, 0, len(keys))
	for _, k := range keys {
		o = append(o, entryField{k, displayValue(m[k])})
	}
	return o
}

func displayValue(v any) any {
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		return fromGeneric(v)
	case []any:
		a := make([]string, len(v))
		for i, e := range v {
			if s, ok := e.(string); ok {
				a[i] = s
			} else {
				a[i] = fmt.Sprint(e)
			}
		}
		return a
	}
	return fmt.Sprint(v)
}

const maskedValue = "****"

// mask hides an entry's values that may be secrets: everything but the
// command, type, working directory and the arguments, and of the
// arguments, those that follow (or are) a --token/--key/--secret/--password
// style flag.
func maskEntry(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return maskedValue
	}
	out := make(map[string]any, len(m))
	for k, val := range m {
		switch k {
		case "command", "type", "cwd":
			if s, ok := val.(string); ok {
				out[k] = s
				continue
			}
			out[k] = maskedValue
		case "args":
			out[k] = maskArgs(val)
		default:
			out[k] = maskAll(val)
		}
	}
	return out
}

func maskAll(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = maskAll(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = maskAll(e)
		}
		return out
	}
	return maskedValue
}

func maskArgs(v any) any {
	args, ok := v.([]any)
	if !ok {
		return maskedValue
	}
	out := make([]any, len(args))
	hideNext := false
	for i, a := range args {
		s, ok := a.(string)
		switch {
		case !ok || hideNext:
			out[i] = maskedValue
			hideNext = false
		case secretFlag(s):
			if k, _, found := strings.Cut(s, "="); found {
				out[i] = k + "=" + maskedValue
			} else {
				out[i] = s
				hideNext = true
			}
		default:
			out[i] = maskSecretWord(s)
		}
	}
	return out
}

// maskSecretWord masks what an argument that is not a flag gives away by
// its own shape: NAME=VALUE where NAME names a secret (API_KEY=...), and
// a credential with its scheme (Bearer ..., Authorization: Basic ...).
func maskSecretWord(s string) string {
	if k, _, found := strings.Cut(s, "="); found && k != "" && !strings.ContainsAny(k, " :/") && secretName(k) {
		return k + "=" + maskedValue
	}
	lower := strings.ToLower(s)
	for _, scheme := range []string{"bearer ", "basic ", "token "} {
		if i := strings.Index(lower, scheme); i >= 0 && (i == 0 || strings.HasPrefix(strings.TrimSpace(lower[:i]), "authorization:")) {
			return s[:i+len(scheme)] + maskedValue
		}
	}
	return s
}

func secretFlag(s string) bool {
	if !strings.HasPrefix(s, "-") {
		return false
	}
	k, _, _ := strings.Cut(s, "=")
	return secretName(k) || strings.Contains(strings.ToLower(k), "header")
}

// secretName reports whether a flag or variable name names a secret:
// --api-key, --token, GITHUB_PAT, DB_PASSWORD.
func secretName(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"token", "key", "secret", "password", "passwd", "auth", "credential", "cookie", "bearer"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	// "pat" (a personal access token) only as a word of its own: not in
	// --path or --pattern.
	for _, part := range strings.FieldsFunc(k, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if part == "pat" {
			return true
		}
	}
	return false
}

package policyengines

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Shell is the rule as a command hook, the way hosts with shell hooks run
// policies: per decision one /bin/sh process gets the request as one line
// of JSON on stdin and prints a JSON decision.
//
// The script uses only shell built-ins (read, parameter expansion, case,
// echo), so a decision costs exactly one process; a hook that parsed the
// JSON properly would pipe it through jq, a second process. Its parsing
// trusts the order and form of the host's JSON (server, tool and name come
// first; the first "annotations" object is the tool's): good enough for
// timing, not a security boundary, since arguments could fake an
// "annotations" key.
type Shell struct {
	script string
}

// NewShell writes the hook's script for an allow value.
func NewShell(allow string) (*Shell, error) {
	globs, err := Globs(allow)
	if err != nil {
		return nil, err
	}
	// The globs become one case pattern. In a case pattern '*' and '?'
	// also match '/', so a name with a '/' is never matched, which is
	// path.Match's answer for any glob without a '/' of its own (a glob
	// with one is refused).
	pats := make([]string, len(globs))
	for i, g := range globs {
		if strings.Contains(g, "/") {
			return nil, fmt.Errorf("shell: glob %q: '/' is not supported", g)
		}
		pats[i] = shellPattern(g)
	}
	allowCase := ""
	if len(pats) > 0 {
		allowCase = "\n\t" + strings.Join(pats, "|") + `) echo '{"decision":"allow","reason":"allow list"}'; exit 0 ;;`
	}
	script := `IFS= read -r in
s=${in#*'"server":"'}; s=${s%%'"'*}
t=${in#*'"tool":"'}; t=${t%%'"'*}
n=${in#*'"name":"'}; n=${n%%'"'*}
case $in in
*'"annotations":{'*)
	a=${in#*'"annotations":{'}; a=${a%%'}'*}
	case $a in
	*'"readOnlyHint":true'*) echo '{"decision":"allow","reason":"read-only"}'; exit 0 ;;
	esac ;;
esac
for x in "$n" "$s:$t"; do
	case $x in
	*/*) ;;` + allowCase + `
	esac
done
echo '{"decision":"deny","reason":"not read-only and not in the allow list"}'
`
	return &Shell{script: script}, nil
}

// shellPattern quotes a glob's literal runs with single quotes, leaving
// '*' and '?' as the pattern's wildcards.
func shellPattern(g string) string {
	var b strings.Builder
	lit := false
	for _, r := range g {
		if r == '*' || r == '?' {
			if lit {
				b.WriteByte('\'')
				lit = false
			}
			b.WriteRune(r)
			continue
		}
		if !lit {
			b.WriteByte('\'')
			lit = true
		}
		if r == '\'' {
			b.WriteString(`'\''`)
			continue
		}
		b.WriteRune(r)
	}
	if lit {
		b.WriteByte('\'')
	}
	if b.Len() == 0 {
		return "''"
	}
	return b.String()
}

// Script is the hook's shell script.
func (s *Shell) Script() string { return s.script }

// Decide implements Decider.
func (s *Shell) Decide(ctx context.Context, req *abi.PolicyRequest) (abi.Decision, error) {
	in, err := json.Marshal(req)
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", s.script)
	cmd.Stdin = bytes.NewReader(append(in, '\n'))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("shell hook: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	var d abi.PolicyDecision
	if err := json.Unmarshal(out, &d); err != nil {
		return "", fmt.Errorf("shell hook: %w: %q", err, out)
	}
	return d.Decision, nil
}

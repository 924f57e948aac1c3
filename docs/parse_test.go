package docs_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// step is one thing a doc asks the reader to do, in order.
type step struct {
	where string // file:line, for failures
	// Exactly one of these is set.
	command string  // shell text to run
	file    *wrFile // a file to write
	skip    string  // a block not run, and why
	start   string  // run in the background until its output holds this
	want    []string
	check   bool // want is checked (a console command followed by output)
	exit    int  // the exit status the command must give
}

type wrFile struct {
	path, content string
}

var (
	directive = regexp.MustCompile(`^<!--\s*doc:\s*(.*?)\s*-->$`)
	exitNote  = regexp.MustCompile(`\s+#\s*exit\s+(\d+)\s*$`)
)

func isShell(lang string) bool {
	switch lang {
	case "sh", "bash", "shell", "console", "shell-session":
		return true
	}
	return false
}

// otherShell: shell code the examples cannot run in bash; such a block
// says why it is not run.
func otherShell(lang string) bool {
	switch lang {
	case "zsh", "fish", "powershell", "pwsh", "ps1", "bat", "cmd":
		return true
	}
	return false
}

// parseDoc turns a markdown file into its steps. It fails on a directive
// it does not know, so a typo never turns a check off.
func parseDoc(name, text string) ([]step, error) {
	lines := strings.Split(text, "\n")
	var steps []step
	pending := "" // the directive before the next fence
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], " \t")
		if m := directive.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			pending = m[1]
			continue
		}
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		if !strings.HasPrefix(trimmed, "```") {
			if trimmed != "" {
				pending = ""
			}
			continue
		}
		lang, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), " ")
		start := i + 1
		var body []string
		for i++; i < len(lines); i++ {
			l := lines[i]
			if strings.TrimSpace(l) == "```" {
				break
			}
			if len(l) >= indent {
				l = l[indent:]
			}
			body = append(body, l)
		}
		where := fmt.Sprintf("%s:%d", name, start)
		d := pending
		pending = ""
		switch {
		case strings.HasPrefix(d, "file "):
			steps = append(steps, step{where: where, file: &wrFile{path: strings.TrimSpace(d[5:]), content: strings.Join(body, "\n") + "\n"}})
			continue
		case strings.HasPrefix(d, "not run:"):
			if strings.TrimSpace(d[8:]) == "" {
				return nil, fmt.Errorf("%s: \"not run\" needs a reason", where)
			}
			steps = append(steps, step{where: where, skip: strings.TrimSpace(d[8:])})
			continue
		case strings.HasPrefix(d, "start, wait for "):
			until, err := strconv.Unquote(strings.TrimSpace(strings.TrimPrefix(d, "start, wait for ")))
			if err != nil || until == "" || lang != "console" {
				return nil, fmt.Errorf("%s: write <!-- doc: start, wait for \"TEXT\" --> before a console block", where)
			}
			var cmd []step
			if cmd, err = appendConsole(nil, name, start, body); err != nil {
				return nil, err
			}
			if len(cmd) != 1 {
				return nil, fmt.Errorf("%s: a block started in the background holds one command", where)
			}
			cmd[0].start = until
			steps = append(steps, cmd[0])
			continue
		case d != "":
			return nil, fmt.Errorf("%s: unknown directive %q (file PATH; not run: REASON; start, wait for \"TEXT\")", where, d)
		case lang == "":
			return nil, fmt.Errorf("%s: a block without a language: label it (console, sh, yaml, text, ...) so the test knows whether to run it", where)
		case otherShell(lang):
			return nil, fmt.Errorf("%s: %s cannot run in the examples' bash: mark it <!-- doc: not run: REASON -->", where, lang)
		}
		if !isShell(lang) {
			for _, l := range body {
				if strings.HasPrefix(l, "$ ") {
					return nil, fmt.Errorf("%s: a %q block holds a \"$ \" command: label it console (or mark it <!-- doc: not run: REASON -->)", where, lang)
				}
			}
			continue
		}
		var err error
		if lang == "console" || lang == "shell-session" {
			steps, err = appendConsole(steps, name, start, body)
		} else {
			steps, err = appendScript(steps, name, start, body)
		}
		if err != nil {
			return nil, err
		}
	}
	return steps, nil
}

// joinContinued gathers a command's continuation lines (ending in "\").
func joinContinued(body []string, i int) (string, int) {
	cmd := body[i]
	for strings.HasSuffix(cmd, "\\") && i+1 < len(body) {
		i++
		cmd += "\n" + body[i]
	}
	return cmd, i
}

func commandStep(where, cmd string) (step, error) {
	s := step{where: where, command: cmd}
	if m := exitNote.FindStringSubmatch(cmd); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return s, fmt.Errorf("%s: exit status %q", where, m[1])
		}
		s.exit = n
	}
	return s, nil
}

func appendConsole(steps []step, name string, start int, body []string) ([]step, error) {
	var cur *step
	for i := 0; i < len(body); i++ {
		l := body[i]
		if strings.HasPrefix(l, "$ ") {
			var cmd string
			cmd, i = joinContinued(body, i)
			s, err := commandStep(fmt.Sprintf("%s:%d", name, start+i), strings.TrimPrefix(cmd, "$ "))
			if err != nil {
				return nil, err
			}
			s.check = true // no output shown: it prints nothing ("..." leaves it unchecked)
			steps = append(steps, s)
			cur = &steps[len(steps)-1]
			continue
		}
		if cur == nil {
			if strings.TrimSpace(l) == "" {
				continue
			}
			return nil, fmt.Errorf("%s:%d: output before any \"$ \" command", name, start+i)
		}
		cur.want = append(cur.want, l)
	}
	for i := range steps {
		for len(steps[i].want) > 0 && strings.TrimSpace(steps[i].want[len(steps[i].want)-1]) == "" {
			steps[i].want = steps[i].want[:len(steps[i].want)-1]
		}
	}
	return steps, nil
}

func appendScript(steps []step, name string, start int, body []string) ([]step, error) {
	for i := 0; i < len(body); i++ {
		t := strings.TrimSpace(body[i])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		var cmd string
		cmd, i = joinContinued(body, i)
		s, err := commandStep(fmt.Sprintf("%s:%d", name, start+i), cmd)
		if err != nil {
			return nil, err
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// matchOutput says whether got is what want describes: "..." lines stand
// for any lines, "[...]" for any text within a line; trailing spaces and
// trailing blank lines do not count.
func matchOutput(want, got []string) bool {
	res := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		if strings.TrimSpace(w) == "..." {
			continue
		}
		parts := strings.Split(strings.TrimRight(w, " \t"), "[...]")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		res[i] = regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	}
	var match func(wi, gi int) bool
	match = func(wi, gi int) bool {
		if wi == len(want) {
			return gi == len(got)
		}
		if res[wi] == nil {
			for k := gi; k <= len(got); k++ {
				if match(wi+1, k) {
					return true
				}
			}
			return false
		}
		return gi < len(got) && res[wi].MatchString(strings.TrimRight(got[gi], " \t")) && match(wi+1, gi+1)
	}
	return match(0, 0)
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/term"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/internal/termtext"
)

// inputKey names one VS Code input of one client file: it is asked for
// once, whichever servers use it.
type inputKey struct{ file, id string }

// importAnswers are the values the servers of an import need.
type importAnswers struct {
	plain   map[inputKey]string // answers to plain inputs
	secrets map[string]string   // secret name -> value to store
}

// plainFor are the answers to s's plain inputs, by input ID.
func (ans *importAnswers) plainFor(s *importedServer) map[string]string {
	m := map[string]string{}
	for _, in := range s.im.Inputs {
		if v, ok := ans.plain[inputKey{s.from, in.ID}]; ok && in.Secret == "" {
			m[in.ID] = v
		}
	}
	return m
}

// store keeps s's secrets (those that were answered) in the store that
// open opens, if there is anything to keep. A name the store holds already
// is written over only as the plan said (s.replaces); one that is not
// answered then is an error: the entry would refer to a value this import
// did not store.
func (ans *importAnswers) store(s *importedServer, open func() (authn.SecretStore, error)) error {
	for _, in := range s.im.Inputs {
		if in.Secret == "" || s.same[in.Secret] {
			continue
		}
		v, ok := ans.secrets[in.Secret]
		if !ok {
			if slices.Contains(s.replaces, in.Secret) {
				return fmt.Errorf("nothing was typed for %s, which mcphost already holds as a secret: the entry would send that value to this server", in.Secret)
			}
			continue
		}
		store, err := open()
		if err != nil {
			return err
		}
		if err := store.SetSecret(in.Secret, v); err != nil {
			return fmt.Errorf("keeping the secret %s: %w", in.Secret, err)
		}
	}
	return nil
}

// question is one input to ask for.
type question struct {
	key      inputKey
	label    string
	password bool
	def      string
	options  []string
	secrets  []string // the secret names a password goes to
	files    []string // the files a plain answer is written into
	servers  []string
}

// collectInputs gathers what the servers need: secrets their client's file
// held in clear, and the answers to VS Code inputs, asked once each on the
// terminal (a password without echo). With skip nothing is asked: plain
// inputs take their default, and the secrets to store later are named.
func (a *app) collectInputs(ctx context.Context, servers []*importedServer, skip bool) (*importAnswers, error) {
	ans := &importAnswers{plain: map[inputKey]string{}, secrets: map[string]string{}}
	var questions []*question
	byKey := map[inputKey]*question{}
	for _, s := range servers {
		for _, in := range s.im.Inputs {
			if in.Value != "" {
				ans.secrets[in.Secret] = in.Value
				continue
			}
			key := inputKey{s.from, in.ID}
			q := byKey[key]
			if q == nil {
				label := in.Description
				if label == "" {
					label = "input " + in.ID
				}
				q = &question{key: key, label: label, password: in.Password, def: in.Default, options: in.Options}
				byKey[key] = q
				questions = append(questions, q)
			}
			q.servers = append(q.servers, s.im.Entry.ID)
			if in.Secret != "" {
				q.secrets = append(q.secrets, in.Secret)
			} else if !slices.Contains(q.files, s.file) {
				q.files = append(q.files, s.file)
			}
		}
	}
	var later []string
	for _, q := range questions {
		if q.password {
			later = append(later, q.secrets...)
		}
	}
	if len(questions) == 0 {
		return ans, nil
	}
	if skip {
		if len(later) > 0 {
			fmt.Fprintf(a.stderr, "not asked (--skip-inputs), nothing stored: the servers refer to secrets that stay empty (the server does not start) until you store each, the value on standard input: mcphost secret set %s\n", strings.Join(later, "; mcphost secret set "))
		}
		return ans, nil
	}
	if !a.isTerminal(a.stdin) || !a.isTerminal(a.stderr) {
		var what []string
		for _, q := range questions {
			what = append(what, fmt.Sprintf("%s (for %s)", termtext.Line(q.label), strings.Join(q.servers, ", ")))
		}
		msg := fmt.Sprintf("the servers need inputs that are asked for on a terminal, and there is none: %s.\nRun the command on a terminal, or pass --skip-inputs", strings.Join(what, "; "))
		if len(later) > 0 {
			msg += fmt.Sprintf(" and then store the secrets with \"mcphost secret set NAME\": %s", strings.Join(later, ", "))
		}
		return nil, usageError("%s", msg)
	}
	lines := bufio.NewReader(io.LimitReader(a.stdin, int64(len(questions))*(maxSecretBytes+1)))
	for _, q := range questions {
		prompt := fmt.Sprintf("%s (for %s)", termtext.Line(q.label), strings.Join(q.servers, ", "))
		if len(q.options) > 0 {
			prompt += fmt.Sprintf(" [one of %s]", termtext.Line(strings.Join(q.options, ", ")))
		}
		if q.def != "" {
			prompt += fmt.Sprintf(" [default %s]", termtext.Line(q.def))
		}
		if q.password {
			prompt += fmt.Sprintf(" (not shown; kept as the secret %s)", strings.Join(q.secrets, " and "))
		} else {
			prompt += fmt.Sprintf(" (written in clear into %s)", termtext.Line(strings.Join(q.files, " and ")))
		}
		fmt.Fprint(a.stderr, prompt+": ")
		v, err := a.readAnswer(ctx, lines, q.password)
		if err != nil {
			return nil, err
		}
		switch {
		case q.password && v == "":
			fmt.Fprintf(a.stderr, "nothing stored: store it later with \"mcphost secret set %s\"\n", strings.Join(q.secrets, "\" and \"mcphost secret set "))
		case q.password:
			for _, name := range q.secrets {
				ans.secrets[name] = v
			}
		case v != "":
			ans.plain[q.key] = v
		}
	}
	return ans, nil
}

// readAnswer reads one answer: a password from a terminal without echo,
// anything else as one line. Ctrl-C ends the wait (and gives the terminal
// its echo back).
func (a *app) readAnswer(ctx context.Context, lines *bufio.Reader, password bool) (string, error) {
	type answer struct {
		s   string
		err error
	}
	ch := make(chan answer, 1)
	if f, ok := a.stdin.(*os.File); ok && password && term.IsTerminal(int(f.Fd())) {
		fd := int(f.Fd())
		state, err := term.GetState(fd)
		if err != nil {
			return "", fmt.Errorf("reading a password: %w", err)
		}
		go func() {
			b, err := term.ReadPassword(fd)
			ch <- answer{string(b), err}
		}()
		select {
		case r := <-ch:
			fmt.Fprintln(a.stderr)
			if len(r.s) > maxSecretBytes {
				return "", usageError("more than %d bytes typed for one answer", maxSecretBytes)
			}
			return r.s, r.err
		case <-ctx.Done():
			_ = term.Restore(fd, state)
			fmt.Fprintln(a.stderr)
			return "", ctx.Err()
		}
	}
	go func() {
		line, err := lines.ReadString('\n')
		if err == io.EOF && line != "" {
			err = nil
		}
		ch <- answer{line, err}
	}()
	select {
	case r := <-ch:
		if r.err == io.EOF {
			return "", usageError("standard input ended before every input was answered")
		}
		if len(r.s) > maxSecretBytes {
			return "", usageError("more than %d bytes given for one answer", maxSecretBytes)
		}
		return strings.TrimRight(r.s, "\r\n"), r.err
	case <-ctx.Done():
		fmt.Fprintln(a.stderr)
		return "", ctx.Err()
	}
}

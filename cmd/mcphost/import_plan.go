package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/clientconf"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/termtext"
)

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

// planImport finds each server's target file, whether its id is taken
// there (or by another server of this import), and whether it may be
// written at all (checkImported).
func (a *app) planImport(servers []*importedServer, force, dryRun, skipInputs bool) error {
	opts := a.loadOptions()
	files := map[config.Scope]string{}
	taken := map[string]string{} // scope/id -> client file
	held := heldSecrets{}
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
		scopes, scopeFiles, err := config.ServerScopes(opts, s.im.Entry.ID)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		exists := false
		for i, sc := range scopes {
			exists = exists || sc == s.scope
			if sc == config.ScopeUser && s.scope == config.ScopeLocal && i < len(scopeFiles) {
				s.shadows = scopeFiles[i]
			}
		}
		// The administrator's rule before a conflict: --force would not
		// help, and nothing is asked for an entry that is refused.
		reason, err := config.BlockedEntry(opts, s.scope, s.im.Entry)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if reason != "" {
			s.status, s.err = statusFailed, errors.New(reason)
			continue
		}
		if exists && !force {
			s.status = statusConflict
			continue
		}
		if s.err = a.checkImported(s, skipInputs, held); s.err != nil {
			s.status = statusFailed
			continue
		}
		switch {
		case exists:
			s.status = map[bool]string{true: statusReplace, false: statusReplaced}[dryRun]
		default:
			s.status = map[bool]string{true: statusAdd, false: statusAdded}[dryRun]
		}
	}
	return nil
}

// checkImported says why s may not be written, if it may not:
//   - into the shared project file, an entry that refers to the user's
//     keychain, or (unless --skip-inputs writes the file's own defaults)
//     that asks for a value the user would type;
//   - an entry that refers to a keychain name that holds a value already,
//     unless the import stores that name's value now (replacing it is in
//     the plan, which the user confirms: s.replaces).
func (a *app) checkImported(s *importedServer, skipInputs bool, secrets heldSecrets) error {
	if s.scope == config.ScopeProject {
		if s.im.UsesKeychain() {
			return errors.New("it refers to a secret of your keychain, which a shared project file may not: read its command, then import it with --scope local (or --scope user), which runs it without \"mcphost trust\"")
		}
		if len(s.im.Inputs) > 0 && !skipInputs {
			in := s.im.Inputs[0]
			return fmt.Errorf("it asks for input %s (%s), and the answer would be written in clear into the shared project file: read its command, then use --scope local, where the answer stays yours, or pass --skip-inputs to write the input's default instead",
				in.ID, termtext.Line(in.Description))
		}
	}
	s.replaces, s.same = nil, map[string]bool{}
	for _, in := range s.im.Inputs {
		if in.Secret == "" {
			continue
		}
		held, err := secrets.lookup(a, in.Secret)
		if err != nil {
			return fmt.Errorf("cannot tell whether a secret named %s is stored already (the entry must not refer to one the import does not store): %w", in.Secret, err)
		}
		switch {
		case held == nil:
		case in.Value != "" && in.Value == *held:
			s.same[in.Secret] = true
		case in.Value == "" && skipInputs:
			return fmt.Errorf("mcphost already holds a secret named %s, and with --skip-inputs nothing is stored under it: the entry would send that value to this server. Import it on a terminal without --skip-inputs to type the value, or, if that secret is not yours to keep, delete it first (mcphost secret delete %s)", in.Secret, in.Secret)
		default:
			s.replaces = append(s.replaces, in.Secret)
		}
	}
	return nil
}

// heldSecrets is what the secret store holds under the names looked up,
// each read once (nil: nothing). It only reads: even --skip-inputs looks,
// so that an entry never refers to a value the import did not store.
type heldSecrets map[string]*string

func (c heldSecrets) lookup(a *app, name string) (*string, error) {
	if v, ok := c[name]; ok {
		return v, nil
	}
	store, err := a.secretStoreOf()
	if err != nil {
		return nil, err
	}
	v, err := store.Secret(name)
	switch {
	case errors.Is(err, authn.ErrNoSecret):
		c[name] = nil
		return nil, nil
	case err != nil:
		return nil, err
	}
	c[name] = &v
	return &v, nil
}

// confirmImport asks, on the terminal, whether to write what the plan
// shows (with --json, the plan is shown on standard error first). --yes
// writes without asking; without a terminal, the import is refused.
func (a *app) confirmImport(ctx context.Context, results []*clientconf.Result, servers []*importedServer, asJSON, skipInputs bool) error {
	seen := map[string]bool{}
	var files []string
	for _, s := range servers {
		if (s.status == statusAdded || s.status == statusReplaced) && !seen[s.file] {
			seen[s.file] = true
			files = append(files, termtext.Line(s.file))
		}
	}
	if len(files) == 0 || a.yes {
		return nil
	}
	if asJSON && a.isTerminal(a.stdin) && a.isTerminal(a.stderr) {
		a.printImportPlan(a.stderr, results, servers, skipInputs)
	}
	sort.Strings(files)
	ok, err := a.askWrite(ctx, strings.Join(files, " and "))
	if err != nil {
		return err
	}
	if !ok {
		return &exitError{code: exitFailure, err: errors.New("not confirmed: nothing was imported, nothing stored")}
	}
	return nil
}

// confirmSecretReplace asks before a value is stored over one the secret
// store holds (add-json, which has no plan to confirm); --yes replaces
// without asking.
func (a *app) confirmSecretReplace(ctx context.Context, names []string) error {
	if len(names) == 0 || a.yes {
		return nil
	}
	what := "the value stored as the secret " + strings.Join(names, " and ")
	if !a.isTerminal(a.stdin) || !a.isTerminal(a.stderr) {
		return usageError("%s would be replaced, and there is no terminal to confirm on: pass --yes to replace it", what)
	}
	fmt.Fprintf(a.stderr, "mcphost already holds the secret %s; ", strings.Join(names, " and "))
	ok, err := a.askWrite(ctx, "over it")
	if err != nil {
		return err
	}
	if !ok {
		return &exitError{code: exitFailure, err: fmt.Errorf("not confirmed: nothing written, %s kept", what)}
	}
	return nil
}

// printImportPlan shows, file by file, what the import does with each
// server. Everything from a client's file is escaped to one line.
func (a *app) printImportPlan(w io.Writer, results []*clientconf.Result, servers []*importedServer, skipInputs bool) {
	for _, res := range results {
		fmt.Fprintf(w, "%s (%s):\n", termtext.Line(res.Path), res.Kind)
		n := 0
		for _, s := range servers {
			if s.from != res.Path {
				continue
			}
			n++
			a.printPlannedServer(w, s, skipInputs)
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

func (a *app) printPlannedServer(w io.Writer, s *importedServer, skipInputs bool) {
	mark := map[string]string{statusAdd: "+", statusAdded: "+", statusReplace: "~", statusReplaced: "~"}[s.status]
	if mark == "" {
		mark = "!"
	}
	e := s.im.Entry
	file := termtext.Line(s.file)
	fmt.Fprintf(w, "  %s %s  %s %s  → %s scope (%s)\n", mark, e.ID, transportOf(e), entryTarget(e, a.showSecrets), s.scope, file)
	if e.Cwd != "" {
		fmt.Fprintf(w, "      cwd: %s\n", planQuote(e.Cwd))
	}
	if len(e.Env) > 0 {
		names := make([]string, 0, len(e.Env))
		for k, v := range masked(e.Env, a.showSecrets) {
			names = append(names, planQuote(k)+"="+planQuote(v))
		}
		sort.Strings(names)
		fmt.Fprintf(w, "      env: %s\n", strings.Join(names, " "))
	}
	if e.EnvFile != "" {
		fmt.Fprintf(w, "      env_file: %s\n", planQuote(e.EnvFile))
	}
	for _, c := range s.im.Converted {
		fmt.Fprintf(w, "      converted: %s\n", termtext.Line(c))
	}
	for _, d := range s.im.Dropped {
		fmt.Fprintf(w, "      dropped %s: %s\n", termtext.Line(d.Field), termtext.Line(d.Reason))
	}
	replaces := map[string]bool{}
	for _, name := range s.replaces {
		replaces[name] = true
	}
	for _, in := range s.im.Inputs {
		held := ""
		switch {
		case s.same[in.Secret]:
			held = " (it holds this value already)"
		case replaces[in.Secret]:
			held = " (REPLACING the value it holds now)"
		}
		switch {
		case in.Value != "":
			fmt.Fprintf(w, "      secret: %s, to keep (mcphost secret)%s\n", in.Secret, held)
		case in.Password && skipInputs:
			fmt.Fprintf(w, "      input %s (%s): not asked (--skip-inputs), nothing stored: the entry refers to ${secret:%s}, which you store later with \"mcphost secret set %s\"\n", termtext.Line(in.ID), termtext.Line(in.Description), in.Secret, in.Secret)
		case in.Password:
			fmt.Fprintf(w, "      input %s (%s): asked once, kept as the secret %s%s\n", termtext.Line(in.ID), termtext.Line(in.Description), in.Secret, held)
		case skipInputs:
			fmt.Fprintf(w, "      input %s (%s): not asked (--skip-inputs): its default %s is written into %s\n", termtext.Line(in.ID), termtext.Line(in.Description), planQuote(in.Default), file)
		case s.scope == config.ScopeProject:
			fmt.Fprintf(w, "      input %s (%s): its answer would be written in clear into the shared %s\n", termtext.Line(in.ID), termtext.Line(in.Description), file)
		default:
			fmt.Fprintf(w, "      input %s (%s): asked once, the answer written in clear into %s\n", termtext.Line(in.ID), termtext.Line(in.Description), file)
		}
	}
	if s.shadows != "" {
		fmt.Fprintf(w, "      note: your user scope has a server %q too (%s): in this directory, this one runs in its place\n", e.ID, termtext.Line(s.shadows))
	}
	switch s.status {
	case statusConflict:
		fmt.Fprintf(w, "      conflict: %s already has a server %q: not replaced (pass --force to replace it)\n", file, e.ID)
	case statusReplace, statusReplaced:
		fmt.Fprintf(w, "      replaces the server %q of %s (--force)\n", e.ID, file)
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

// entryTarget is what an entry runs, in full, or where it is, for the
// plan: every argument shell-quoted with its control characters visible,
// the value of a secret's flag (--token, --api-key) masked unless show.
func entryTarget(e config.ServerEntry, show bool) string {
	if e.Command != "" {
		args := e.Args
		if !show {
			args = clientconf.MaskSecretArgs(args)
		}
		words := make([]string, 0, 1+len(args))
		for _, w := range append([]string{e.Command}, args...) {
			words = append(words, planQuote(w))
		}
		return strings.Join(words, " ")
	}
	if show {
		return termtext.Line(e.URL)
	}
	return termtext.Line(config.RedactURL(e.URL))
}

// planQuote writes w as a POSIX shell reads it back (shellQuote); one
// with a control character (a newline that would start a line of its own)
// or an invisible one as $'...', the character escaped: \n, \x1b, \u202e.
func planQuote(w string) string {
	if termtext.Safe(w) {
		return shellQuote(w)
	}
	return "$'" + termtext.Line(strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(w)) + "'"
}

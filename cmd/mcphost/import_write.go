package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/internal/termtext"
)

// writeImport asks for the inputs, stores the secrets and writes the
// servers that are to be added or replaced. What it writes comes from a
// file the user did not type: a trusted project whose file gets a server
// is not kept trusted, and the user is told to read it and trust it again.
// The error is for inputs that could not be asked for; then nothing is
// written.
func (a *app) writeImport(cmd *cobra.Command, w io.Writer, servers []*importedServer, force, skipInputs bool) error {
	var todo []*importedServer
	for _, s := range servers {
		if s.status == statusAdded || s.status == statusReplaced {
			todo = append(todo, s)
		}
	}
	answers, err := a.collectInputs(cmd.Context(), todo, skipInputs)
	if err != nil {
		return fmt.Errorf("%w\nnothing was imported", err)
	}
	opts := a.loadOptions()
	trusted := a.projectTrusted()
	written := map[config.Scope]*importedServer{}
	for _, s := range todo {
		if s.err = answers.store(s, a.secretStoreOf); s.err != nil {
			s.status = statusFailed
			continue
		}
		entry := s.im.Fill(answers.plainFor(s))
		if _, s.err = config.AddServerWith(opts, s.scope, entry, config.AddOptions{Replace: force, Untyped: true}); s.err != nil {
			s.status = statusFailed
			continue
		}
		if _, ok := written[s.scope]; !ok {
			written[s.scope] = s
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
	for _, scope := range []config.Scope{config.ScopeProject, config.ScopeLocal, config.ScopeUser} {
		if s := written[scope]; s != nil {
			a.untypedTrustNote(w, s.scope, s.file, s.im.Entry.ID, trusted, w != a.stdout)
		}
	}
	return nil
}

// projectTrusted reports whether the current directory's project is
// trusted, with its files as they are now.
func (a *app) projectTrusted() bool {
	ok, err := config.IsTrusted(a.loadOptions(), "")
	return err == nil && ok
}

// untypedTrustNote follows a write of a server the user did not type (an
// import, add-json) into the file of scope. Into the project file of a
// project that was trusted before, it says that the project must be
// trusted again: such content does not keep it trusted. Otherwise it is
// the usual hint (not with --json, whose standard output is the JSON).
func (a *app) untypedTrustNote(w io.Writer, scope config.Scope, file, id string, wasTrusted, quiet bool) {
	if scope == config.ScopeProject && wasTrusted {
		dir := filepath.Dir(file)
		fmt.Fprintf(w, "note: the project was trusted; what was just written into %s is not, and until it is, none of the project's servers start: read the file, then run \"mcphost trust %s\"\n",
			termtext.Line(file), termtext.Line(shellQuote(dir)))
		return
	}
	if !quiet {
		a.trustHint(scope, id)
	}
}

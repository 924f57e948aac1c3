// Package docs holds mcphost's guides, and the test that runs them.
//
// Every shell example of README.md and of the guides here is run by
// `go test ./docs/` (and so by the test command), in a fresh home directory
// with the mcphost of this checkout on PATH and the pinned npm servers
// behind `npx`. A block is one of:
//
//   - a ```console block: lines starting with "$ " are commands (a line
//     ending in "\" goes on), the lines after a command are its expected
//     output (stdout and stderr as a terminal shows them). A line "..."
//     stands for any lines, "[...]" for any text within a line, and the home
//     directory is written "~". A command followed by no output line must
//     print nothing; one followed by "..." alone is run with its output
//     unchecked. A command ending in "# exit N" must exit with status N,
//     any other with 0;
//   - a ```sh block: every line is a command that must exit with 0, its
//     output not checked;
//   - a block of any kind right after <!-- doc: file PATH -->: written to
//     PATH (relative to the current directory of the example) before the
//     next command runs;
//   - a console block right after <!-- doc: start, wait for "TEXT" -->:
//     its one command runs in the background (as in another terminal, or
//     with a trailing "&") until its output holds TEXT, and is stopped when
//     the file ends;
//   - a block right after <!-- doc: not run: REASON -->: not run; every
//     such block is listed in testdata/not-run.txt, so a new one shows in
//     review;
//   - any other block (yaml, go, text, ...) is not run; a block without a
//     language, or of shell code bash cannot run (zsh, fish, PowerShell)
//     and not marked "not run", is an error.
//
// Commands of one file run in order, in one shell session: `cd` and
// `export` carry over to the next command. 127.0.0.1:8080 stands for a
// free port of the file's own. Configuration examples marked
// <!-- test: FILE --> in configuration.md are also loaded by the tests of
// host/config.
package docs

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
//     directory is written "~". A command followed by no output line is run
//     and must succeed, its output unchecked. A command ending in
//     "# exit N" must exit with status N;
//   - a ```sh block: every line is a command whose output is not checked;
//   - a block of any kind right after <!-- doc: file PATH -->: written to
//     PATH (relative to the current directory of the example) before the
//     next command runs;
//   - a shell block right after <!-- doc: not run: REASON -->: not run, and
//     the test lists it with its reason.
//
// Commands of one file run in order, in one shell session: `cd` and
// `export` carry over to the next command.
package docs

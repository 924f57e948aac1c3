package docs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// managedDir is the administrator's directory as the guides write it.
// A doc that names it runs with an mcphost built to read a directory of
// the doc's own in its place (the build-time setting a packager uses), and
// with a sudo that runs the command as the test's user: the examples
// install files as an administrator would, without touching the machine.
const managedDir = "/etc/mcphost"

const sudoShim = `#!/bin/sh
exec "$@"
`

// managedSession builds that mcphost for the doc name and returns the
// script lines that put it first on PATH.
func managedSession(t *testing.T, name string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	bin, root := filepath.Join(dir, "bin"), filepath.Join(dir, "root")
	for _, d := range []string{bin, filepath.Join(root, "etc")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	buildMcphostIn(t, bin, "-ldflags", "-X github.com/mcphost/mcphost/host/config.defaultManagedDir="+root+managedDir)
	if err := os.WriteFile(filepath.Join(bin, "sudo"), []byte(sudoShim), 0o755); err != nil {
		t.Fatal(err)
	}
	return "docmanaged " + bin + " " + root + "\n"
}

// useManaged: docmanaged BIN ROOT.
func useManaged(ts *testscript.TestScript, _ bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: docmanaged BIN ROOT")
	}
	if strings.ContainsAny(args[0]+args[1], " '\"") {
		ts.Fatalf("docmanaged: a path with spaces or quotes")
	}
	ts.Setenv("PATH", args[0]+string(os.PathListSeparator)+ts.Getenv("PATH"))
	ts.Setenv("DOC_ROOT", args[1])
}

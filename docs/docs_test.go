package docs_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"
)

// binDir holds the mcphost built from this checkout, for every doc.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcphost-docs-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	return m.Run()
}

// repoRoot is the checkout this test runs in.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// docFiles are the files whose examples run: the README and every guide.
func docFiles(t *testing.T) []string {
	t.Helper()
	root := repoRoot(t)
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(guides)
	return append([]string{filepath.Join(root, "README.md")}, guides...)
}

// npmBin is where the pinned npm servers are, or "" (the test skips, and
// fails in CI).
func npmBin(t *testing.T) string {
	bin := os.Getenv("MCPHOST_NPM_BIN")
	if bin == "" {
		bin = filepath.Join(repoRoot(t), "testdata", "npm", "node_modules", ".bin")
	}
	if _, err := os.Stat(filepath.Join(bin, "mcp-server-everything")); err != nil {
		if os.Getenv("CI") != "" || os.Getenv("MCPHOST_REQUIRE_E2E") != "" {
			t.Fatalf("the docs' examples need the npm test servers: %v (run scripts/npm-deps.sh)", err)
		}
		t.Skipf("the docs' examples need the npm test servers (run scripts/npm-deps.sh, then MCPHOST_NPM_BIN=DIR): %v", err)
	}
	return bin
}

func buildMcphost(t *testing.T) {
	t.Helper()
	buildMcphostIn(t, binDir)
}

// buildMcphostIn builds mcphost into dir, with extra go build flags.
func buildMcphostIn(t *testing.T, dir string, flags ...string) {
	t.Helper()
	exe := filepath.Join(dir, "mcphost")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	args := append(append([]string{"build"}, flags...), "-o", exe, "./cmd/mcphost")
	cmd := exec.Command("go", args...)
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/mcphost: %v\n%s", err, out)
	}
}

// TestDocExamples runs every shell example of README.md and docs/*.md as
// the reader would, and checks the output the doc shows.
func TestDocExamples(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the examples are POSIX shell")
	}
	npm := npmBin(t)
	buildMcphost(t)
	scripts := t.TempDir()
	var skipped, notRun []string
	var counts struct{ run, checked, files, started int }
	for _, f := range docFiles(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repoRoot(t), f)
		steps, err := parseDoc(rel, string(text))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			switch {
			case s.skip != "":
				skipped = append(skipped, s.where+": "+s.skip)
				notRun = append(notRun, rel+": "+s.skip)
			case s.file != nil:
				counts.files++
			case s.start != "":
				counts.started++
			default:
				counts.run++
				if s.check {
					counts.checked++
				}
			}
		}
		name := strings.TrimSuffix(strings.ReplaceAll(rel, string(filepath.Separator), "-"), ".md")
		script := scriptOf(steps)
		if strings.Contains(string(text), managedDir) {
			script = append([]byte(managedSession(t, name)), script...)
		}
		if err := os.WriteFile(filepath.Join(scripts, name+".txtar"), script, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range skipped {
		t.Logf("not run: %s", s)
	}
	checkNotRun(t, notRun)
	t.Logf("%d commands (%d with their output checked), %d files written, %d servers started in the background, %d blocks not run", counts.run, counts.checked, counts.files, counts.started, len(skipped))
	testscript.Run(t, testscript.Params{
		Dir:                 scripts,
		RequireExplicitExec: true,
		Setup:               setupDoc(repoRoot(t), npm),
		Cmds: map[string]func(*testscript.TestScript, bool, []string){
			"docrun":     docRun,
			"docfile":    docFile,
			"docwait":    docWait,
			"docprep":    prepareStart,
			"docmanaged": useManaged,
		},
	})
}

// scriptOf writes a doc's steps as a testscript: one command per step, and
// the texts they use as files of the archive (see `go test -testwork`).
func scriptOf(steps []step) []byte {
	var a txtar.Archive
	var b strings.Builder
	for i, s := range steps {
		n := strconv.Itoa(i)
		fmt.Fprintf(&b, "# %s\n", s.where)
		switch {
		case s.skip != "":
			fmt.Fprintf(&b, "# not run: %s\n", s.skip)
		case s.start != "":
			fmt.Fprintf(&b, "docprep %s\nexec bash $DOC_STATE/start.sh %s &\ndocwait %s '%s'\n", n, n, n, strings.ReplaceAll(s.start, "'", "''"))
			a.Files = append(a.Files, txtar.File{Name: ".doc/" + n + ".cmd", Data: []byte(s.command + "\n")})
			a.Files = append(a.Files, txtar.File{Name: ".doc/" + n + ".want", Data: []byte(strings.Join(s.want, "\n") + "\n")})
		case s.file != nil:
			fmt.Fprintf(&b, "docfile %s %s\n", n, s.file.path)
			a.Files = append(a.Files, txtar.File{Name: ".doc/" + n + ".file", Data: []byte(s.file.content)})
		default:
			fmt.Fprintf(&b, "docrun %s %d %v\n", n, s.exit, s.check)
			a.Files = append(a.Files, txtar.File{Name: ".doc/" + n + ".cmd", Data: []byte(s.command + "\n")})
			if s.check {
				a.Files = append(a.Files, txtar.File{Name: ".doc/" + n + ".want", Data: []byte(strings.Join(s.want, "\n") + "\n")})
			}
		}
	}
	a.Comment = []byte(b.String())
	return txtar.Format(&a)
}

// checkNotRun holds the blocks not run to a list kept in testdata, so that
// a new one shows in review as a change of that file, never as a quiet
// comment in a guide (MCPHOST_UPDATE_NOT_RUN=1 rewrites the list).
func checkNotRun(t *testing.T, notRun []string) {
	t.Helper()
	sort.Strings(notRun)
	got := strings.Join(notRun, "\n") + "\n"
	golden := filepath.Join("testdata", "not-run.txt")
	if os.Getenv("MCPHOST_UPDATE_NOT_RUN") != "" {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("the blocks not run changed; if that is meant, run with MCPHOST_UPDATE_NOT_RUN=1 and review %s\nnow:\n%swas:\n%s", golden, got, want)
	}
}

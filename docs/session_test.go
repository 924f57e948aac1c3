package docs_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// npxShim stands in for npx: the packages the docs use are the pinned ones
// of testdata/npm, so the examples run offline and give the output the
// docs show. Any other package fails as npm does for a missing one.
const npxShim = `#!/bin/sh
[ "$1" = "-y" ] && shift
pkg=$1; shift
case "$pkg" in
  @modelcontextprotocol/server-everything) exec "$MCPHOST_NPM_BIN/mcp-server-everything" "$@";;
  @modelcontextprotocol/server-filesystem) exec "$MCPHOST_NPM_BIN/mcp-server-filesystem" "$@";;
  @modelcontextprotocol/server-memory) exec "$MCPHOST_NPM_BIN/mcp-server-memory" "$@";;
esac
echo "npm error code E404" >&2
echo "npm error 404 Not Found - GET https://registry.npmjs.org/$pkg - Not found" >&2
exit 1
`

// sessionScript runs one doc command as the next line of one shell
// session: the working directory and exported variables of the command
// before it, stdout and stderr together as on a terminal, no stdin.
const sessionScript = `exec 2>&1 </dev/null
state="$DOC_STATE"
cd "$(cat "$state/cwd")" || exit 99
[ -f "$state/env" ] && . "$state/env"
. "$1"
rc=$?
pwd > "$state/cwd"
export -p > "$state/env"
exit $rc
`

// startScript runs a doc command in the background, in the session's
// directory and environment, as the process itself (so the end of the
// script stops it), its output to .doc/N.log.
const startScript = `state="$DOC_STATE"
exec > "$WORK/.doc/$1.log" 2>&1 </dev/null
run="$WORK/.doc/$1.run"
cd "$(cat "$state/cwd")" || exit 99
[ -f "$state/env" ] && . "$state/env"
eval "exec $(cat "$run")"
`

// docAddr is the address the docs' examples serve on; each doc gets a
// free port of its own in its place, shown back as this in the output.
const docAddr = "127.0.0.1:8080"

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	_, port, err := net.SplitHostPort(ln.Addr().String())
	return port, err
}

// prepare writes step N's command as it runs in this script: the doc's
// address replaced by the script's own.
func prepare(ts *testscript.TestScript, n string) string {
	cmd := docText(ts, n+".cmd")
	run := strings.ReplaceAll(cmd, docAddr, "127.0.0.1:"+ts.Getenv("DOC_PORT"))
	if root := ts.Getenv("DOC_ROOT"); root != "" {
		run = strings.ReplaceAll(run, managedDir, root+managedDir)
	}
	ts.Check(os.WriteFile(docPath(ts, n+".run"), []byte(run), 0o600))
	return strings.TrimSpace(cmd)
}

// prepareStart prepares a step started in the background: a trailing "&"
// that shows the reader how to start it is the harness's to do.
func prepareStart(ts *testscript.TestScript, _ bool, args []string) {
	prepare(ts, args[0])
	run := strings.TrimRight(docText(ts, args[0]+".run"), "\n ")
	run = strings.TrimSuffix(run, "&")
	ts.Check(os.WriteFile(docPath(ts, args[0]+".run"), []byte(run+"\n"), 0o600))
}

// withoutUV is PATH without the directories holding uv or uvx: the docs
// show what happens where they are missing, as on a fresh machine.
func withoutUV(path string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		_, uv := os.Stat(filepath.Join(dir, "uv"))
		_, uvx := os.Stat(filepath.Join(dir, "uvx"))
		if uv != nil && uvx != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// shown is output as the doc shows it: the home directory as ~, the
// script's address as the doc's.
func shown(ts *testscript.TestScript, out string) string {
	out = strings.ReplaceAll(out, "127.0.0.1:"+ts.Getenv("DOC_PORT"), docAddr)
	if root := ts.Getenv("DOC_ROOT"); root != "" {
		out = strings.ReplaceAll(out, root+managedDir, managedDir)
	}
	return strings.ReplaceAll(out, ts.Getenv("HOME"), "~")
}

// docPath is a file of the script's archive, under $WORK/.doc.
func docPath(ts *testscript.TestScript, name string) string {
	return filepath.Join(ts.Getenv("WORK"), ".doc", name)
}

func docText(ts *testscript.TestScript, name string) string {
	b, err := os.ReadFile(docPath(ts, name))
	ts.Check(err)
	return string(b)
}

func checkOutput(ts *testscript.TestScript, n, cmd, got string) {
	var want []string
	if w := strings.TrimRight(docText(ts, n+".want"), "\n"); w != "" {
		want = strings.Split(w, "\n")
	}
	gotLines := strings.Split(strings.TrimRight(got, "\n"), "\n")
	if got == "" {
		gotLines = nil
	}
	if !matchOutput(want, gotLines) {
		ts.Fatalf("$ %s\nprinted:\n%s\nthe doc shows:\n%s", cmd, got, strings.Join(want, "\n"))
	}
}

func goEnv(name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// setupDoc gives each doc a home of its own: the reader's clone at
// ~/mcphost, mcphost and npx on PATH, secrets and logins in files under
// the home, Go's caches shared (so the examples that build do not
// download), and modules only from the local module cache.
func setupDoc(root, npmBin string) func(*testscript.Env) error {
	gocache, modcache := goEnv("GOCACHE"), goEnv("GOMODCACHE")
	return func(env *testscript.Env) error {
		home := filepath.Join(env.WorkDir, "home")
		shim := filepath.Join(env.WorkDir, ".shim")
		state := filepath.Join(env.WorkDir, ".state")
		for _, d := range []string{home, shim, state} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return err
			}
		}
		if err := os.Symlink(root, filepath.Join(home, "mcphost")); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(shim, "npx"), []byte(npxShim), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(state, "cwd"), []byte(home+"\n"), 0o600); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(state, "run.sh"), []byte(sessionScript), 0o600); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(state, "start.sh"), []byte(startScript), 0o600); err != nil {
			return err
		}
		port, err := freePort()
		if err != nil {
			return err
		}
		env.Setenv("DOC_PORT", port)
		env.Setenv("HOME", home)
		env.Setenv("DOC_STATE", state)
		env.Setenv("PATH", strings.Join([]string{binDir, shim, withoutUV(os.Getenv("PATH"))}, string(os.PathListSeparator)))
		env.Setenv("MCPHOST_NPM_BIN", npmBin)
		env.Setenv("MCPHOST_SECRET_STORE", "file")
		env.Setenv("MCPHOST_TOKEN_STORE", "file")
		env.Setenv("NO_COLOR", "1")
		env.Setenv("TERM", "dumb")
		env.Setenv("GOCACHE", gocache)
		env.Setenv("GOMODCACHE", modcache)
		env.Setenv("GOPATH", filepath.Join(home, "go"))
		env.Setenv("GOPROXY", "file://"+filepath.ToSlash(filepath.Join(modcache, "cache", "download")))
		env.Setenv("GOSUMDB", "off")
		env.Setenv("GOTOOLCHAIN", "local")
		env.Setenv("GOFLAGS", "")
		env.Cd = home
		return nil
	}
}

// docRun runs step N: docrun N EXIT CHECK.
func docRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: docrun N EXIT CHECK")
	}
	n := args[0]
	cmd := prepare(ts, n)
	wantExit, _ := strconv.Atoi(args[1])
	err := ts.Exec("timeout", "300", "bash", filepath.Join(ts.Getenv("DOC_STATE"), "run.sh"), docPath(ts, n+".run"))
	got := shown(ts, ts.ReadFile("stdout"))
	exit := 0
	if err != nil {
		exit = -1
		if ee, ok := err.(*exec.ExitError); ok {
			exit = ee.ExitCode()
		}
	}
	if exit != wantExit {
		ts.Fatalf("$ %s\nexited %d (%v), the doc says %d; its output:\n%s", cmd, exit, err, wantExit, got)
	}
	if args[2] == "true" {
		checkOutput(ts, n, cmd, got)
	}
}

// docWait waits until the output of step N, started in the background,
// holds TEXT, then checks it: docwait N TEXT. The deadline only turns a
// command that never gets there into a failure.
func docWait(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: docwait N TEXT")
	}
	n := args[0]
	cmd := strings.TrimSpace(docText(ts, n+".cmd"))
	deadline := time.Now().Add(2 * time.Minute)
	bg := ts.BackgroundCmds()
	proc := bg[len(bg)-1].Process
	for {
		out, _ := os.ReadFile(docPath(ts, n+".log"))
		if strings.Contains(string(out), args[1]) {
			checkOutput(ts, n, cmd, shown(ts, string(out)))
			return
		}
		if proc.Signal(syscall.Signal(0)) != nil {
			ts.Fatalf("$ %s\nended before it printed %q; its output:\n%s", cmd, args[1], shown(ts, string(out)))
		}
		if time.Now().After(deadline) {
			ts.Fatalf("$ %s\nnever printed %q; its output:\n%s", cmd, args[1], shown(ts, string(out)))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// docFile writes step N's block to PATH, relative to the session's
// current directory: docfile N PATH.
func docFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: docfile N PATH")
	}
	cwd, err := os.ReadFile(filepath.Join(ts.Getenv("DOC_STATE"), "cwd"))
	ts.Check(err)
	path := args[1]
	if strings.HasPrefix(path, "~/") {
		path = filepath.Join(ts.Getenv("HOME"), path[2:])
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(strings.TrimSpace(string(cwd)), path)
	}
	ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
	content := strings.ReplaceAll(docText(ts, args[0]+".file"), docAddr, "127.0.0.1:"+ts.Getenv("DOC_PORT"))
	ts.Check(os.WriteFile(path, []byte(content), 0o644))
}

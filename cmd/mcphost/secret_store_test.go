package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zalando/go-keyring"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/internal/hosttest"
)

// Secrets on a machine without an OS keychain. None of these tests is
// parallel: the keychain is replaced for the whole process.

// noKeychain makes the OS keychain fail as it does on Linux without a
// D-Bus session (SSH boxes, containers, CI runners): go-keyring runs
// dbus-launch, which is not there. The tests then behave the same on a
// machine that has a keychain.
func noKeychain(t *testing.T) {
	t.Helper()
	keyring.MockInitWithError(&exec.Error{Name: "dbus-launch", Err: exec.ErrNotFound})
	t.Cleanup(keyring.MockInit)
}

// secretFile is where secrets are kept without a keychain.
func (e *testEnv) secretFile() string { return filepath.Join(e.global, "secrets.json") }

// Without a keychain, "secret set" keeps the secret in a private file
// (saying so once), ${secret:NAME} resolves from it, and "secret delete"
// removes it; the value never reaches the output.
func TestSecretsWithoutKeychain(t *testing.T) {
	noKeychain(t)
	e := newEnv(t)
	if err := os.Chmod(e.global, 0o755); err != nil {
		t.Fatal(err)
	}
	const value = "file-kept-token-0123456789"
	r := e.runStdin(value+"\n", "secret", "set", "api")
	if r.code != exitOK {
		t.Fatalf("secret set without a keychain:\n%s", r)
	}
	wantContains(t, "stderr", r.stderr, e.secretFile(), "no OS keychain", "--secret-store file")
	if n := strings.Count(r.stderr, "no OS keychain"); n != 1 {
		t.Errorf("the note is printed %d times:\n%s", n, r)
	}
	wantNotContains(t, "output", r.stdout+r.stderr, value, "dbus-launch")
	if runtime.GOOS != "windows" {
		for path, want := range map[string]os.FileMode{e.secretFile(): 0o600, e.global: 0o700} {
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
			}
		}
	}

	ts := hosttest.BuildTestServer(t)
	e.must(exitOK, "mcp", "add", "kc", "-e", "TOKEN=${secret:api}", "--", ts)
	r = e.must(exitOK, "call", "kc:env", "--args", `{"name":"TOKEN"}`)
	wantContains(t, "call (the value resolved, then masked)", r.stdout, "****")
	wantNotContains(t, "call", r.stdout+r.stderr, value)
	if n := strings.Count(r.stderr, "no OS keychain"); n != 1 {
		t.Errorf("the note is printed %d times:\n%s", n, r)
	}

	// Saying "file" is the choice made: no note.
	e.environ = append(e.environ, "MCPHOST_SECRET_STORE=file")
	r = e.must(exitOK, "call", "kc:env", "--args", `{"name":"TOKEN"}`)
	wantContains(t, "call", r.stdout, "****")
	wantNotContains(t, "stderr", r.stderr, "no OS keychain")

	e.must(exitOK, "secret", "delete", "api")
	r = e.must(exitOK, "mcp", "get", "kc")
	wantContains(t, "mcp get after delete", r.stdout, "mcphost secret set api", e.secretFile())
}

// "serve --auth-token-keychain NAME" takes the token "secret set" kept in
// the file.
func TestServeSecretTokenWithoutKeychain(t *testing.T) {
	noKeychain(t)
	e := gatewayEnv(t)
	const token = "file-kept-gateway-token-0123"
	if r := e.runStdin(token, "secret", "set", "sre"); r.code != exitOK {
		t.Fatalf("secret set:\n%s", r)
	}
	s := e.serve(strings.NewReader(""), io.Discard, "--http", "127.0.0.1:0", "--auth-token-keychain", "sre")
	defer s.stop(t)
	base := "http://" + s.address(t)
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr.String())
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__local__echo", Arguments: map[string]any{"text": "file"}}); err != nil || res.IsError {
		t.Fatalf("call: %+v %v", res, err)
	}
	if strings.Contains(s.stderr.String(), token) {
		t.Fatal("the token reached stderr")
	}
}

// "mcp import --skip-inputs" of a VS Code file with a password input
// keeps the server and stores nothing: the reference waits for "secret
// set", and the output says so.
func TestMCPImportSkipInputsWithoutKeychain(t *testing.T) {
	noKeychain(t)
	e := newEnv(t)
	e.withHome()
	copyClientFile(t, "vscode/.vscode/mcp.json", filepath.Join(e.work, ".vscode", "mcp.json"))
	r := e.run("mcp", "import", "--from", "vscode", "--skip-inputs", "--scope", "local", "--yes")
	if r.code != exitOK {
		t.Fatalf("import without a keychain:\n%s", r)
	}
	wantContains(t, "stderr", r.stderr, "nothing stored", "mcphost secret set Perplexity.perplexity-key")
	if s := e.getServer("Perplexity"); s["error"] == nil || !strings.Contains(s["error"].(string), "mcphost secret set") {
		t.Errorf("the imported server does not wait for its secret: %v", s)
	}
	if _, err := os.Stat(e.secretFile()); err == nil {
		t.Error("--skip-inputs stored something")
	}

	// Typed on a terminal, the password goes to the file and the entry
	// resolves; it is never printed.
	const password = "pplx-secret-value-0123456789"
	e.terminal = true
	r = e.runStdin(password+"\nprod_db\n", "mcp", "import", "--from", "vscode", "--scope", "local", "--force", "--yes")
	e.terminal = false
	if r.code != exitOK || strings.Contains(r.stdout+r.stderr, password) {
		t.Fatalf("import with answers, without a keychain:\n%s", r)
	}
	if s := e.getServer("Perplexity"); s["error"] != nil {
		t.Errorf("the secret does not resolve: %v", s["error"])
	}
	if !strings.Contains(readFile(t, e.secretFile()), password) {
		t.Error("the password is not in the secret file")
	}
}

// A keychain chosen explicitly that is not there is an error that names
// the fix, never a quiet fallback; an unknown store is a usage error.
func TestSecretStoreChoice(t *testing.T) {
	noKeychain(t)
	e := newEnv(t)
	const value = "never-stored-token-0123456789"
	for _, r := range []result{
		e.runStdin(value, "--secret-store", "keychain", "secret", "set", "api"),
		e.runStdin(value, "--secret-store", "keyring", "secret", "set", "api"),
	} {
		if r.code != exitUsage {
			t.Errorf("want exit %d:\n%s", exitUsage, r)
		}
		wantContains(t, "stderr", r.stderr, "OS keychain is not available", "dbus-launch", "--secret-store file")
		wantNotContains(t, "output", r.stdout+r.stderr, value)
	}
	e.environ = []string{"MCPHOST_SECRET_STORE=keychain"}
	r := e.run("serve", "--http", "127.0.0.1:0", "--auth-token-keychain", "api")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--secret-store file") {
		t.Errorf("serve with the keychain chosen:\n%s", r)
	}
	if _, err := os.Stat(e.secretFile()); err == nil {
		t.Error("an explicit keychain choice fell back to the file")
	}
	r = e.runStdin(value, "--secret-store", "vault", "secret", "set", "api")
	if r.code != exitUsage || !strings.Contains(r.stderr, "auto, keychain or file") {
		t.Errorf("an unknown store:\n%s", r)
	}

	// With a keychain, "file" still keeps secrets in the file.
	keyring.MockInit()
	e.environ = []string{}
	e.must(exitOK, "--secret-store", "file", "secret", "set", "api", "--generate")
	if _, err := authn.Secret("api"); err == nil {
		t.Error("--secret-store file wrote to the keychain")
	}
	if _, err := os.Stat(e.secretFile()); err != nil {
		t.Errorf("--secret-store file: %v", err)
	}
}

// A secret that cannot be stored says where it was to go and what to do,
// for the file store (the fallback without a keychain, or chosen).
func TestSecretSetFailureSaysWhatToDo(t *testing.T) {
	noKeychain(t)
	e := newEnv(t)
	blocker := writeFile(t, filepath.Join(t.TempDir(), "not-a-dir"), "x")
	e.global = filepath.Join(blocker, "mcphost")
	const value = "file-kept-token-0123456789"
	for _, env := range [][]string{{}, {"MCPHOST_SECRET_STORE=file"}} {
		e.environ = env
		r := e.runStdin(value, "secret", "set", "api")
		if r.code != exitFailure {
			t.Fatalf("want exit 1:\n%s", r)
		}
		wantContains(t, "stderr", r.stderr, "mcphost: secret set api: not stored in the file "+filepath.Join(e.global, "secrets.json")+": ",
			"check that "+filepath.Join(e.global, "secrets.json")+" can be created and written",
			"--secret-store keychain (or MCPHOST_SECRET_STORE=keychain)")
		wantNotContains(t, "output", r.stdout+r.stderr, value)
	}
}

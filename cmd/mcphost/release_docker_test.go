package main

// The Docker half of the release checks (release_test.go): the Dockerfile's
// ENTRYPOINT and CMD, and .dockerignore.

import (
	"encoding/json"
	"io"
	"net"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/gateway"
)

// dockerfile is the part of the Dockerfile these tests look at.
type dockerfile struct {
	entrypoint, cmd []string
	expose          []string
	user            string
}

// parseDockerfile reads the final stage's ENTRYPOINT and CMD (exec form,
// JSON arrays), EXPOSE and USER. Continuation lines are joined first.
func parseDockerfile(t *testing.T) dockerfile {
	t.Helper()
	text := strings.ReplaceAll(readRepoFile(t, "Dockerfile"), "\\\n", " ")
	var d dockerfile
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		instr, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch strings.ToUpper(instr) {
		case "FROM":
			d = dockerfile{} // only the last stage is the image
		case "ENTRYPOINT", "CMD":
			var args []string
			if err := json.Unmarshal([]byte(rest), &args); err != nil {
				t.Fatalf("Dockerfile: %s %s: want the exec form (a JSON array): %v", instr, rest, err)
			}
			if strings.EqualFold(instr, "ENTRYPOINT") {
				d.entrypoint = args
			} else {
				d.cmd = args
			}
		case "EXPOSE":
			d.expose = append(d.expose, strings.Fields(rest)...)
		case "USER":
			d.user = rest
		}
	}
	return d
}

// TestReleaseDockerfile checks the image's command line against the real
// serve command: every flag exists and parses, the listener is the exposed
// port, and a non-loopback listener comes with incoming authentication (as
// serve demands; otherwise the container would refuse to start).
func TestReleaseDockerfile(t *testing.T) {
	d := parseDockerfile(t)
	if len(d.entrypoint) < 2 || d.entrypoint[0] != "mcphost" || d.entrypoint[1] != "serve" {
		t.Fatalf("Dockerfile: ENTRYPOINT %q, want [\"mcphost\", \"serve\", ...]", d.entrypoint)
	}
	if d.user == "" || d.user == "root" || strings.HasPrefix(d.user, "0") {
		t.Errorf("Dockerfile: USER %q: the image must not run as root", d.user)
	}

	args := append(slices.Clone(d.entrypoint[1:]), d.cmd...)
	root := newApp(strings.NewReader(""), io.Discard, io.Discard).rootCommand()
	serve, rest, err := root.Find(args)
	if err != nil || serve.Name() != "serve" {
		t.Fatalf("Dockerfile: %q does not name the serve command: %v", args, err)
	}
	if err := serve.ParseFlags(rest); err != nil {
		t.Fatalf("Dockerfile: ENTRYPOINT and CMD %q: %v", rest, err)
	}
	if extra := serve.Flags().Args(); len(extra) > 0 {
		t.Errorf("Dockerfile: arguments %q are not flags (serve takes none)", extra)
	}
	flag := func(name string) string {
		f := serve.Flags().Lookup(name)
		if f == nil {
			t.Fatalf("serve has no --%s flag", name)
		}
		return f.Value.String()
	}
	if flag("config") == "" {
		t.Error("Dockerfile: no --config: the mounted configuration file would not be read")
	}
	addr := flag("http")
	if addr == "" {
		t.Fatal("Dockerfile: no --http: the image would speak stdio")
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("Dockerfile: --http %q: %v", addr, err)
	}
	if !slices.Contains(d.expose, port) && !slices.Contains(d.expose, port+"/tcp") {
		t.Errorf("Dockerfile: --http %s but EXPOSE %v", addr, d.expose)
	}
	if gateway.IsLoopback(addr) {
		t.Errorf("Dockerfile: --http %s is loopback: unreachable from outside the container", addr)
	}
	auth := flag("auth-token-env") != "[]" || flag("auth-token-keychain") != "[]" || flag("jwt-issuer") != ""
	if !auth && flag("insecure-no-auth") != "true" {
		t.Error("Dockerfile: a non-loopback --http without --auth-token-env or --jwt-issuer: serve refuses to start")
	}
	if flag("insecure-no-auth") == "true" {
		t.Error("Dockerfile: --insecure-no-auth in the image's default command")
	}
	// The token variable of the default command is the one the Dockerfile
	// documents, and not an MCPHOST_* name (those are configuration).
	if v := flag("auth-token-env"); strings.Contains(strings.ToUpper(v), "MCPHOST_") {
		t.Errorf("Dockerfile: --auth-token-env %s: MCPHOST_* variables are read as configuration", v)
	}
}

// TestReleaseDockerignore checks that .dockerignore keeps every file that
// building ./cmd/mcphost reads: go.mod, go.sum, the Go files of every
// package it imports from this module and their embedded files.
func TestReleaseDockerignore(t *testing.T) {
	var patterns []string
	for _, line := range strings.Split(readRepoFile(t, ".dockerignore"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") {
			t.Fatalf(".dockerignore: exceptions (%s) are not understood by this test", line)
		}
		patterns = append(patterns, strings.Trim(path.Clean(strings.TrimPrefix(line, "/")), "/"))
	}
	absRoot, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-e", "-deps",
		"-f", `{{if .Module}}{{if .Module.Main}}{{range .GoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}{{range .EmbedFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}`,
		"./").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	needed := []string{"go.mod", "go.sum"}
	for _, f := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(absRoot, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("go list: %s is outside the repository", f)
		}
		needed = append(needed, filepath.ToSlash(rel))
	}
	if len(needed) < 10 {
		t.Fatalf("go list found only %v", needed)
	}
	for _, f := range needed {
		if p := dockerIgnored(patterns, f); p != "" {
			t.Errorf(".dockerignore: %q leaves %s out of the build context", p, f)
		}
	}
	// What the ignore file is for: the big things stay out.
	for _, f := range []string{".git/HEAD", "testdata/npm/node_modules/x", "examples/plugins/truncate/target/x"} {
		if dockerIgnored(patterns, f) == "" {
			t.Errorf(".dockerignore: %s is sent to the builder", f)
		}
	}
}

// dockerIgnored returns the pattern that excludes name (a slash-separated
// path from the context's root), or "". As Docker does, a pattern excludes
// what it matches and everything under it; "**" matches any number of
// directories.
func dockerIgnored(patterns []string, name string) string {
	parts := strings.Split(name, "/")
	for _, p := range patterns {
		pp := strings.Split(p, "/")
		for n := 1; n <= len(parts); n++ {
			if matchParts(pp, parts[:n]) {
				return p
			}
		}
	}
	return ""
}

func matchParts(pattern, name []string) bool {
	if len(pattern) == 0 {
		return len(name) == 0
	}
	if pattern[0] == "**" {
		for i := 0; i <= len(name); i++ {
			if matchParts(pattern[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	if ok, _ := path.Match(pattern[0], name[0]); !ok {
		return false
	}
	return matchParts(pattern[1:], name[1:])
}

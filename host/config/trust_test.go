package config

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// trustedNow reports whether the project is trusted, and checks that Load
// agrees on server id.
func (e *testEnv) trustedNow(id string) bool {
	e.t.Helper()
	ok, err := IsTrusted(e.opts(), e.work)
	if err != nil {
		e.t.Fatal(err)
	}
	if s := server(e.t, e.load(), id); s.Untrusted == ok {
		e.t.Fatalf("IsTrusted %v but server %s untrusted %v", ok, id, s.Untrusted)
	}
	return ok
}

// The trust hash covers the env files the project's servers name: a
// trusted project whose .env later gains NODE_OPTIONS or LD_PRELOAD is
// untrusted until trusted anew.
func TestTrustCoversProjectEnvFiles(t *testing.T) {
	e := newEnv(t)
	e.writeProject(".mcphost.yaml", "servers:\n  s: {command: node, env_file: .env}\n")
	e.writeProject(".mcp.json", `{"mcpServers": {"cc": {"command": "x", "envFile": "sub/cc.env"}}}`)
	if err := os.Mkdir(filepath.Join(e.work, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	env := e.writeProject(".env", "MODE=prod\n")
	cc := e.writeProject("sub/cc.env", "A=1\n")
	e.trust()
	if !e.trustedNow("s") {
		t.Fatal("not trusted after trust")
	}
	for _, step := range []struct {
		file, content string
		trusted       bool
	}{
		{env, "MODE=prod\nNODE_OPTIONS=--require ./evil.js\n", false},
		{env, "MODE=prod\n", true},
		{cc, "A=1\nLD_PRELOAD=./evil.so\n", false},
		{cc, "A=1\n", true},
	} {
		writeFile(t, filepath.Dir(step.file), filepath.Base(step.file), step.content)
		if got := e.trustedNow("cc"); got != step.trusted {
			t.Fatalf("%s = %q: trusted %v, want %v", filepath.Base(step.file), step.content, got, step.trusted)
		}
	}
	// Missing is a state of its own: trusted without the file, its
	// appearance untrusts the project.
	if err := os.Remove(env); err != nil {
		t.Fatal(err)
	}
	if e.trustedNow("s") {
		t.Fatal("still trusted after the env file was removed")
	}
	e.trust()
	if !e.trustedNow("s") {
		t.Fatal("not trusted after trusting the project without its env file")
	}
	writeFile(t, e.work, ".env", "LD_PRELOAD=./evil.so\n")
	if e.trustedNow("s") {
		t.Fatal("still trusted after the env file appeared")
	}
	// mcphost's own edit of the project file keeps it trusted.
	e.trust()
	if _, err := AddServer(e.opts(), ScopeProject, ServerEntry{ID: "t", Command: "y", EnvFile: ".env"}, false); err != nil {
		t.Fatal(err)
	}
	if !e.trustedNow("t") {
		t.Fatal("not trusted after mcphost's own edit")
	}
}

// A link in the project that is pointed at other bytes untrusts it, and
// one pointed outside hashes as such (the loader refuses it).
func TestTrustCoversEnvFileLinks(t *testing.T) {
	e := newEnv(t)
	a := e.writeProject("a.env", "K=a\n")
	b := e.writeProject("b.env", "K=b\n")
	outside := writeFile(t, e.global, "creds.env", "AWS_SECRET=x\n")
	link := filepath.Join(e.work, "link.env")
	if err := os.Symlink(a, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	e.writeProject(".mcphost.yaml", "servers:\n  s: {command: x, env_file: link.env}\n")
	e.trust()
	if !e.trustedNow("s") {
		t.Fatal("not trusted after trust")
	}
	for _, target := range []string{b, outside} {
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if e.trustedNow("s") {
			t.Fatalf("still trusted with the link pointed at %s", target)
		}
		e.trust()
	}
	// Pointed outside, the file is never read: changing it changes nothing.
	writeFile(t, e.global, "creds.env", "AWS_SECRET=changed\n")
	if !e.trustedNow("s") {
		t.Fatal("a file outside the project changed the hash")
	}
}

// A project without plugins or env files hashes as it always did, so the
// trust records users have stay valid; env files named outside the project
// (refused by the loader) are not read for the hash.
func TestTrustHashUnchangedWithoutEnvFiles(t *testing.T) {
	e := newEnv(t)
	e.environ = []string{"HOME=" + e.global}
	e.writeProject(".mcphost.yaml", "servers:\n  s: {command: x}\n"+
		"  up: {command: x, env_file: ../global/creds.env}\n"+
		"  home: {command: x, env_file: ~/creds.env}\n"+
		"  abs: {command: x, env_file: "+filepath.Join(e.global, "creds.env")+"}\n")
	writeFile(t, e.global, "creds.env", "AWS_SECRET=x\n")
	r, err := e.opts().resolve()
	if err != nil {
		t.Fatal(err)
	}
	contents, err := readProjectFiles(e.work)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := trustHash(r, e.work, contents), hex.EncodeToString(hashProject(contents).Sum(nil)); got != want {
		t.Fatalf("hash %s, want the project files' alone %s", got, want)
	}
}

// What the hash reads besides the project files is bounded: a project
// naming more files than that, or more bytes, cannot be trusted (and is
// not read further).
func TestTrustHashBounds(t *testing.T) {
	e := newEnv(t)
	var b strings.Builder
	b.WriteString("servers:\n")
	for i := range maxTrustRefs + 1 {
		fmt.Fprintf(&b, "  s%d: {command: x, env_file: e%d.env}\n", i, i)
	}
	e.writeProject(".mcphost.yaml", b.String())
	if err := Trust(e.opts(), e.work); err == nil || !strings.Contains(err.Error(), "more than 1024") {
		t.Fatalf("Trust = %v", err)
	}
	if e.trustedNow("s0") {
		t.Fatal("trusted")
	}

	e = newEnv(t)
	e.writeProject(".mcphost.yaml", "servers:\n  a: {command: x, env_file: a.env}\n  b: {command: x, env_file: b.env}\n")
	e.writeProject("a.env", "A=1\n")
	e.writeProject("b.env", "B=1\n")
	defer func(n int64) { maxTrustBytes = n }(maxTrustBytes)
	maxTrustBytes = 6 // one of the files, not both
	if err := Trust(e.opts(), e.work); err == nil || !strings.Contains(err.Error(), "more than 6 bytes") {
		t.Fatalf("Trust = %v", err)
	}
	maxTrustBytes = 8
	e.trust()
	if !e.trustedNow("a") {
		t.Fatal("not trusted within the bounds")
	}
}

package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveManaged is a managed layer whose policy plugin (the demo
// deny-destructive, allowing only *echo*) runs first in every chain, with
// only the administrator's plugins allowed and shadow* servers blocked.
const serveManaged = `managed:
  plugins: managed_only
  denied_servers:
    - {id: "shadow*"}
plugins:
  - name: org-policy
    path: deny-destructive.wasm
    hooks: [policy]
    config: {allow: "*echo*", confirm_open_world: "false"}
    limits: {timeout_ms: 5000}
`

// mcphost serve carries out the managed layer: a user file and --config
// that try to loosen it (an allow-all plugin of their own, policy allow *,
// a server the rules block) do not; a call the managed policy denies is
// denied through the gateway and the blocked server's tools are not served.
func TestServeHonoursManagedLayer(t *testing.T) {
	e := newEnv(t)
	wasm, err := os.ReadFile(filepath.Join("..", "..", "internal", "demo", "plugins", "deny-destructive.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.managed, "deny-destructive.wasm"), string(wasm))
	managed := e.writeManaged(serveManaged)
	allowAll, err := filepath.Abs(fixture(t, "allow-all.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	bin := testServer(t)["command"].(string)
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers:\n  test: {command: "+quoteYAML(bin)+"}\n  shadow-it: {command: "+quoteYAML(bin)+"}\n"+
		"plugins:\n  - {name: mine, path: "+quoteYAML(allowAll)+", hooks: [policy]}\n")
	loosen := writeFile(t, filepath.Join(t.TempDir(), "loosen.yaml"), "policy: {allow: [\"*\"]}\nplugins:\n  - {name: theirs, path: "+quoteYAML(allowAll)+", hooks: [policy]}\n")

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := e.serve(inR, outW, "--config", loosen)
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-client"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, s.stderr.String())
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
		if strings.Contains(tl.Name, "shadow") {
			t.Errorf("a blocked server's tool is served: %s", tl.Name)
		}
	}
	if !names["mcp__test__echo"] {
		t.Errorf("tools/list %v: want mcp__test__echo", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__test__echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError {
		t.Fatalf("echo: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__test__big", Arguments: map[string]any{"n": 3}})
	if err == nil && !res.IsError {
		t.Errorf("a call the managed policy denies went through: %+v", res)
	} else if err == nil && !strings.Contains(textOf(res), "org-policy") {
		t.Errorf("the denial does not name the managed plugin: %s", textOf(res))
	}
	cs.Close()
	inW.Close()
	if code := s.stop(t); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, s.stderr.String())
	}
	wantContains(t, "serve stderr", s.stderr.String(),
		"mcphost gateway: not served: server shadow-it is "+blockedWords(managed),
		"warning: plugin mine is not used: blocked: plugins is managed_only in "+managed,
		"warning: plugin theirs is not used: blocked: plugins is managed_only in "+managed)
}

// doctor reports the managed layer: where, what, what it blocks, and that
// a managed file others can write is not tamper-proof.
func TestDoctorManaged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	managed := e.writeManaged(orgManaged)
	if err := os.Chmod(managed, 0o666); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.global, "config.yaml"), "servers:\n  shadow-it: {command: "+quoteYAML(testServer(t)["command"].(string))+"}\n")
	r := e.must(exitOK, "doctor")
	wantContains(t, "doctor", r.stdout,
		"ok    managed  "+e.managed+": read: "+managed,
		"ok    managed  rules: any server allowed; 1 denied_servers rule; user servers allowed; project servers allowed; plugins: any; its servers: corp",
		"warn  managed  blocked: the managed configuration blocks 1 server (shadow-it) of your configuration: they do not run",
		"| server shadow-it: "+blockedWords(managed),
		"warn  managed  "+managed+": writable by others (mode 0666): the managed configuration is not tamper-proof",
		"fix: make it owned by root and not writable by others (chmod 644, chown root)",
		"skip  server   shadow-it: not started: "+blockedWords(managed))
	rep := decodeJSON[struct {
		Managed struct {
			Dir      string   `json:"dir"`
			Files    []string `json:"files"`
			Writable []string `json:"writable"`
		} `json:"managed"`
	}](t, e.must(exitOK, "doctor", "--json"))
	if rep.Managed.Dir != e.managed || len(rep.Managed.Files) != 1 || len(rep.Managed.Writable) != 1 {
		t.Errorf("doctor --json managed: %+v", rep.Managed)
	}
}

//go:build linux

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/internal/hosttest"
	"github.com/mcphost/mcphost/internal/testenv"
)

// Two "mcphost serve" replicas behind nginx (a real reverse proxy, started
// here), as docs/gateway.md's "Several replicas behind a load balancer"
// configures them:
//
//   - stateless (--stateless): any replica answers any request, the proxy
//     balances round robin; when one replica dies, the proxy's next try
//     reaches the other and the client sees no error at all;
//   - stateful (--replica-id): session IDs begin with their replica's id and
//     the proxy routes on that prefix; when a replica dies, its sessions are
//     answered 404 by the other (the backup of that route), the client
//     starts a new session (as the specification says it must) and carries
//     on; the other replica's sessions are untouched.
func TestReplicasBehindNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the mcphost binary and runs nginx")
	}
	nginx := findNginx(t)
	bin := buildMCPHost(t)
	ts := hosttest.BuildTestServer(t)
	cfg := writeFile(t, filepath.Join(t.TempDir(), "mcphost.json"), configJSON(t, map[string]any{
		"local": map[string]any{"command": ts},
	}))

	t.Run("stateless", func(t *testing.T) {
		dir := t.TempDir()
		audit := [2]string{filepath.Join(dir, "r1.audit"), filepath.Join(dir, "r2.audit")}
		r1 := startServe(t, bin, "--config", cfg, "--stateless", "--audit-log", audit[0])
		r2 := startServe(t, bin, "--config", cfg, "--stateless", "--audit-log", audit[1])
		proxy := startNginx(t, nginx, r1.addr, r2.addr)
		ctx := ctxBound(t)
		cs := connect(ctx, t, proxy)
		// Calls go to either replica without stickiness: calls until both
		// have answered some (at random: all 40 on one once in 10^11).
		answered := func(f string) bool { b, _ := os.ReadFile(f); return len(b) > 0 }
		for i := 0; !answered(audit[0]) || !answered(audit[1]); i++ {
			if i == 40 {
				t.Fatal("40 calls, all answered by one replica: the calls were not spread")
			}
			echo(ctx, t, cs, fmt.Sprintf("before %d", i))
		}
		r1.kill(t)
		for i := range 6 {
			echo(ctx, t, cs, fmt.Sprintf("after %d", i))
		}
	})

	t.Run("stateful", func(t *testing.T) {
		r1 := startServe(t, bin, "--config", cfg, "--replica-id", "r1")
		r2 := startServe(t, bin, "--config", cfg, "--replica-id", "r2")
		proxy := startNginx(t, nginx, r1.addr, r2.addr)
		ctx := ctxBound(t)
		// Sessions until both replicas hold some (at random: two on
		// average; all 20 on one replica once in half a million runs).
		on := map[string][]*mcp.ClientSession{}
		for i := 0; len(on["r1"]) == 0 || len(on["r2"]) == 0; i++ {
			if i == 20 {
				t.Fatalf("20 sessions, all on one replica: %v", on)
			}
			cs := connect(ctx, t, proxy)
			replica, _, ok := strings.Cut(cs.ID(), ".")
			if !ok || replica != "r1" && replica != "r2" {
				t.Fatalf("session id %q does not name its replica", cs.ID())
			}
			on[replica] = append(on[replica], cs)
		}
		// Each session's requests reach its replica (elsewhere: 404).
		for _, list := range on {
			for _, cs := range list {
				echo(ctx, t, cs, "routed to "+cs.ID()[:2])
			}
		}
		r1.kill(t)
		for _, cs := range on["r2"] {
			echo(ctx, t, cs, "r2's session goes on")
		}
		for _, cs := range on["r1"] {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__local__echo", Arguments: map[string]any{"text": "lost"}}); err == nil {
				t.Fatalf("a call in session %s of the killed replica succeeded", cs.ID())
			}
		}
		// A new session (what a client does on 404) lands on r2.
		cs := connect(ctx, t, proxy)
		if !strings.HasPrefix(cs.ID(), "r2.") {
			t.Fatalf("new session %q after r1 died; want one of r2", cs.ID())
		}
		echo(ctx, t, cs, "a new session on r2")
	})
}

func ctxBound(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	t.Cleanup(cancel)
	return ctx
}

func connect(ctx context.Context, t *testing.T, addr string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "replica-test"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect through the proxy: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func echo(ctx context.Context, t *testing.T, cs *mcp.ClientSession, text string) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__local__echo", Arguments: map[string]any{"text": text}})
	if err != nil {
		t.Fatalf("echo %q (session %q): %v", text, cs.ID(), err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("echo %q: %+v", text, res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != text {
		t.Fatalf("echo %q: got %+v", text, res.Content[0])
	}
}

func findNginx(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	testenv.Missing(t, "nginx not found: install it (apt-get install nginx-light) to test replicas behind a reverse proxy")
	return ""
}

// nginxConf routes Streamable HTTP to two replicas: requests of a session
// (Mcp-Session-Id "rN.…") to replica N, with the other as its backup;
// requests without a session to either, at random (round robin would send
// every session to one replica: a client's server/discover probe and its
// initialize alternate). Host is passed on: a replica on
// a loopback address refuses other hosts (DNS rebinding).
const nginxConf = `daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log info;
events { worker_connections 256; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	map $http_mcp_session_id $mcphost_pool {
		~^r1\.  mcphost_r1;
		~^r2\.  mcphost_r2;
		default mcphost_any;
	}
	upstream mcphost_any { random two least_conn; server %[2]s; server %[3]s; }
	upstream mcphost_r1  { server %[2]s; server %[3]s backup; }
	upstream mcphost_r2  { server %[3]s; server %[2]s backup; }
	server {
		listen %[4]s;
		location /mcp {
			proxy_pass http://$mcphost_pool;
			proxy_http_version 1.1;
			proxy_set_header Host $http_host;
			proxy_set_header Connection "";
			proxy_buffering off;
			proxy_request_buffering off;
			proxy_read_timeout 1h;
		}
	}
}
`

// startNginx runs nginx in front of the two replicas and returns its
// address.
func startNginx(t *testing.T, nginx, r1, r2 string) string {
	t.Helper()
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nginx binds it next; nothing else on loopback takes it meanwhile in practice
	conf := writeFile(t, filepath.Join(dir, "nginx.conf"), fmt.Sprintf(nginxConf, dir, r1, r2, addr))
	cmd := exec.Command(nginx, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out testenv.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	})
	deadline := time.Now().Add(failAfter)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return addr
		}
		select {
		case err := <-done:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited (%v):\n%s%s", err, out.String(), log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx not listening on %s within %s", addr, failAfter)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

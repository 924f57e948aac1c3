//go:build unix

package transports_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcphost/mcphost/transports"
)

// A call cancelled while its request waits for another's write to the
// server's stdin is not sent, and the session lives on: under load many
// calls share one backend, and one caller giving up must not end it for
// everyone (the write would otherwise start with its deadline already
// passed and look like a server that stopped reading).
func TestStdioWriteCancelledWhileQueued(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("sh is needed to stand in for a server that reads its stdin late")
	}
	// Reads nothing until the test says so (a file appears), then
	// everything.
	goAhead := filepath.Join(t.TempDir(), "go")
	tr := newStdio(t, transports.Spec{ID: "late", Kind: transports.KindStdio, Command: sh,
		Args: []string{"-c", `while [ ! -e "$1" ]; do sleep 0.05; done; exec cat >/dev/null`, "sh", goAhead}}, fastClose)
	conn, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	call := func(id float64, size int) *jsonrpc.Request {
		mid, _ := jsonrpc.MakeID(id)
		return &jsonrpc.Request{ID: mid, Method: "tools/call", Params: json.RawMessage(`{"x":"` + strings.Repeat("a", size) + `"}`)}
	}
	// The first write fills the pipe and waits for the server to read.
	first, started := make(chan error, 1), make(chan struct{})
	go func() {
		close(started)
		first <- conn.Write(context.Background(), call(1, 1<<20))
	}()
	<-started
	// A small write waits behind it, and its caller gives up meanwhile.
	// Until the first write holds the lock, a small one may get there
	// first and go through (the pipe has room for it): that is no answer,
	// so try again. Once the big write holds the lock it keeps it until
	// the server reads, so every later try queues behind it.
	// Each try waits longer before it, so that the big write gets the
	// processor; few tries fit, as each small write that goes through
	// takes room in the pipe.
	for id, pause := 2.0, time.Millisecond; ; id, pause = id+1, min(2*pause, time.Second) {
		time.Sleep(pause)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := conn.Write(ctx, call(id, 10))
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			break
		}
		if err != nil {
			t.Fatalf("try %v: queued write whose caller gave up: %v, want its context's error", id, err)
		}
		if id > 100 {
			t.Fatal("the 1 MiB write never took the write lock")
		}
	}
	if err := os.WriteFile(goAhead, nil, 0o600); err != nil { // the server reads now
		t.Fatal(err)
	}
	if err := <-first; err != nil {
		t.Fatalf("first write: %v", err)
	}
	// The session goes on.
	wctx, wcancel := context.WithTimeout(context.Background(), bound)
	defer wcancel()
	if err := conn.Write(wctx, call(3, 10)); err != nil {
		t.Fatalf("write after a queued write was given up: %v (the session must go on)", err)
	}
}

//go:build unix

package testenv

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestEnvWith(t *testing.T) {
	got := EnvWith([]string{"A=1", "PATH=/x", "B=2=3"}, "PATH", "/y")
	if want := []string{"A=1", "B=2=3", "PATH=/y"}; !slices.Equal(got, want) {
		t.Errorf("EnvWith = %q, want %q", got, want)
	}
}

func TestModuleRoot(t *testing.T) {
	root := ModuleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "testenv")); err != nil {
		t.Fatalf("module root %q does not hold internal/testenv: %v", root, err)
	}
}

func TestStartProcessAndWaitPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	addr := l.Addr().String()

	// A process that never listens: WaitPort gives up when it exits.
	p := StartProcess(t, os.Environ(), "sh", "-c", "echo bye; exit 3")
	if err := p.WaitPort("127.0.0.1:1", 30*time.Second); err == nil {
		t.Error("WaitPort succeeded on a port nobody listens on")
	}
	// A port that another process holds (here, this test's listener) is
	// not taken for the process's own where that can be told (Linux): a
	// dial may reach another test's free-port probe before the server
	// listens. Elsewhere it answers at once. (The end-to-end tests show
	// a server's own port accepted.)
	q := StartProcess(t, os.Environ(), "sleep", "60")
	err = q.WaitPort(addr, 500*time.Millisecond)
	if runtime.GOOS == "linux" && err == nil {
		t.Error("WaitPort took another process's listener for the process's own")
	}
	if runtime.GOOS != "linux" && err != nil {
		t.Fatal(err)
	}
	// FreePort gives a port that can be listened on.
	port := FreePort(t)
	l2, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatalf("FreePort %d: %v", port, err)
	}
	l2.Close()
}

package transports_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcphost/mcphost/internal/hosttest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	hosttest.CleanupTestServer()
	os.Exit(code)
}

// bound is a failure bound for things that should happen promptly; it never
// decides a pass on its own.
const bound = 30 * time.Second

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	t.Cleanup(cancel)
	return ctx
}

func connect(t *testing.T, tr mcp.Transport, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cs, err := connectErr(t, tr, opts)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func connectErr(t *testing.T, tr mcp.Transport, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "transports-test", Version: "1.0.0"}, opts)
	return c.Connect(testCtx(t), tr, nil)
}

// callText calls a tool and returns the text of its result; a tool error
// (IsError) is returned as a Go error too.
func callText(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, error) {
	t.Helper()
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "", &toolError{sb.String()}
	}
	return sb.String(), nil
}

type toolError struct{ msg string }

func (e *toolError) Error() string { return "tool error: " + e.msg }

func mustCall(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	s, err := callText(t, cs, name, args)
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return s
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(testCtx(t), nil) {
		if err != nil {
			t.Fatalf("list tools: %v", err)
		}
		names = append(names, tool.Name)
	}
	return names
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// eventually polls cond until it holds or the failure bound passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

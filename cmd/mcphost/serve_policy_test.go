package main

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The gateway's clients are models' tool lists: serve's tools/list leaves
// out what the configuration's policy always denies, and a call of it is
// still refused.
func TestServeLeavesOutDeniedTools(t *testing.T) {
	e := newEnv(t)
	cfg, _ := json.Marshal(map[string]any{
		"servers": map[string]any{"local": testServer(t)},
		"policy":  map[string]any{"deny": []string{"*add*"}},
	})
	writeFile(t, filepath.Join(e.global, "config.json"), string(cfg))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := e.serve(inR, outW)
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
	}
	if names["mcp__local__add"] || !names["mcp__local__echo"] {
		t.Errorf("tools/list %v: want echo, and not add (policy.deny)", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__local__add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err == nil && !res.IsError {
		t.Errorf("the denied tool was called: %+v", res)
	}
	cs.Close()
	inW.Close()
	if code := s.stop(t); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, s.stderr.String())
	}
}

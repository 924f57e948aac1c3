package plugintest_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
	"github.com/mcphost/mcphost/plugins/plugintest"
)

func openFixture(t *testing.T, name string) *plugins.Plugin {
	t.Helper()
	spec := plugins.SpecForFile(filepath.Join("..", "..", "testdata", "plugins", name+".wasm"))
	// The kit runs many concurrent calls; the fixtures read their input a
	// byte per host call, so give them room on a small machine.
	spec.Limits.Timeout = 10 * time.Second
	p, err := plugins.Open(context.Background(), spec, plugins.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

// The kit against Wasm plugins: every hook of all-hooks, and allow-all.
func TestWasmPlugins(t *testing.T) {
	plugintest.Run(t, openFixture(t, "all-hooks"))
	plugintest.Run(t, openFixture(t, "allow-all"), abi.HookPolicy)
}

// A native stage: the kit does not care how a stage is made.
type allowAll struct{}

func (allowAll) StageName() string { return "native-allow" }
func (allowAll) Policy(context.Context, *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	return &abi.PolicyDecision{Decision: abi.Allow}, nil
}
func (allowAll) FilterTools(_ context.Context, r *abi.FilterToolsRequest) (*abi.FilterToolsResponse, error) {
	out := &abi.FilterToolsResponse{Tools: []string{}}
	for _, t := range r.Tools {
		out.Tools = append(out.Tools, t.Name)
	}
	return out, nil
}

func TestNativeStage(t *testing.T) {
	if got := plugintest.Hooks(allowAll{}); len(got) != 2 {
		t.Fatalf("hooks %v", got)
	}
	plugintest.Run(t, allowAll{})
}

// broken breaks every rule once.
type broken struct{ n atomic.Int64 }

func (*broken) StageName() string { return "broken" }
func (b *broken) Policy(_ context.Context, r *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	if r.Arguments != nil {
		r.Arguments["touched"] = true
	}
	if b.n.Add(1)%2 == 1 {
		return &abi.PolicyDecision{Decision: "maybe"}, nil
	}
	return &abi.PolicyDecision{Decision: abi.Allow}, nil
}
func (*broken) FilterTools(context.Context, *abi.FilterToolsRequest) (*abi.FilterToolsResponse, error) {
	return &abi.FilterToolsResponse{Tools: []string{"invented", "invented"}}, nil
}
func (*broken) MapNames(_ context.Context, r *abi.MapNamesRequest) (*abi.MapNamesResponse, error) {
	names := make([]string, len(r.Tools))
	for i := range names {
		names[i] = "bad name!"
	}
	return &abi.MapNamesResponse{Names: names}, nil
}
func (*broken) TransformResult(context.Context, *abi.TransformResultRequest) (*abi.TransformResultResponse, error) {
	return &abi.TransformResultResponse{Result: json.RawMessage(`"just text"`)}, nil
}
func (*broken) Auth(ctx context.Context, _ *abi.AuthRequest) (*abi.AuthResponse, error) {
	return &abi.AuthResponse{Headers: map[string]string{"X-Token": "abc\r\nInjected: yes", "bad name": "x"}, ExpiresIn: -5}, nil
}

func TestKitFindsViolations(t *testing.T) {
	vs := plugintest.Check(context.Background(), &broken{}, plugintest.Options{Timeout: 2 * time.Second})
	all := ""
	for _, v := range vs {
		all += v.Error() + "\n"
	}
	for _, want := range []string{
		`policy: request 0 (files/read_file): the stage changed the request it was given`,
		`is not allow, deny or confirm`,
		`not deterministic`,
		`filter_tools: request 0 (files, 3 tools): keeps "invented", which is not one of the tools`,
		`keeps "invented" twice`,
		`map_names: request 1 (3 tools): name "bad name!"`,
		`name "bad name!" given twice`,
		`transform_result: request 0 (read_file): result is not a JSON object`,
		`auth: request 0 (status 0): header name "bad name" is not an HTTP token`,
		`header X-Token: the value holds CR, LF or NUL`,
		`expires_in -5 is negative`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no violation %q in:\n%s", want, all)
		}
	}
	if strings.Contains(all, "Injected: yes") {
		t.Error("a header value was printed")
	}
}

// blocker ignores its context.
type blocker struct{}

func (blocker) StageName() string { return "blocker" }
func (blocker) Policy(context.Context, *abi.PolicyRequest) (*abi.PolicyDecision, error) {
	time.Sleep(time.Hour)
	return nil, nil
}

func TestKitFindsBlockingStage(t *testing.T) {
	vs := plugintest.Check(context.Background(), blocker{}, plugintest.Options{Timeout: 50 * time.Millisecond, Concurrency: -1})
	if len(vs) == 0 || !strings.Contains(vs[0].Error(), "did not return within") {
		t.Fatalf("violations %v", vs)
	}
}

func TestKitWrongInterface(t *testing.T) {
	vs := plugintest.Check(context.Background(), allowAll{}, plugintest.Options{Hooks: []abi.Hook{abi.HookAuth}})
	if len(vs) != 1 || !strings.Contains(vs[0].Error(), "does not implement") {
		t.Fatalf("violations %v", vs)
	}
}

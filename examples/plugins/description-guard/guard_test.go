// Package descriptionguard_test runs the built description-guard plugin
// (Rust, built by scripts/build-plugins.sh) in mcphost's plugin runtime over
// the corpus of its testdata: the tools of the pinned npm servers, which it
// must all keep, and poisoned tools and near misses. The Rust unit tests run
// the same corpus natively; this checks the module that ships.
package descriptionguard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

type corpus struct {
	Config map[string]string `json:"config"`
	Cases  []struct {
		Label  string       `json:"label"`
		Server string       `json:"server"`
		Tool   abi.ToolInfo `json:"tool"`
		Rule   string       `json:"rule"`
	} `json:"cases"`
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("testdata/%s: %v", name, err)
	}
}

// open loads the built plugin with config; its log lines go to logs.
func open(t testing.TB, config map[string]string, timeout time.Duration, logs *bytes.Buffer) *plugins.Plugin {
	t.Helper()
	dir := os.Getenv("MCPHOST_BUILT_PLUGINS")
	if dir == "" {
		if os.Getenv("CI") != "" || os.Getenv("MCPHOST_REQUIRE_E2E") != "" {
			t.Fatal("MCPHOST_BUILT_PLUGINS is not set: scripts/test.sh builds the examples and sets it")
		}
		t.Skip("set MCPHOST_BUILT_PLUGINS to a directory built by scripts/build-plugins.sh")
	}
	spec := plugins.SpecForFile(filepath.Join(dir, "description-guard.wasm"))
	spec.Config = config
	spec.Limits.Timeout = timeout
	opts := plugins.Options{}
	if logs != nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Output: logs, Level: hclog.Trace})
	}
	p, err := plugins.Open(context.Background(), spec, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p
}

func names(tools []abi.ToolInfo) []string {
	out := make([]string, len(tools))
	for i, tool := range tools {
		out[i] = tool.Name
	}
	return out
}

// Generous: the race detector slows the host side; the limit is not what is
// tested here (the benchmarks measure the cost).
const testTimeout = 10 * time.Second

// The tools of server-everything, server-filesystem and server-memory are
// all kept, with the defaults and with the corpus's known_tools.
func TestRealToolsKept(t *testing.T) {
	var servers []abi.FilterToolsRequest
	readJSON(t, "real-tools.json", &servers)
	var c corpus
	readJSON(t, "poisoned.json", &c)
	total := 0
	for _, config := range []map[string]string{nil, c.Config} {
		var logs bytes.Buffer
		p := open(t, config, testTimeout, &logs)
		for _, req := range servers {
			total += len(req.Tools)
			r, err := p.FilterTools(context.Background(), &req)
			if err != nil {
				t.Fatalf("%s: %v", req.Server, err)
			}
			if want := names(req.Tools); !slices.Equal(r.Tools, want) {
				t.Errorf("%s (config %v): kept %v, want all %v\nlog:\n%s", req.Server, config, r.Tools, want, logs.String())
			}
		}
	}
	if total < 2*30 {
		t.Fatalf("only %d real tools in testdata/real-tools.json", total/2)
	}
}

// Every poisoned case is hidden, by the rule it was written for, and every
// near miss is kept.
func TestPoisonedCorpus(t *testing.T) {
	var c corpus
	readJSON(t, "poisoned.json", &c)
	if len(c.Cases) < 40 {
		t.Fatalf("only %d cases", len(c.Cases))
	}
	var logs bytes.Buffer
	p := open(t, c.Config, testTimeout, &logs)
	for _, tc := range c.Cases {
		logs.Reset()
		req := &abi.FilterToolsRequest{Server: tc.Server, Tools: []abi.ToolInfo{tc.Tool}}
		r, err := p.FilterTools(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", tc.Label, err)
		}
		switch {
		case tc.Rule == "" && len(r.Tools) != 1:
			t.Errorf("%s: a near miss was hidden: %s", tc.Label, logs.String())
		case tc.Rule != "" && len(r.Tools) != 0:
			t.Errorf("%s: kept, want hidden by rule %s", tc.Label, tc.Rule)
		case tc.Rule != "" && !strings.Contains(logs.String(), ": rule "+tc.Rule+": "):
			t.Errorf("%s: want rule %s in the log, got: %s", tc.Label, tc.Rule, logs.String())
		}
	}
}

// generated is n tools made from the real ones (renamed, so that every name
// is unique): a listing of a large server.
func generated(t testing.TB, n int) *abi.FilterToolsRequest {
	var servers []abi.FilterToolsRequest
	readJSON(t, "real-tools.json", &servers)
	var all []abi.ToolInfo
	for _, s := range servers {
		all = append(all, s.Tools...)
	}
	req := &abi.FilterToolsRequest{Server: "big"}
	for i := range n {
		tool := all[i%len(all)]
		tool.Name = fmt.Sprintf("%s_%d", tool.Name, i)
		req.Tools = append(req.Tools, tool)
	}
	return req
}

// The cost of one listing, through the runtime with the default limits
// (timeout_ms 100, so wazero's termination checks are on): each real server,
// the 37 real tools at once, and 1,000 generated tools; "baseline" runs no
// rule (parsing and answering only).
//
//	MCPHOST_BUILT_PLUGINS=DIR go test -run='^$' -bench=Listing -count=3 ./examples/plugins/description-guard/
func BenchmarkListing(b *testing.B) {
	var servers []abi.FilterToolsRequest
	readJSON(b, "real-tools.json", &servers)
	all := &abi.FilterToolsRequest{Server: "all"}
	for _, s := range servers {
		all.Tools = append(all.Tools, s.Tools...)
	}
	big := generated(b, 1000)
	timeout := plugins.SpecForFile("x.wasm").Limits.Timeout
	for _, cfg := range []struct {
		name   string
		config map[string]string
	}{
		{"guard", nil},
		{"baseline", map[string]string{"rules": "tool_names"}},
	} {
		p := open(b, cfg.config, timeout, nil)
		reqs := []*abi.FilterToolsRequest{all, big}
		for i := range servers {
			reqs = append(reqs, &servers[i])
		}
		for _, req := range reqs {
			b.Run(fmt.Sprintf("%s/%s-%d-tools", cfg.name, req.Server, len(req.Tools)), func(b *testing.B) {
				for b.Loop() {
					r, err := p.FilterTools(context.Background(), req)
					if err != nil {
						b.Fatal(err)
					}
					if len(r.Tools) != len(req.Tools) {
						b.Fatalf("kept %d of %d", len(r.Tools), len(req.Tools))
					}
				}
			})
		}
	}
}

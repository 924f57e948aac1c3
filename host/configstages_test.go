package host_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/builtin"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
)

// The configuration's stages run before the ones given with WithStages,
// and their Close runs once, when the host closes.
func TestConfigStagesOrderAndClose(t *testing.T) {
	rec := newRecordingServer()
	var order []string
	stage := func(name string) host.StageConfig {
		return host.StageConfig{Stage: &fakeStage{name: name, policy: func(*abi.PolicyRequest) (*abi.PolicyDecision, error) {
			order = append(order, name)
			return &abi.PolicyDecision{Decision: abi.Allow}, nil
		}}}
	}
	var closed atomic.Int32
	cfg := &config.Config{Policy: config.Policy{Deny: []string{"*delete*"}}}
	h, err := host.New(cfg,
		host.WithStages(stage("library")),
		host.WithConfigStages(host.ConfigStages{
			Stages: []host.StageConfig{stage("config"), {Stage: builtin.GlobPolicy{Deny: cfg.Policy.Deny}}},
			Close:  func(context.Context) error { closed.Add(1); return nil },
		}),
		host.WithInProcessServer("rec", rec.srv))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := h.CallTool(ctx, "mcp__rec__echo", nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ","); got != "config,library" {
		t.Errorf("policy order %s, want config,library", got)
	}
	if _, err := h.CallTool(ctx, "mcp__rec__delete", nil); !errors.Is(err, host.ErrDenied) {
		t.Errorf("delete: %v, want denied", err)
	}
	if closed.Load() != 0 {
		t.Fatal("the configuration's stages were released before the host closed")
	}
	h.Close(context.Background())
	h.Close(context.Background())
	if n := closed.Load(); n != 1 {
		t.Errorf("ConfigStages.Close ran %d times, want once", n)
	}
}

// A tool that a name-only policy always denies is left out of Tools (what
// a model is offered), kept and marked in AllTools; a shadow stage, or one
// for other servers, does not hide it; calling it still says why.
func TestToolsLeaveOutWhatPolicyAlwaysDenies(t *testing.T) {
	rec := newRecordingServer()
	deny := builtin.GlobPolicy{Deny: []string{"*delete*"}}
	h := startHost(t, nil, host.WithInProcessServer("rec", rec.srv),
		host.WithStages(
			host.StageConfig{Stage: builtin.GlobPolicy{Deny: []string{"*echo*"}}, Mode: host.ModeShadow},
			host.StageConfig{Stage: builtin.GlobPolicy{Allow: []string{"nothing"}}, Servers: []string{"other-*"}},
			host.StageConfig{Stage: deny},
		))
	names := func(ts []host.Tool) string {
		var out []string
		for _, t := range ts {
			out = append(out, t.Name+"="+t.Denied)
		}
		return strings.Join(out, " ")
	}
	if got := names(h.Tools()); got != "mcp__rec__echo=" {
		t.Errorf("Tools = %s, want only mcp__rec__echo", got)
	}
	if got, want := names(h.AllTools()), `mcp__rec__delete=builtin:glob-policy: matches deny "*delete*" mcp__rec__echo=`; got != want {
		t.Errorf("AllTools = %s, want %s", got, want)
	}
	if _, ok := h.Resolve("mcp__rec__delete"); !ok {
		t.Error("a denied tool no longer resolves: calling it should say why it is denied")
	}
	_, err := h.CallTool(testContext(t), "mcp__rec__delete", nil)
	var denied *host.DeniedError
	if !errors.As(err, &denied) || !strings.Contains(denied.Reason, `"*delete*"`) {
		t.Errorf("call: %v, want denied naming the glob", err)
	}
}

// SetServers is no way around New's refusal: a host built without its
// configuration's stages does not take a configuration that asks for them.
func TestSetServersRefusesConfigWithoutItsStages(t *testing.T) {
	h := startHost(t, nil)
	_, err := h.SetServers(testContext(t), &config.Config{Policy: config.Policy{Deny: []string{"*"}}})
	if err == nil || !strings.Contains(err.Error(), "chain.NewHost") {
		t.Errorf("SetServers = %v, want a refusal naming chain.NewHost", err)
	}
}

// A host built with its configuration's stages does not start a server
// under a configuration that asks for another policy: the server would run
// without it. It is left out, with an error saying to restart; removals go
// ahead; with the same policy the server is added.
func TestSetServersHoldsServersUnderChangedPolicy(t *testing.T) {
	built := &config.Config{Servers: []*config.Server{testServer(t, "old")}, Policy: config.Policy{Deny: []string{"*delete*"}}}
	h, err := host.New(built, host.WithConfigStages(host.ConfigStages{
		Stages: []host.StageConfig{{Stage: builtin.GlobPolicy{Deny: built.Policy.Deny}}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })

	wider := &config.Config{Servers: []*config.Server{testServer(t, "e")}, Policy: config.Policy{Deny: []string{"*delete*", "*add*"}}}
	change, err := h.SetServers(ctx, wider)
	if err != nil {
		t.Fatal(err)
	}
	if len(change.Added) != 0 || !slices.Equal(change.Removed, []string{"old"}) {
		t.Errorf("change %+v: want old removed and e not added", change)
	}
	if e := change.Errors["e"]; e == nil || !strings.Contains(e.Error(), "policy") || !strings.Contains(e.Error(), "restart") {
		t.Errorf("Errors[e] = %v, want it to say the policy changed and to restart", e)
	}
	if tools := h.AllTools(); len(tools) != 0 {
		t.Errorf("tools %v: a server was started under a policy the host does not apply", tools)
	}

	same := &config.Config{Servers: []*config.Server{testServer(t, "e")}, Policy: built.Policy}
	if change, err := h.SetServers(ctx, same); err != nil || len(change.Added) != 1 || change.Errors != nil {
		t.Fatalf("SetServers with the same policy: %+v %v", change, err)
	}
}

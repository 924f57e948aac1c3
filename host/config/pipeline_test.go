package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestPolicyAndResultsLayersOnlyTighten(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", `
policy:
  allow: ["mcp__*"]
  deny: ["*delete*"]
  confirm_destructive: true
results:
  max_bytes: 4096
`)
	e.writeProject(".mcphost.yaml", `
policy:
  deny: ["*push*"]
  confirm_destructive: false
results:
  max_bytes: 100
`)
	// Untrusted: the project's section is ignored.
	cfg := e.load()
	want := Policy{Allow: []string{"mcp__*"}, Deny: []string{"*delete*"}, ConfirmDestructive: true}
	if !reflect.DeepEqual(cfg.Policy, want) || cfg.Results.MaxBytes != 4096 {
		t.Fatalf("untrusted project changed the policy: %+v %+v", cfg.Policy, cfg.Results)
	}
	e.trust()
	cfg = e.load()
	want.Deny = []string{"*delete*", "*push*"}
	if !reflect.DeepEqual(cfg.Policy, want) {
		t.Errorf("policy = %+v, want %+v (deny accumulates, confirm stays on)", cfg.Policy, want)
	}
	if cfg.Results.MaxBytes != 100 {
		t.Errorf("results = %+v", cfg.Results)
	}
}

func TestPolicyAndResultsErrors(t *testing.T) {
	for content, want := range map[string]string{
		"policy: {deny: [\"[\"]}":          "policy.deny: bad glob",
		"policy: {allow: 3}":               "policy.allow: must be a list",
		"policy: {confirm_destructive: 1}": "policy.confirm_destructive: must be true or false",
		"policy: {denny: []}":              `unknown field "denny"`,
		"results: {max_bytes: -1}":         "results.max_bytes",
		"results: {max_byte: 10}":          `did you mean "max_bytes"`,
		"policy: 3":                        "policy: must be a map",
	} {
		e := newEnv(t)
		e.writeGlobal("config.yaml", content+"\n")
		_, err := Load(e.opts())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", content, err, want)
		}
	}
}

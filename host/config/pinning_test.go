package config

import (
	"strings"
	"testing"
)

func TestPinningDefaultsAndUserChoice(t *testing.T) {
	e := newEnv(t)
	cfg := e.load()
	if got := cfg.Pinning; got.ChangedAction() != PinHide || got.NewAction() != PinAllow {
		t.Fatalf("defaults: changed %s, new %s", got.ChangedAction(), got.NewAction())
	}
	e.writeGlobal("config.yaml", "pinning:\n  changed: warn\n  new: confirm\n")
	cfg = e.load()
	if cfg.Pinning.ChangedAction() != PinWarn || cfg.Pinning.NewAction() != PinConfirm {
		t.Fatalf("user file: %+v", cfg.Pinning)
	}
}

func TestProjectFileCannotWeakenPinning(t *testing.T) {
	e := newEnv(t)
	e.writeGlobal("config.yaml", "pinning:\n  changed: confirm\n  new: confirm\n")
	e.writeProject(".mcphost.yaml", "pinning:\n  changed: warn\n  new: allow\n")
	e.trust()
	cfg := e.load()
	if cfg.Pinning.ChangedAction() != PinConfirm || cfg.Pinning.NewAction() != PinConfirm {
		t.Fatalf("a project file weakened pinning: %+v", cfg.Pinning)
	}
	if w := strings.Join(cfg.Warnings, "\n"); !strings.Contains(w, "pinning.changed: warn is ignored") || !strings.Contains(w, "pinning.new: allow is ignored") {
		t.Errorf("warnings = %q", w)
	}
	// With the defaults (changed: hide) a project cannot weaken either,
	// and it may tighten.
	e = newEnv(t)
	e.writeProject(".mcphost.yaml", "pinning:\n  changed: warn\n  new: hide\n")
	e.trust()
	cfg = e.load()
	if cfg.Pinning.ChangedAction() != PinHide || cfg.Pinning.NewAction() != PinHide {
		t.Fatalf("project over the defaults: %+v", cfg.Pinning)
	}
}

func TestPinningErrors(t *testing.T) {
	for content, want := range map[string]string{
		"pinning: {changed: ask}":  `pinning.changed: "ask" is not one of [warn confirm hide]`,
		"pinning: {new: warn}":     `pinning.new: "warn" is not one of [allow confirm hide]`,
		"pinning: {chanegd: hide}": `did you mean "changed"`,
		"pinning: 3":               "pinning: must be a map",
	} {
		e := newEnv(t)
		e.writeGlobal("config.yaml", content+"\n")
		_, err := Load(e.opts())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", content, err, want)
		}
	}
}

package chain

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/host/config"
	"github.com/mcphost/mcphost/pdk/abi"
	"github.com/mcphost/mcphost/plugins"
)

// The two packages spell the same values on their own (plugins imports
// neither host nor host/config): they must agree.
func TestValuesAgree(t *testing.T) {
	for _, tc := range []struct{ name, cfg, rt, h string }{
		{"OnErrorDeny", config.OnErrorDeny, plugins.OnErrorDeny, host.OnErrorDeny},
		{"OnErrorAllow", config.OnErrorAllow, plugins.OnErrorAllow, host.OnErrorAllow},
		{"OnErrorFallback", config.OnErrorFallback, plugins.OnErrorFallback, host.OnErrorFallback},
		{"ModeEnforce", config.ModeEnforce, plugins.ModeEnforce, host.ModeEnforce},
		{"ModeShadow", config.ModeShadow, plugins.ModeShadow, host.ModeShadow},
	} {
		if tc.cfg != tc.rt || tc.cfg != tc.h {
			t.Errorf("%s: config %q, plugins %q, host %q", tc.name, tc.cfg, tc.rt, tc.h)
		}
	}
	d, c := plugins.DefaultLimits(), config.DefaultPluginLimits()
	if d.Timeout != c.Timeout || d.MemoryMB != c.MemoryMB || d.MaxOutputBytes != c.MaxOutputBytes {
		t.Errorf("plugins.DefaultLimits() = %+v, config.DefaultPluginLimits() = %+v", d, c)
	}
}

// Every field of config.Plugin reaches the spec, under the same name.
func TestSpecCopiesEveryField(t *testing.T) {
	in := &config.Plugin{
		Name: "p", Path: "/x/p.wasm", SHA256: "ab", Hooks: []abi.Hook{abi.HookPolicy},
		Servers: []string{"s*"}, Config: map[string]string{"k": "v"},
		Limits:  config.PluginLimits{Timeout: time.Second, MemoryMB: 3, MaxOutputBytes: 4},
		Secrets: config.Secrets{"t": "v"}, AllowedHosts: []string{"h"}, AllowPrivate: true,
		OnError: config.OnErrorAllow, Mode: config.ModeShadow, Source: "f", Untrusted: true, Blocked: "b", Err: errors.New("e"),
	}
	out := reflect.ValueOf(*Spec(in))
	src := reflect.ValueOf(*in)
	if out.NumField() != src.NumField() {
		t.Fatalf("config.Plugin has %d fields, plugins.Spec %d: map the new ones", src.NumField(), out.NumField())
	}
	for i := range src.NumField() {
		name := src.Type().Field(i).Name
		f := out.FieldByName(name)
		if !f.IsValid() {
			t.Errorf("plugins.Spec has no field %s", name)
			continue
		}
		if f.IsZero() {
			t.Errorf("Spec left %s empty", name)
		}
	}
	if Spec(nil) != nil {
		t.Error("Spec(nil) != nil")
	}
	if got := Specs([]*config.Plugin{nil, in}); len(got) != 2 || got[0] != nil || got[1].Name != "p" {
		t.Errorf("Specs = %v", got)
	}
}

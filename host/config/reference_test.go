package config

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The configuration examples of the configuration guide
// (docs/configuration.md) must load without any error, so the documentation
// cannot drift from the loader: the blocks marked <!-- test: FILE -->, and
// the configuration files the guide writes with <!-- doc: file PATH -->.
func TestReferenceExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- (?:test: |doc: file (?:\\S*/)?)(config\\.\\w+|\\.mcphost\\.\\w+|\\.mcp\\.json) -->\n```[a-z]*\n(.*?)```")
	blocks := re.FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 5 {
		t.Fatalf("found %d examples", len(blocks))
	}
	// Project examples build on the global YAML example (config.yaml).
	var global string
	for _, b := range blocks {
		if b[1] == "config.yaml" {
			global = b[2]
			break
		}
	}
	if global == "" {
		t.Fatal("no config.yaml example")
	}
	for _, b := range blocks {
		name, content := b[1], b[2]
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.environ = []string{"HOME=/home/me", "GITHUB_TOKEN=t"}
			if strings.HasPrefix(name, "config.") {
				e.writeGlobal(name, content)
			} else {
				e.writeGlobal("config.yaml", global)
				e.writeProject(name, content)
				e.trust()
			}
			cfg := e.load()
			if len(cfg.Servers) == 0 {
				t.Fatal("no servers")
			}
			for _, s := range cfg.Servers {
				if s.Err != nil || s.Untrusted {
					t.Errorf("%s: %v (untrusted %v)", s.ID, s.Err, s.Untrusted)
				}
			}
			// The JSON and TOML examples are the YAML one in another
			// format: they load to the same servers, names and pinning.
			if name == "config.json" || name == "config.toml" {
				y := newEnv(t)
				y.environ = e.environ
				y.writeGlobal("config.yaml", global)
				if got, want := summary(cfg), summary(y.load()); got != want {
					t.Errorf("%s loads to\n%s\nthe YAML example to\n%s", name, got, want)
				}
			}
		})
	}
}

// summary is what a configuration example says: its servers, names and
// pinning.
func summary(cfg *Config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "names %+v\n", cfg.Names)
	fmt.Fprintf(&b, "pinning %+v\n", cfg.Pinning)
	for _, s := range cfg.Servers {
		fmt.Fprintf(&b, "%s %s %q %q %q enabled=%v\n", s.ID, s.Transport, s.Command, s.Args, s.URL, s.Enabled)
	}
	return b.String()
}

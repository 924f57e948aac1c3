package config

import (
	"strings"
	"testing"
)

// tomlStackShapes are TOML files that made the parser recurse once per
// dotted part or nesting level: at a few megabytes they exhausted the stack
// and ended the process (which recover cannot stop). These are just over
// the bounds, so the tests stay small.
var tomlStackShapes = map[string]string{
	"long table header": "[" + strings.Repeat("a.", 150) + "a]\nx = 1\n",
	"long array header": "[[" + strings.Repeat("a.", 150) + "a]]\nx = 1\n",
	"long dotted key":   strings.Repeat("a.", 150) + "a = 1\n",
	"long inline key":   "x = {" + strings.Repeat("a.", 150) + "a = 1}\n",
	"deep arrays":       "x = " + strings.Repeat("[", maxTOMLDepth+1) + strings.Repeat("]", maxTOMLDepth+1) + "\n",
	"deep inline":       "x = " + strings.Repeat("{a = ", maxTOMLDepth) + "1" + strings.Repeat("}", maxTOMLDepth) + "\n",
}

// A project file of such a shape is a warning naming the file and the line
// while the project is untrusted (the user's servers load), and an error
// once trusted, as any broken project file.
func TestProjectTOMLTooDeepIsAWarning(t *testing.T) {
	for name, src := range tomlStackShapes {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			e.writeGlobal("config.yaml", "servers:\n  mine: {command: x}\n")
			p := e.writeProject(".mcphost.toml", src)
			cfg := e.load()
			server(t, cfg, "mine")
			e.wantProjectProblem(p+":1:", "config: ")
		})
	}
}

func TestParseFileRefusesTOMLStackShapes(t *testing.T) {
	for name, src := range tomlStackShapes {
		_, err := parseFile("/p/config.toml", []byte(src))
		if err == nil || !strings.HasPrefix(err.Error(), "config: /p/config.toml:1:") ||
			!(strings.Contains(err.Error(), "dot-separated parts") || strings.Contains(err.Error(), "levels deep")) {
			t.Errorf("%s: parseFile = %v", name, err)
		}
	}
	// The same shapes within the bounds parse.
	for _, src := range []string{
		"[" + strings.Repeat("a.", 99) + "a]\nx = 1\n",
		"x = " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n",
	} {
		if _, err := parseFile("/p/config.toml", []byte(src)); err != nil {
			t.Errorf("parseFile(%.40q) = %v", src, err)
		}
	}
}

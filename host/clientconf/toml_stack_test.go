package clientconf

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/tomlguard"
)

// tomlStackShapes made the TOML parser recurse once per dotted part or
// nesting level: at a few megabytes they exhausted the stack and ended the
// process, which recover cannot stop. These are just over the bounds.
var tomlStackShapes = map[string]string{
	"long table header": "model = \"x\"\n[" + strings.Repeat("mcp_servers.", 150) + "a]\ncommand = \"x\"\n",
	"long array header": "[[" + strings.Repeat("a.", 150) + "a]]\n",
	"long dotted key":   strings.Repeat("a.", 150) + "a = 1\n",
	"long inline key":   "x = {" + strings.Repeat("a.", 150) + "a = 1}\n",
	"deep arrays":       "x = " + strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1) + "\n",
	"deep inline":       "x = " + strings.Repeat("{a = ", maxNesting) + "1" + strings.Repeat("}", maxNesting) + "\n",
}

func TestImportRefusesTOMLStackShapes(t *testing.T) {
	for name, src := range tomlStackShapes {
		_, err := Import(Codex, []byte(src), Source{})
		if err == nil || !strings.Contains(err.Error(), "line ") ||
			!(strings.Contains(err.Error(), "dot-separated parts") || strings.Contains(err.Error(), "nested more than")) {
			t.Errorf("%s: Import = %v", name, err)
		}
	}
}

func TestInstallRefusesTOMLStackShapes(t *testing.T) {
	for name, src := range tomlStackShapes {
		t.Run(name, func(t *testing.T) {
			path := putFile(t, "config.toml", []byte(src))
			_, err := PlanInstall(Codex, stateEnv(t), InstallOptions{File: path, Command: testCommand})
			if err == nil || !strings.Contains(err.Error(), path) ||
				!(strings.Contains(err.Error(), "dot-separated parts") || strings.Contains(err.Error(), "nests deeper")) {
				t.Fatalf("PlanInstall = %v", err)
			}
			if _, err := parseTOMLSafely([]byte(src)); !errors.As(err, new(*tomlguard.Error)) {
				t.Fatalf("parseTOMLSafely = %v, want a tomlguard error", err)
			}
		})
	}
}

package clientconf

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func addInstallSeeds(f *testing.F, ext string) {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "install", "*"+ext))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func fuzzEditor(kind Kind) entryEditor {
	sh, _ := shapeOf(kind)
	return entryEditor{shape: sh, path: "fuzz", name: DefaultEntryName}
}

// FuzzInstallJSON: on any input, install and uninstall do not panic, never
// produce a file that does not decode to the intended document, and
// uninstall takes back what install added.
func FuzzInstallJSON(f *testing.F) {
	addInstallSeeds(f, ".json")
	for _, s := range []string{"", "{}", "[]", "// c\n", `{"mcpServers":{"a":{}},}`, "{\r\n\"servers\": {\r\n}\r\n}",
		`{"mcpServers": {"mcphost": {"command": "mcphost", "args": ["serve"]}}}`, `{"context_servers": {/* x */}}`,
		"{\n  \"mcpServers\": {\n    \"a\": 1 /* b\n */\n  }\n}", `{"a":1 // x` + "\n}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, kind := range []Kind{ClaudeDesktop, VSCode, Zed} {
			ed := fuzzEditor(kind)
			entry := ed.shape.entry(testCommand, []string{"serve"})
			want := entry.generic()
			out, _, has, err := ed.jsonInstall(src, entry, want, false)
			if errors.Is(err, errEditMismatch) {
				t.Fatalf("%s: install produced a wrong document from %q: %v", kind, src, err)
			}
			if err != nil || has || out == nil {
				continue
			}
			v, err := decodeEntryJSON(out)
			if err != nil {
				t.Fatalf("%s: install output does not decode: %v\n%q", kind, err, out)
			}
			servers, _ := v.(map[string]any)[ed.shape.container].(map[string]any)
			if !reflect.DeepEqual(servers[ed.name], want) {
				t.Fatalf("%s: entry not installed in %q", kind, out)
			}
			if _, _, has, err := ed.jsonInstall(out, entry, want, false); err != nil || !has {
				t.Fatalf("%s: second install: has %v, %v", kind, has, err)
			}
			back, _, has, err := ed.jsonUninstall(out, func(any) error { return nil })
			if err != nil || !has {
				t.Fatalf("%s: uninstall after install: has %v, %v\n%q", kind, has, err, out)
			}
			if !jsoncBlank(src) {
				orig, _ := decodeEntryJSON(src)
				got, err := decodeEntryJSON(back)
				if err != nil || !reflect.DeepEqual(dropEmptyContainer(got, ed.shape.container), dropEmptyContainer(orig, ed.shape.container)) {
					t.Fatalf("%s: uninstall did not give back the document: %v\n%q\n%q", kind, err, src, back)
				}
			}
		}
	})
}

// FuzzInstallTOML: the same for Codex's TOML, where a form the editor does
// not handle is refused; what install wrote, uninstall must find.
func FuzzInstallTOML(f *testing.F) {
	addInstallSeeds(f, ".toml")
	for _, s := range []string{"", "a = 1", "[mcp_servers.mcphost]\ncommand = \"mcphost\"\nargs = [\"serve\"]\n",
		"x = \"\"\"\n[mcp_servers.mcphost]\n\"\"\"\n", "[mcp_servers]\na.command = \"x\"\n", "a = [\n[1],\n]\n",
		"[[mcp_servers.mcphost.x]]\n", "[\"", "['mcp_servers'.\"mcphost\"]\ncommand='mcphost'\nargs=['serve']\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		ed := fuzzEditor(Codex)
		entry := ed.shape.entry(testCommand, []string{"serve"})
		want := entry.generic()
		out, _, has, err := ed.tomlInstall(src, entry, want, true)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "clientconf: ") || !strings.Contains(err.Error(), "fuzz") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if out == nil {
			return // already installed
		}
		doc, err := parseTOMLSafely(out)
		if err != nil {
			t.Fatalf("install output does not parse: %v\n%q", err, out)
		}
		servers, _ := doc[ed.shape.container].(map[string]any)
		if !reflect.DeepEqual(servers[ed.name], want) {
			t.Fatalf("entry not installed in %q", out)
		}
		back, _, removed, err := ed.tomlUninstall(out, func(any) error { return nil })
		if err != nil || !removed {
			t.Fatalf("uninstall after install (replaced: %v): %v\n%q", has, err, out)
		}
		if _, err := parseTOMLSafely(back); err != nil {
			t.Fatalf("uninstall output does not parse: %v\n%q", err, back)
		}
	})
}

package clientconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/authn"
	"github.com/mcphost/mcphost/host/config"
)

// FuzzImport feeds every reader (and add-json) whatever bytes: none may
// panic, and whatever comes out must be an entry mcphost can write, under
// a valid id, with secrets only where they belong.
func FuzzImport(f *testing.F) {
	for _, c := range importCases() {
		data, err := os.ReadFile(filepath.Join("testdata", "import", c.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(indexOfKind(c.kind)), data)
	}
	f.Add(uint8(0), []byte(`{"mcpServers": {"a": {"command": "x", "args": ["${", "$$", "${A:-${B}}"]}}}`))
	f.Add(uint8(4), []byte(`{"inputs": [{"id": "i", "type": "promptString", "password": true}], "servers": {"s": {"url": "https://a/${input:i}", "headers": {"A": "${input:i}"}}}}`))
	f.Add(uint8(5), []byte("[mcp_servers.a]\nurl = 'https://x'\nenv_http_headers = { A = 'B' }\n"))
	f.Add(uint8(8), []byte("extensions:\n  a: &x {type: stdio, cmd: x}\n  b: *x\n"))
	f.Add(uint8(5), []byte("[mcp_servers."+strings.Repeat("a.", 120)+"a]\nx = [[[{a.b = 1}]]]\n"))
	f.Fuzz(func(t *testing.T, k uint8, data []byte) {
		kind := Kinds[int(k)%len(Kinds)]
		res, err := Import(kind, data, Source{Path: "fuzz", Scope: ScopeProject, Env: importEnv})
		if err == nil {
			for _, im := range res.Servers {
				checkFuzzImported(t, &im)
			}
		}
		if im, _, err := ImportJSON("fuzz", data, importEnv); err == nil {
			checkFuzzImported(t, im)
		}
	})
}

func indexOfKind(k Kind) int {
	for i, known := range Kinds {
		if known == k {
			return i
		}
	}
	return 0
}

func checkFuzzImported(t *testing.T, im *Imported) {
	t.Helper()
	if err := config.CheckServerID(im.Entry.ID); err != nil {
		t.Fatalf("imported id: %v", err)
	}
	if err := im.Fill(nil).Validate(); err != nil {
		t.Fatalf("%s: imported an invalid entry: %v", im.Entry.ID, err)
	}
	notes := strings.Join(im.Converted, "\n")
	for _, d := range im.Dropped {
		notes += "\n" + d.Field + ": " + d.Reason
	}
	for _, in := range im.Inputs {
		if in.Secret != "" {
			if err := authn.CheckSecretName(in.Secret); err != nil {
				t.Fatalf("secret name: %v", err)
			}
		}
		if len(in.Value) >= 8 && strings.Contains(notes, in.Value) {
			t.Fatalf("%s: a secret value is in the notes", im.Entry.ID)
		}
	}
}

// Text made literal by the escaping reads back as itself.
func FuzzEscapeDollars(f *testing.F) {
	for _, s := range []string{"", "$", "$$", "${A}", "pa$word", "${", "$${x}", "a$"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, esc := range []func(string) string{escapeDollars, escapeEveryDollar} {
			got, err := config.Expand(esc(s), nil)
			if err != nil || got != s {
				t.Fatalf("%q → %q → %q (%v)", s, esc(s), got, err)
			}
		}
	})
}

package main

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// projectFiles lists every file under dir, relative to it.
func projectFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// After mcp add to the project's file, mcp import into it and a client
// install that keeps a backup, the project holds only the files the user
// asked for: the locks and the backup are in the state directory (older
// versions left ..mcphost.yaml.lock and .cursor/mcp.json.mcphost-backup-*
// in the project, where they got committed).
func TestNoStrayFilesInProject(t *testing.T) {
	keyring.MockInit()
	e, _ := newClientEnv(t)
	e.must(exitOK, "mcp", "add", "--scope", "project", "ev", "--", "ev-server")
	if got := projectFiles(t, e.work); !slices.Equal(got, []string{".mcphost.yaml"}) {
		t.Fatalf("after mcp add the project holds %v, want only .mcphost.yaml", got)
	}

	cursor := copyClientFile(t, "tenx/mcp.json", filepath.Join(e.work, ".cursor", "mcp.json"))
	e.must(exitOK, "mcp", "import", "--from", "cursor", "--yes")
	want := []string{".cursor/mcp.json", ".mcphost.yaml"}
	if got := projectFiles(t, e.work); !slices.Equal(got, want) {
		t.Fatalf("after mcp import the project holds %v, want %v", got, want)
	}

	r := e.must(exitOK, "client", "install", "cursor", "--scope", "project", "--command", fakeMcphost, "--yes")
	if got := projectFiles(t, e.work); !slices.Equal(got, want) {
		t.Fatalf("after client install the project holds %v, want %v", got, want)
	}
	backups, _ := filepath.Glob(filepath.Join(e.state, "backups", "mcp.json-*"))
	if len(backups) != 1 {
		t.Fatalf("backups in the state directory: %v, want one\n%s", backups, r)
	}
	wantContains(t, "client install", r.stdout, "the previous version is kept in "+backups[0])
	if got, orig := fileText(t, backups[0]), readFile(t, filepath.Join(importTestdata, "tenx", "mcp.json")); got != orig {
		t.Errorf("backup holds\n%s\nwant the file as it was\n%s", got, orig)
	}
	if !strings.Contains(fileText(t, cursor), fakeMcphost) {
		t.Errorf("the entry was not written:\n%s", fileText(t, cursor))
	}
}

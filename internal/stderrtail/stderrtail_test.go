package stderrtail_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/stderrtail"
)

// npm404 is what "npx -y" of a package the registry does not have writes.
var npm404 = []string{
	"npm error code E404",
	"npm error 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fdoes-not-exist-xyz",
	"npm error 404",
	"npm error 404  The requested resource '@modelcontextprotocol/does-not-exist-xyz@*' could not be found or you do not have permission to access it.",
	"npm error 404",
	"npm error 404 Note that you can also install from a",
	"npm error 404 tarball, folder, http url, or git url.",
	"npm error A complete log of this run can be found in: /home/u/.npm/_logs/2026-01-01T00_00_00_000Z-debug-0.log",
}

func TestTellingNPM404(t *testing.T) {
	got := stderrtail.Telling(npm404)
	want := []string{npm404[0], npm404[1], npm404[3]}
	if !slices.Equal(got, want) {
		t.Errorf("Telling = %q\nwant %q", got, want)
	}
	if key := stderrtail.Key(npm404); key != npm404[1] {
		t.Errorf("Key = %q; want the 404 Not Found line", key)
	}
	below := stderrtail.Below(npm404, "exited with status 1; stderr: "+strconv.Quote(npm404[1]))
	if !slices.Equal(below, []string{npm404[0], npm404[3]}) {
		t.Errorf("Below = %q; want the telling lines but the quoted one", below)
	}
}

func TestTellingPythonAndNode(t *testing.T) {
	py := []string{
		"Traceback (most recent call last):",
		`  File "/srv/server.py", line 3, in <module>`,
		"    import missing_module",
		"ModuleNotFoundError: No module named 'missing_module'",
	}
	if key := stderrtail.Key(py); key != py[3] {
		t.Errorf("Key(python) = %q; want the exception", key)
	}
	node := []string{
		"node:internal/modules/cjs/loader:1228",
		"  throw err;",
		"  ^",
		"",
		"Error: Cannot find module '/srv/index.js'",
		"    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)",
		"    at node:internal/main/run_main_module:28:49 {",
		"  code: 'MODULE_NOT_FOUND',",
		"}",
		"Node.js v20.11.0",
	}
	got := stderrtail.Telling(node)
	if !slices.Equal(got, []string{"Error: Cannot find module '/srv/index.js'"}) {
		t.Errorf("Telling(node) = %q", got)
	}
}

// A tail that names no error is shown by its last lines: they are the best
// guess left.
func TestTellingNoErrorWordKeepsLastLines(t *testing.T) {
	var tail []string
	for i := range 20 {
		tail = append(tail, "line "+strconv.Itoa(i))
	}
	got := stderrtail.Telling(tail)
	if len(got) != stderrtail.MaxLines || got[len(got)-1] != "line 19" {
		t.Errorf("Telling = %q; want the last %d lines", got, stderrtail.MaxLines)
	}
	if stderrtail.Telling(nil) != nil || stderrtail.Key(nil) != "" {
		t.Error("an empty tail has no telling lines")
	}
}

func TestTellingIsBounded(t *testing.T) {
	long := "error: " + strings.Repeat("é", 1000)
	var tail []string
	for range 50 {
		tail = append(tail, long)
	}
	got := stderrtail.Telling(tail)
	if len(got) != stderrtail.MaxLines {
		t.Fatalf("%d lines; want at most %d", len(got), stderrtail.MaxLines)
	}
	for _, line := range got {
		if len(line) > stderrtail.MaxLineBytes || !strings.HasSuffix(line, "…") || !strings.HasPrefix(line, "error: é") {
			t.Fatalf("line of %d bytes (%q...); want at most %d, cut at a rune", len(line), line[:20], stderrtail.MaxLineBytes)
		}
	}
}

package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/host/config"
)

// getText returns `mcp get ID` (the text form) as key -> value; the
// indented lines under a key (env, headers) are its value, one a line.
func (e *testEnv) getText(id string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	last := ""
	for _, line := range strings.Split(strings.TrimSpace(e.must(exitOK, "mcp", "get", id).stdout), "\n") {
		if item, ok := strings.CutPrefix(line, "  "); ok && last != "" {
			out[last] = strings.TrimPrefix(out[last]+"\n"+item, "\n")
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			e.t.Fatalf("mcp get %s: line %q is not key: value", id, line)
		}
		out[k] = strings.TrimSpace(v)
		last = k
	}
	return out
}

// localFile is the file of the local scope (mcp add's default) of e's
// project directory.
func (e *testEnv) localFile() string {
	e.t.Helper()
	p, _, err := config.ScopeFile(config.LoadOptions{GlobalDir: e.global, WorkDir: e.work}, config.ScopeLocal)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// --health-interval and --reconnect-* are written into the entry as given,
// in each format a project file may have; the file loads and mcp get shows
// the values (text and JSON).
func TestMCPAddHealthAndReconnect(t *testing.T) {
	t.Parallel()
	flags := []string{"--health-interval", "45s", "--reconnect-initial-delay", "250ms", "--reconnect-max-delay", "1m", "--reconnect-max-attempts", "5"}
	for _, tc := range []struct {
		file     string // the project file, created beforehand unless YAML
		existing string
		check    func(t *testing.T, content string)
	}{
		{".mcphost.yaml", "", func(t *testing.T, content string) {
			want := "servers:\n  h:\n    command: srv\n    health_interval: 45s\n" +
				"    reconnect:\n      initial_delay: 250ms\n      max_delay: 1m\n      max_attempts: 5\n"
			if content != want {
				t.Errorf("file:\n%s\nwant:\n%s", content, want)
			}
		}},
		{".mcphost.json", "{}\n", func(t *testing.T, content string) {
			var f struct {
				Servers map[string]map[string]any `json:"servers"`
			}
			if err := json.Unmarshal([]byte(content), &f); err != nil {
				t.Fatalf("file is not JSON (%v):\n%s", err, content)
			}
			want := map[string]any{"command": "srv", "health_interval": "45s",
				"reconnect": map[string]any{"initial_delay": "250ms", "max_delay": "1m", "max_attempts": 5.0}}
			if got := f.Servers["h"]; !reflect.DeepEqual(got, want) {
				t.Errorf("entry = %v, want %v\n%s", got, want, content)
			}
		}},
		{".mcphost.toml", "", func(t *testing.T, content string) {
			wantContains(t, "file", content, "[servers.h]\n", "health_interval = '45s'\n",
				"[servers.h.reconnect]\n", "initial_delay = '250ms'\n", "max_delay = '1m'\n", "max_attempts = 5\n")
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			path := filepath.Join(e.work, tc.file)
			if tc.existing != "" || tc.file != ".mcphost.yaml" {
				writeFile(t, path, tc.existing)
			}
			r := e.must(exitOK, append([]string{"mcp", "add", "h", "-s", "project", "--command", "srv"}, flags...)...)
			wantContains(t, "stdout", r.stdout, path)
			tc.check(t, readFile(t, path))

			s := e.getServer("h")
			if s["error"] != nil || s["source"] != path {
				t.Fatalf("the written entry does not load: %v", s)
			}
			if s["health_interval"] != "45s" || s["reconnect_initial_delay"] != "250ms" ||
				s["reconnect_max_delay"] != "1m0s" || s["reconnect_max_attempts"] != 5.0 {
				t.Errorf("mcp get --json = %v", s)
			}
			text := e.getText("h")
			if text["health_interval"] != "45s" || text["reconnect_initial_delay"] != "250ms" ||
				text["reconnect_max_delay"] != "1m0s" || text["reconnect_max_attempts"] != "5" {
				t.Errorf("mcp get = %v", text)
			}
		})
	}
}

// Without the flags mcp get says the defaults; "off" and a lone initial
// delay longer than the default maximum are shown as the host applies them.
func TestMCPGetHealthAndReconnectDefaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	project := filepath.Join(e.work, ".mcphost.yaml")
	e.must(exitOK, "mcp", "add", "plain", "-s", "project", "--command", "srv")
	wantNotContains(t, "project file", readFile(t, project), "health_interval", "reconnect")
	s := e.getServer("plain")
	if s["health_interval"] != "30s" || s["reconnect_initial_delay"] != "500ms" ||
		s["reconnect_max_delay"] != "30s" || s["reconnect_max_attempts"] != 0.0 {
		t.Errorf("defaults = %v", s)
	}
	text := e.getText("plain")
	if text["health_interval"] != "30s" || text["reconnect_initial_delay"] != "500ms" ||
		text["reconnect_max_delay"] != "30s" || text["reconnect_max_attempts"] != "0" {
		t.Errorf("defaults (text) = %v", text)
	}

	e.must(exitOK, "mcp", "add", "quiet", "-s", "project", "--url", "https://example.com/mcp", "--health-interval", "off", "--reconnect-initial-delay", "2m")
	wantContains(t, "project file", readFile(t, project), "health_interval: \"off\"", "initial_delay: 2m")
	s = e.getServer("quiet")
	if s["error"] != nil || s["health_interval"] != "off" || s["reconnect_initial_delay"] != "2m0s" ||
		s["reconnect_max_delay"] != "2m0s" || s["reconnect_max_attempts"] != 0.0 {
		t.Errorf("quiet = %v", s)
	}
	if text := e.getText("quiet"); text["health_interval"] != "off" {
		t.Errorf("quiet (text) = %v", text)
	}

	// A number of seconds, and 0 for off, as in the file.
	e.must(exitOK, "mcp", "add", "secs", "--command", "srv", "--health-interval", "90", "--reconnect-max-delay", "2.5")
	if s := e.getServer("secs"); s["error"] != nil || s["health_interval"] != "1m30s" || s["reconnect_max_delay"] != "2.5s" {
		t.Errorf("secs = %v", s)
	}
	e.must(exitOK, "mcp", "add", "zero", "--command", "srv", "--health-interval", "0")
	if s := e.getServer("zero"); s["error"] != nil || s["health_interval"] != "off" {
		t.Errorf("zero = %v", s)
	}
}

func TestMCPAddHealthAndReconnectUsageErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.must(exitOK, "mcp", "add", "keep", "--command", "x")
	local := e.localFile()
	before := readFile(t, local)
	add := func(flags ...string) []string {
		return append([]string{"mcp", "add", "x", "--command", "a"}, flags...)
	}
	wantUsageErrors(t, e, []usageCase{
		{add("--health-interval", "-5s"), []string{`--health-interval "-5s"`, "positive duration", `"off"`}},
		{add("--health-interval", "soon"), []string{`--health-interval "soon"`, "positive duration"}},
		{add("--health-interval", "true"), []string{`--health-interval "true"`}},
		{add("--reconnect-initial-delay", "-1s"), []string{`--reconnect-initial-delay "-1s"`, "positive duration"}},
		{add("--reconnect-initial-delay", "0"), []string{`--reconnect-initial-delay "0"`, "positive duration"}},
		{add("--reconnect-max-delay", "-2m"), []string{`--reconnect-max-delay "-2m"`, "positive duration"}},
		{add("--reconnect-max-delay", "later"), []string{`--reconnect-max-delay "later"`}},
		{add("--reconnect-initial-delay", "2s", "--reconnect-max-delay", "1s"), []string{"--reconnect-max-delay 1s is less than --reconnect-initial-delay 2s"}},
		{add("--reconnect-initial-delay", "1m", "--reconnect-max-delay", "59"), []string{"--reconnect-max-delay 59 is less than --reconnect-initial-delay 1m"}},
		{add("--reconnect-max-attempts", "-1"), []string{"--reconnect-max-attempts -1", "0 (no limit"}},
		{add("--reconnect-max-attempts", "3000000000"), []string{"--reconnect-max-attempts 3000000000", "2147483647"}},
		{add("--reconnect-max-attempts", "many"), []string{`invalid argument "many" for "--reconnect-max-attempts"`, "mcphost mcp add --help"}},
		{add("--reconnect-max-attempts", "2.5"), []string{`"--reconnect-max-attempts"`}},
	})
	if after := readFile(t, local); after != before {
		t.Errorf("refused adds changed the local file:\n%s", after)
	}
	r := e.must(exitOK, "mcp", "add", "--help")
	wantContains(t, "mcp add help", r.stdout, "--health-interval", "--reconnect-initial-delay", "--reconnect-max-delay", "--reconnect-max-attempts int")
}

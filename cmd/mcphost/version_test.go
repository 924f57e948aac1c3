package main

import (
	"runtime"
	"strings"
	"testing"

	"github.com/mcphost/mcphost/internal/buildinfo"
	"github.com/mcphost/mcphost/pdk/abi"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.must(exitOK, "version")
	wantContains(t, "version", r.stdout, "version     ", "commit      ", "date        ", "go          "+runtime.Version(),
		"platform    "+runtime.GOOS+"/"+runtime.GOARCH, "plugin abi  v1")

	info := decodeJSON[buildinfo.Info](t, e.must(exitOK, "version", "--json"))
	if info.Version == "" || info.GoVersion != runtime.Version() || info.OS != runtime.GOOS || info.PluginABI != abi.Version {
		t.Errorf("version --json = %+v", info)
	}
	for _, args := range [][]string{{"--version"}, {"--version", "servers"}} {
		r = e.must(exitOK, args...)
		if !strings.HasPrefix(r.stdout, "mcphost "+info.Version+" (") || !strings.HasSuffix(r.stdout, ", plugin ABI v1)\n") || strings.Count(r.stdout, "\n") != 1 {
			t.Errorf("--version printed %q", r.stdout)
		}
	}
	wantUsageErrors(t, e, []usageCase{{[]string{"version", "extra"}, []string{"unknown command"}}})
}

// A release build's linker values are what both forms print.
func TestVersionOneLine(t *testing.T) {
	t.Parallel()
	info := buildinfo.Info{Version: "1.2.0", Commit: "0123456789abcdef0123", Date: "2025-01-02T03:04:05Z", GoVersion: "go1.26.8", OS: "linux", Arch: "arm64", PluginABI: 1}
	want := "1.2.0 (commit 0123456789ab, date 2025-01-02T03:04:05Z, go1.26.8 linux/arm64, plugin ABI v1)"
	if got := oneLineVersion(info); got != want {
		t.Errorf("oneLineVersion = %q, want %q", got, want)
	}
	info = buildinfo.Info{Version: "dev", Commit: "abc", Modified: true, GoVersion: "go1.26.8", OS: "darwin", Arch: "amd64", PluginABI: 1}
	want = "dev (commit abc (modified), go1.26.8 darwin/amd64, plugin ABI v1)"
	if got := oneLineVersion(info); got != want {
		t.Errorf("oneLineVersion = %q, want %q", got, want)
	}
}

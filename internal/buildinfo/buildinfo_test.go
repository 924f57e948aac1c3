package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/mcphost/mcphost/pdk/abi"
)

func TestResolve(t *testing.T) {
	vcs := func(rev, at, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name                  string
		version, commit, date string
		bi                    *debug.BuildInfo
		want                  Info
	}{
		{name: "no information at all", want: Info{Version: Dev}},
		{
			name:    "release build: the linker's values win",
			version: "1.2.0", commit: "abc1234", date: "2025-01-02T03:04:05Z",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.1.0"}, Settings: vcs(rev, "2024-01-01T00:00:00Z", "true")},
			want: Info{Version: "1.2.0", Commit: "abc1234", Date: "2025-01-02T03:04:05Z", GoVersion: "go1.26.8"},
		},
		{
			name: "go install module@version",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.3.0"}},
			want: Info{Version: "v1.3.0", GoVersion: "go1.26.8"},
		},
		{
			name: "built from a clone with changes",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "2025-02-03T04:05:06Z", "true")},
			want: Info{Version: Dev, Commit: rev, Date: "2025-02-03T04:05:06Z", Modified: true, GoVersion: "go1.26.8"},
		},
		{
			name:    "a linker commit does not take the clone's dirty flag",
			version: "1.2.0", commit: "abc1234",
			bi:   &debug.BuildInfo{GoVersion: "go1.26.8", Settings: vcs(rev, "2025-02-03T04:05:06Z", "true")},
			want: Info{Version: "1.2.0", Commit: "abc1234", Date: "2025-02-03T04:05:06Z", GoVersion: "go1.26.8"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Resolve(tc.version, tc.commit, tc.date, tc.bi)
			want := tc.want
			if want.GoVersion == "" {
				want.GoVersion = runtime.Version()
			}
			want.OS, want.Arch, want.PluginABI = runtime.GOOS, runtime.GOARCH, abi.Version
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestShortCommit(t *testing.T) {
	if got := (Info{Commit: "0123456789abcdef"}).ShortCommit(); got != "0123456789ab" {
		t.Errorf("ShortCommit = %q", got)
	}
	if got := (Info{Commit: "abc"}).ShortCommit(); got != "abc" {
		t.Errorf("ShortCommit = %q", got)
	}
}

// The test binary has build information; Read must not fail on it.
func TestRead(t *testing.T) {
	info := Read("", "", "")
	if info.Version == "" || info.GoVersion == "" || info.PluginABI != abi.Version {
		t.Errorf("Read = %+v", info)
	}
}

// The module's version is found whether mcphost is the main module or a
// dependency of an embedding program, through a replace too.
func TestModuleVersion(t *testing.T) {
	dep := func(path, version string, replace *debug.Module) *debug.Module {
		return &debug.Module{Path: path, Version: version, Replace: replace}
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, Dev},
		{"main module, go install @version", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.4.0"}}, "v1.4.0"},
		{"main module built in its tree", &debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}}, Dev},
		{"a dependency", &debug.BuildInfo{Main: debug.Module{Path: "example.com/agent", Version: "v0.3.0"},
			Deps: []*debug.Module{dep("golang.org/x/sys", "v0.1.0", nil), dep(Module, "v1.5.2", nil)}}, "v1.5.2"},
		{"a replaced dependency", &debug.BuildInfo{Main: debug.Module{Path: "example.com/agent"},
			Deps: []*debug.Module{dep(Module, "v1.5.2", dep("example.com/fork", "v1.5.3-fix", nil))}}, "v1.5.3-fix"},
		{"a dependency replaced by a directory", &debug.BuildInfo{Main: debug.Module{Path: "example.com/agent"},
			Deps: []*debug.Module{dep(Module, "v1.5.2", dep("../mcphost", "", nil))}}, "v1.5.2"},
		{"not in the binary", &debug.BuildInfo{Main: debug.Module{Path: "example.com/agent", Version: "v0.3.0"}}, Dev},
	} {
		if got := moduleVersion(tc.bi); got != tc.want {
			t.Errorf("%s: moduleVersion = %q, want %q", tc.name, got, tc.want)
		}
	}
}

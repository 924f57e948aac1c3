// Package buildinfo says which mcphost this is: version, commit, build date,
// toolchain, platform and plugin ABI, for "mcphost version" and for bug
// reports.
//
// A release build sets the version, commit and date with the linker
// (-ldflags "-X main.version=1.2.0 -X main.commit=... -X main.date=...").
// Other builds fall back to what the Go toolchain records in the binary: the
// module version for "go install module@version", and the VCS revision,
// time and dirty flag for a build from a clone.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/mcphost/mcphost/pdk/abi"
)

// Dev is the version of a build that knows none.
const Dev = "dev"

// Info describes one build. The JSON field names are stable: scripts read
// "mcphost version --json".
type Info struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	// Date is when the binary was built (release builds) or, failing that,
	// the time of the commit it was built from.
	Date string `json:"date,omitempty"`
	// Modified: built from a clone with uncommitted changes.
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	// PluginABI is the plugin ABI version this mcphost loads (pdk/abi).
	PluginABI int `json:"plugin_abi"`
}

// Read returns the running binary's Info from the linker-set values
// (empty when unset) and the build information the toolchain embedded.
func Read(version, commit, date string) Info {
	bi, _ := debug.ReadBuildInfo()
	return Resolve(version, commit, date, bi)
}

// Resolve is Read with the build information given (nil: none).
// Linker-set values win; each missing one comes from bi where it has it.
func Resolve(version, commit, date string, bi *debug.BuildInfo) Info {
	info := Info{
		Version:   version,
		Commit:    commit,
		Date:      date,
		GoVersion: runtime.Version(),
		OS:        runtime.GOOS,
		Arch:      runtime.GOARCH,
		PluginABI: abi.Version,
	}
	if bi != nil {
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		// "(devel)" is what a build inside the module's own tree gets:
		// no version at all.
		if info.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			info.Version = bi.Main.Version
		}
		vcsRevision, vcsTime, modified := "", "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				vcsRevision = s.Value
			case "vcs.time":
				vcsTime = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if info.Commit == "" {
			info.Commit = vcsRevision
			// The dirty flag belongs to the revision it describes.
			info.Modified = modified && vcsRevision != ""
		}
		if info.Date == "" {
			info.Date = vcsTime
		}
	}
	if info.Version == "" {
		info.Version = Dev
	}
	return info
}

// Module is mcphost's module path.
const Module = "github.com/mcphost/mcphost"

// ModuleVersion is the version of the mcphost module in the running binary:
// the main module's (go install ...@VERSION) or, in a program that embeds
// mcphost, the dependency's; Dev when the toolchain recorded none (a build
// inside the module's own tree). Programs that know better, like the
// command with its linker-set version, pass theirs instead.
// It is read once: the build information does not change while the
// program runs, and every Host and gateway asks.
var ModuleVersion = sync.OnceValue(func() string {
	bi, _ := debug.ReadBuildInfo()
	return moduleVersion(bi)
})

func moduleVersion(bi *debug.BuildInfo) string {
	if bi == nil {
		return Dev
	}
	m := &bi.Main
	if m.Path != Module {
		m = nil
		for _, d := range bi.Deps {
			if d.Path == Module {
				m = d
				if d.Replace != nil && d.Replace.Version != "" {
					m = d.Replace
				}
				break
			}
		}
	}
	if m == nil || m.Version == "" || m.Version == "(devel)" {
		return Dev
	}
	return m.Version
}

// ShortCommit is the commit cut to 12 characters, as people quote it.
func (i Info) ShortCommit() string {
	if len(i.Commit) > 12 {
		return i.Commit[:12]
	}
	return i.Commit
}

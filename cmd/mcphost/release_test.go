package main

// Checks that the release packaging at the top of the repository agrees with
// this command: .goreleaser.yaml (targets, ldflags, completions in the
// archives and Linux packages), the Dockerfile (the variables its ldflags
// set, the serve flags of its ENTRYPOINT and CMD) and .dockerignore (it
// keeps every file the build needs). GoReleaser and Docker need not be
// installed: a packaging file that names a flag or a variable this command
// no longer has fails here, not at release time.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// repoRoot is the repository's top directory (tests run in cmd/mcphost).
const repoRoot = "../.."

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		t.Fatalf("release packaging: %v", err)
	}
	return string(b)
}

// goreleaserConfig is the part of .goreleaser.yaml these tests look at.
type goreleaserConfig struct {
	Version     int    `yaml:"version"`
	ProjectName string `yaml:"project_name"`
	Before      struct {
		Hooks []string `yaml:"hooks"`
	} `yaml:"before"`
	Builds []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Binary  string   `yaml:"binary"`
		Env     []string `yaml:"env"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
	} `yaml:"builds"`
	Archives []struct {
		IDs             []string `yaml:"ids"`
		Formats         []string `yaml:"formats"`
		FormatOverrides []struct {
			Goos    string   `yaml:"goos"`
			Formats []string `yaml:"formats"`
		} `yaml:"format_overrides"`
		Files []yaml.Node `yaml:"files"` // a glob, or {src, dst, info}
	} `yaml:"archives"`
	Checksum *struct {
		Algorithm string `yaml:"algorithm"`
	} `yaml:"checksum"`
	Nfpms []struct {
		Formats  []string `yaml:"formats"`
		Bindir   string   `yaml:"bindir"`
		Contents []struct {
			Src string `yaml:"src"`
			Dst string `yaml:"dst"`
		} `yaml:"contents"`
	} `yaml:"nfpms"`
}

func loadGoreleaser(t *testing.T) *goreleaserConfig {
	t.Helper()
	var c goreleaserConfig
	if err := yaml.Unmarshal([]byte(readRepoFile(t, ".goreleaser.yaml")), &c); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	return &c
}

// completionFiles are what scripts/completions.sh writes into completions/.
var completionFiles = []string{"mcphost.bash", "mcphost.zsh", "mcphost.fish", "mcphost.ps1"}

func TestReleaseGoreleaserConfig(t *testing.T) {
	c := loadGoreleaser(t)
	if c.Version != 2 {
		t.Errorf(".goreleaser.yaml: version %d, want 2 (GoReleaser v2 schema)", c.Version)
	}
	if len(c.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: %d builds, want 1 (mcphost)", len(c.Builds))
	}
	b := c.Builds[0]
	if path.Clean(b.Main) != "cmd/mcphost" || b.Binary != "mcphost" {
		t.Errorf("build: main %q binary %q, want ./cmd/mcphost and mcphost", b.Main, b.Binary)
	}
	if !sameSet(b.Goos, []string{"linux", "darwin", "windows"}) {
		t.Errorf("build: goos %v, want linux, darwin, windows", b.Goos)
	}
	if !sameSet(b.Goarch, []string{"amd64", "arm64"}) {
		t.Errorf("build: goarch %v, want amd64, arm64", b.Goarch)
	}
	if !slices.Contains(b.Env, "CGO_ENABLED=0") {
		t.Errorf("build: env %v lacks CGO_ENABLED=0 (static binaries, cross-compiled)", b.Env)
	}
	if !slices.Contains(b.Flags, "-trimpath") {
		t.Errorf("build: flags %v lack -trimpath", b.Flags)
	}
	ld := strings.Join(b.Ldflags, " ")
	for _, want := range []string{"-s", "-w", "-X main.version={{.Version}}", "-X main.commit={{.Commit}}", "-X main.date={{.Date}}"} {
		if !slices.Contains(strings.Fields(ld), want) && !strings.Contains(ld, want) {
			t.Errorf("build: ldflags %q lack %q", ld, want)
		}
	}

	// The before hook writes the completions the archives and packages ship.
	hooks := strings.Join(c.Before.Hooks, "\n")
	if !strings.Contains(hooks, "scripts/completions.sh") {
		t.Errorf("before hooks %q do not run scripts/completions.sh", hooks)
	}
	script := readRepoFile(t, "scripts/completions.sh")
	for _, f := range completionFiles {
		if !strings.Contains(script, f) {
			t.Errorf("scripts/completions.sh does not write %s", f)
		}
	}
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		if !strings.Contains(script, "completion "+sh) {
			t.Errorf("scripts/completions.sh does not run \"mcphost completion %s\"", sh)
		}
	}

	if len(c.Archives) == 0 {
		t.Fatal(".goreleaser.yaml: no archives")
	}
	for i, a := range c.Archives {
		if !slices.Equal(a.Formats, []string{"tar.gz"}) {
			t.Errorf("archives[%d]: formats %v, want [tar.gz]", i, a.Formats)
		}
		zip := false
		for _, o := range a.FormatOverrides {
			zip = zip || (o.Goos == "windows" && slices.Equal(o.Formats, []string{"zip"}))
		}
		if !zip {
			t.Errorf("archives[%d]: no zip for windows", i)
		}
		var srcs []string
		for _, f := range a.Files {
			if f.Kind == yaml.ScalarNode {
				srcs = append(srcs, f.Value)
				continue
			}
			var e struct {
				Src string `yaml:"src"`
			}
			if err := f.Decode(&e); err != nil {
				t.Fatalf("archives[%d].files: %v", i, err)
			}
			srcs = append(srcs, e.Src)
		}
		for _, f := range append([]string{"README.md"}, completionFiles...) {
			if !anyGlobMatches(srcs, path.Join(dirOf(f), f)) {
				t.Errorf("archives[%d]: files %v do not include %s", i, srcs, path.Join(dirOf(f), f))
			}
		}
	}
	if c.Checksum == nil {
		t.Error(".goreleaser.yaml: no checksum section")
	}

	// Linux packages install the completions where each shell finds them.
	if len(c.Nfpms) == 0 {
		t.Fatal(".goreleaser.yaml: no nfpms (Linux packages)")
	}
	for i, n := range c.Nfpms {
		for _, f := range []string{"deb", "rpm", "apk"} {
			if !slices.Contains(n.Formats, f) {
				t.Errorf("nfpms[%d]: formats %v lack %s", i, n.Formats, f)
			}
		}
		want := map[string]string{
			"/usr/share/bash-completion/completions/mcphost":    "completions/mcphost.bash",
			"/usr/share/zsh/site-functions/_mcphost":            "completions/mcphost.zsh",
			"/usr/share/fish/vendor_completions.d/mcphost.fish": "completions/mcphost.fish",
		}
		for _, ct := range n.Contents {
			if src, ok := want[ct.Dst]; ok {
				if path.Clean(ct.Src) != src {
					t.Errorf("nfpms[%d]: %s from %s, want %s", i, ct.Dst, ct.Src, src)
				}
				delete(want, ct.Dst)
			}
		}
		for dst := range want {
			t.Errorf("nfpms[%d]: no completion installed at %s", i, dst)
		}
	}
}

// dirOf is where a file of the archives comes from: completions/ for the
// completion scripts, the top directory otherwise.
func dirOf(name string) string {
	if slices.Contains(completionFiles, name) {
		return "completions"
	}
	return "."
}

func anyGlobMatches(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(path.Clean(g), path.Clean(name)); ok {
			return true
		}
	}
	return false
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(a, b)
}

// xVar matches the variable of a linker -X flag for package main.
var xVar = regexp.MustCompile(`-X[ =]main\.([A-Za-z_][A-Za-z0-9_]*)=`)

// TestReleaseLdflagsVariables checks that every "-X main.NAME=" of the
// packaging sets a variable that exists: the linker silently ignores -X for
// a variable that does not, and a release would then say "dev".
func TestReleaseLdflagsVariables(t *testing.T) {
	vars := linkerSettableVars(t)
	for _, file := range []string{".goreleaser.yaml", "Dockerfile"} {
		text := readRepoFile(t, file)
		found := map[string]bool{}
		for _, m := range xVar.FindAllStringSubmatch(text, -1) {
			found[m[1]] = true
			if !vars[m[1]] {
				t.Errorf("%s: -X main.%s=...: package main has no string variable %s that the linker can set", file, m[1], m[1])
			}
		}
		for _, want := range []string{"version", "commit", "date"} {
			if !found[want] {
				t.Errorf("%s: does not set main.%s with -X", file, want)
			}
		}
	}
}

// linkerSettableVars returns the package-level string variables of package
// main (its non-test files) whose value -X can set: declared with type
// string, initialised with nothing or a string literal.
func linkerSettableVars(t *testing.T) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", name, err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				typ, ok := vs.Type.(*ast.Ident)
				if !ok || typ.Name != "string" {
					continue
				}
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); !ok || lit.Kind != token.STRING {
							continue
						}
					}
					vars[n.Name] = true
				}
			}
		}
	}
	return vars
}

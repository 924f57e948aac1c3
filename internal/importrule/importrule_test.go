package importrule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

const module = "github.com/mcphost/mcphost"

// targets are the platforms whose import graphs are checked together: files
// behind build constraints (process groups on unix, the guest kernel on
// wasip1) import different packages.
var targets = []string{"linux/amd64", "darwin/arm64", "windows/amd64", "wasip1/wasm"}

// A layer is a set of packages and what they may import of the module. A
// package may always import its own layer (Go refuses cycles), except a
// program: nothing imports a program.
type layer struct {
	may      []string // the other layers it may import
	anyLayer bool     // it may import every layer but the programs
	stdOnly  bool     // nothing outside the standard library, not even other modules
	rule     string   // the rule of ARCHITECTURE.md, shown when an import breaks it
}

// The layers of ARCHITECTURE.md, top to bottom.
var layers = map[string]layer{
	"program": {
		anyLayer: true,
		rule:     "nothing imports a program (cmd/..., internal/cmd/..., scripts/..., examples/agent, docs): programs are the top and may import any layer",
	},
	"front": {
		may:  []string{"host", "config", "stages", "authn", "transports", "plugins", "leaf", "glob", "abi"},
		rule: "front ends (host/gateway, host/providers, host/doctor, host/clientconf) and the wiring of stages into host (host/chain) sit on host and what is under it; they import no program and no test helper",
	},
	"host": {
		may:  []string{"config", "stages", "authn", "transports", "plugins", "leaf", "glob", "abi"},
		rule: "host imports what is under it (host/config, host/builtin, host/naming, host/authn, transports, plugins), the shared leaves and the contract; never a front end, a test helper or a program",
	},
	"config": {
		may:  []string{"leaf", "glob", "abi"},
		rule: "host/config imports only the shared leaves and the contract: never host, the stages, host/authn, transports or plugins",
	},
	"stages": {
		may:  []string{"leaf", "glob", "abi"},
		rule: "native stages (host/builtin, host/naming) speak the ABI's documents like a plugin: they import only the shared leaves and the contract, neither host nor host/config",
	},
	"authn": {
		may:  []string{"config", "leaf", "glob", "abi"},
		rule: "host/authn reads a server's auth block from host/config; besides it, only the shared leaves and the contract: never host, transports or plugins",
	},
	"transports": {
		may:  []string{"leaf", "glob", "abi"},
		rule: "transports knows nothing of config files, trust or host: it imports only the shared leaves and the contract (host builds its Spec)",
	},
	"plugins": {
		may:  []string{"leaf", "glob", "abi"},
		rule: "plugins (the Wasm runtime) knows nothing of config files or host: it imports only plugins/..., the shared leaves and the contract",
	},
	"testsupport": {
		may:  []string{"transports", "leaf", "glob", "abi"},
		rule: "internal/hosttest (the test servers) serves host's own tests, so it imports no host package: only transports, the shared leaves and the contract",
	},
	"confighelper": {
		may:  []string{"config", "leaf", "glob", "abi"},
		rule: "internal/adhoc builds configuration from a command line: host/config, the shared leaves and the contract, nothing above",
	},
	"leaf": {
		may:  []string{"glob", "abi"},
		rule: "internal/... packages are shared leaves: they import only each other, pdk/abi and pdk/glob",
	},
	"glob": {
		may:  []string{"abi"},
		rule: "pdk/glob, the one glob matcher of host and guests, imports at most pdk/abi",
	},
	"abi": {
		stdOnly: true,
		rule:    "pdk/abi is the contract: the standard library only",
	},
	"pdk": {
		may:  []string{"glob", "abi"},
		rule: "the Go PDK is guest code: it imports only pdk/..., never host, host/authn, transports, plugins, internal or cmd",
	},
	"guest": {
		may:  []string{"pdk", "glob", "abi"},
		rule: "example plugins are guests: they import only the PDK (pdk/...)",
	},
}

// placement puts every package of the module in a layer: the first pattern
// that matches wins; "x/..." matches x and everything under it.
var placement = []struct{ pattern, layer string }{
	{"cmd/...", "program"},
	{"internal/cmd/...", "program"},
	{"scripts/...", "program"},
	{"examples/agent/...", "program"},
	{"docs", "program"},
	{"examples/plugins/...", "guest"},
	{"host/gateway/...", "front"},
	{"host/providers/...", "front"},
	{"host/doctor/...", "front"},
	{"host/clientconf/...", "front"},
	{"host/chain/...", "front"},
	{"host", "host"},
	{"host/config/...", "config"},
	{"host/builtin/...", "stages"},
	{"host/naming/...", "stages"},
	{"host/authn/...", "authn"},
	{"transports/...", "transports"},
	{"plugins/...", "plugins"},
	{"pdk/abi", "abi"},
	{"pdk/glob", "glob"},
	{"pdk/...", "pdk"},
	{"internal/adhoc", "confighelper"},
	{"internal/hosttest/...", "testsupport"},
	{"internal/...", "leaf"},
}

// An edge is one import, by paths relative to the module.
type edge struct{ from, to string }

// knownViolations are the imports of today that break the rule, each with
// why. The list only shrinks: the test fails when an import listed here is
// gone, so that it is deleted from the list with the code. Issue 15 emptied
// it (plugins no longer imports host; host/chain wires the two together).
var knownViolations = map[edge]string{}

func TestImportRule(t *testing.T) {
	graph := importGraph(t)

	for _, want := range []string{"host", "host/config", "transports", "plugins", "pdk/abi", "cmd/mcphost"} {
		if _, ok := graph[want]; !ok {
			t.Fatalf("go list did not list %s/%s: the graph is not the module's", module, want)
		}
	}

	var problems []string
	seen := map[edge]bool{}
	for _, from := range sortedKeys(graph) {
		lf, ok := layerOf(from)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s has no layer: place it in the table placement of this test and in ARCHITECTURE.md", from))
			continue
		}
		for _, imp := range sortedKeys(graph[from]) {
			to, ours := relative(imp)
			if !ours {
				to = imp
			}
			e := edge{from, to}
			broken, rule := breaks(lf, imp)
			switch {
			case broken && knownViolations[e] != "":
				seen[e] = true
			case broken:
				problems = append(problems, fmt.Sprintf("%s imports %s%s: %s", from, to, platforms(graph[from][imp]), rule))
			case knownViolations[e] != "":
				seen[e] = true
				problems = append(problems, fmt.Sprintf("%s imports %s is listed in knownViolations but the rule allows it: delete the entry", from, to))
			}
		}
	}
	for _, e := range sortedEdges(knownViolations) {
		if !seen[e] {
			problems = append(problems, fmt.Sprintf("known violation %s imports %s is gone: delete it from knownViolations (the list only shrinks)", e.from, e.to))
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Log("the layers and the rule of the imports: ARCHITECTURE.md")
	}
}

// TestLayerTables keeps the tables of TestImportRule consistent: every
// layer named exists, and every layer holds packages.
func TestLayerTables(t *testing.T) {
	placed := map[string]bool{}
	for _, p := range placement {
		if _, ok := layers[p.layer]; !ok {
			t.Errorf("placement puts %s in layer %q, which layers does not define", p.pattern, p.layer)
		}
		placed[p.layer] = true
	}
	for _, name := range sortedKeys(layers) {
		if !placed[name] {
			t.Errorf("layer %q holds no package: place some or delete it", name)
		}
		for _, may := range layers[name].may {
			if _, ok := layers[may]; !ok {
				t.Errorf("layer %q may import layer %q, which layers does not define", name, may)
			}
		}
	}
	for _, e := range sortedEdges(knownViolations) {
		if _, ok := layerOf(e.from); !ok {
			t.Errorf("known violation %s imports %s: %s has no layer", e.from, e.to, e.from)
		}
	}
}

// breaks says whether a package of layer lf may not import imp (a full
// import path), and which rule that breaks.
func breaks(lf, imp string) (bool, string) {
	l := layers[lf]
	if to, ours := relative(imp); ours {
		lt, ok := layerOf(to)
		switch {
		case !ok:
			return false, "" // reported as a package without a layer
		case lt == "program":
			return true, layers["program"].rule
		case lt == lf || l.anyLayer || slices.Contains(l.may, lt):
			return false, ""
		}
		return true, l.rule
	}
	if l.stdOnly && !isStandard(imp) {
		return true, l.rule
	}
	return false, ""
}

// isStandard reports whether p is a package of the standard library: its
// first element has no dot (the go command's own test).
func isStandard(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// layerOf places a package, by its path relative to the module.
func layerOf(pkg string) (string, bool) {
	for _, p := range placement {
		if base, ok := strings.CutSuffix(p.pattern, "/..."); ok {
			if pkg == base || strings.HasPrefix(pkg, base+"/") {
				return p.layer, true
			}
		} else if pkg == p.pattern {
			return p.layer, true
		}
	}
	return "", false
}

// importGraph lists the module's packages on every target and returns, per
// package (by its path relative to the module), its imports (full import
// paths) with the targets they occur on. Test files are left out: a test may
// reach across the layers to exercise them (the PDK's tests run guests in
// plugins, for one).
func importGraph(t *testing.T) map[string]map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" || os.Getenv("MCPHOST_REQUIRE_E2E") != "" {
			t.Fatalf("the import rule needs the go command on PATH: %v", err)
		}
		t.Skipf("the import rule needs the go command on PATH: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	graph := map[string]map[string][]string{}
	var loadErrors []string // the build's business; logged once, for context
	for _, target := range targets {
		goos, goarch, _ := strings.Cut(target, "/")
		cmd := exec.CommandContext(ctx, goTool, "list", "-e", "-json=ImportPath,Imports,Error", module+"/...")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list for %s: %v\n%s", target, err, stderr.Bytes())
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p struct {
				ImportPath string
				Imports    []string
				Error      *struct{ Err string }
			}
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("go list for %s: %v", target, err)
			}
			if p.Error != nil && !strings.Contains(p.Error.Err, "build constraints exclude all Go files") {
				msg := p.ImportPath + ": " + p.Error.Err
				if !slices.Contains(loadErrors, msg) {
					loadErrors = append(loadErrors, msg)
				}
			}
			from, ok := relative(p.ImportPath)
			if !ok {
				continue
			}
			if graph[from] == nil {
				graph[from] = map[string][]string{}
			}
			for _, imp := range p.Imports {
				graph[from][imp] = append(graph[from][imp], target)
			}
		}
	}
	for _, msg := range loadErrors {
		t.Logf("go list: %s", msg)
	}
	return graph
}

// relative is p relative to the module, and whether p is in the module.
func relative(p string) (string, bool) {
	if p == module {
		return ".", true
	}
	return strings.CutPrefix(p, module+"/")
}

// platforms is empty when an import occurs on every target, else it names
// the targets it occurs on.
func platforms(on []string) string {
	if len(on) == len(targets) {
		return ""
	}
	return " (on " + strings.Join(on, ", ") + " only)"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedEdges(m map[edge]string) []edge {
	edges := make([]edge, 0, len(m))
	for e := range m {
		edges = append(edges, e)
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].from != edges[j].from {
			return edges[i].from < edges[j].from
		}
		return edges[i].to < edges[j].to
	})
	return edges
}

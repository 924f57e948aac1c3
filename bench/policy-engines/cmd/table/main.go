// Command table reads `go test -bench` output of this module's benchmarks
// and prints Markdown tables of the medians over the -count runs: one of
// the policy engines (serial ns per decision, parallel decisions/s per
// -cpu, time relative to cel-go) and one of the transforms (time and MB/s
// per size). It is benchstat-free on purpose: the script needs nothing
// beyond Go.
//
//	go run ./cmd/table bench-output.txt...   # or the output on stdin
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	base := flag.String("base", "cel-go", "engine the others are compared with")
	plugin := flag.String("plugin", "mcphost-rust-read-only", "engine whose ratio to -base is summed up under the table")
	flag.Parse()
	runs := newRuns()
	if flag.NArg() == 0 {
		if err := runs.read(os.Stdin); err != nil {
			fail(err)
		}
	}
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fail(err)
		}
		err = runs.read(f)
		f.Close()
		if err != nil {
			fail(err)
		}
	}
	if len(runs.order) == 0 {
		fail(fmt.Errorf("no benchmark results in the input"))
	}
	runs.policyTable(os.Stdout, *base, *plugin)
	runs.transformTable(os.Stdout)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "table:", err)
	os.Exit(1)
}

// key is one benchmark at one GOMAXPROCS.
type key struct {
	name  string // without "Benchmark" and the -procs suffix
	procs int
}

// samples are a benchmark's values over the -count runs.
type samples struct {
	nsPerOp, mbPerS []float64
}

type runs struct {
	byKey map[key]*samples
	order []string // names in order of first appearance
}

func newRuns() *runs { return &runs{byKey: map[key]*samples{}} }

// procsSuffix is the "-N" go test appends when GOMAXPROCS is not 1.
var procsSuffix = regexp.MustCompile(`-(\d+)$`)

// read adds the result lines of r: "BenchmarkX-N  iters  v unit  v unit...".
// Anything else (headers, logs, PASS) is skipped.
func (rs *runs) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		k := key{name: strings.TrimPrefix(f[0], "Benchmark"), procs: 1}
		if m := procsSuffix.FindStringSubmatch(k.name); m != nil {
			k.procs, _ = strconv.Atoi(m[1])
			k.name = strings.TrimSuffix(k.name, m[0])
		}
		s := rs.byKey[k]
		if s == nil {
			s = &samples{}
			rs.byKey[k] = s
			if !slices.Contains(rs.order, k.name) {
				rs.order = append(rs.order, k.name)
			}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				s.nsPerOp = append(s.nsPerOp, v)
			case "MB/s":
				s.mbPerS = append(s.mbPerS, v)
			}
		}
	}
	return sc.Err()
}

// children are the names under prefix+"/" in order of appearance, with the
// prefix removed (only the next level: "a/b" gives "a" once).
func (rs *runs) children(prefix string) []string {
	var out []string
	for _, n := range rs.order {
		rest, ok := strings.CutPrefix(n, prefix+"/")
		if !ok {
			continue
		}
		rest, _, _ = strings.Cut(rest, "/")
		if !slices.Contains(out, rest) {
			out = append(out, rest)
		}
	}
	return out
}

// procs are the GOMAXPROCS values name was run at, ascending.
func (rs *runs) procs(name string) []int {
	var out []int
	for k := range rs.byKey {
		if k.name == name && !slices.Contains(out, k.procs) {
			out = append(out, k.procs)
		}
	}
	slices.Sort(out)
	return out
}

// get is name's samples at procs, or at the highest GOMAXPROCS it ran at
// when procs is 0; nil when it did not run.
func (rs *runs) get(name string, procs int) *samples {
	if procs == 0 {
		p := rs.procs(name)
		if len(p) == 0 {
			return nil
		}
		procs = p[len(p)-1]
	}
	return rs.byKey[key{name, procs}]
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// notes explain rows of the policy table whose engine needs a word.
var notes = map[string]string{
	"native":                      "hand-written Go func, path.Match globs: the floor",
	"cel-go":                      "one compiled expression; globs as one regexp with matches() (precompiled); request as a map activation",
	"cedar-go":                    "policy set of permits (read-only, one per glob with like); entities and context built per decision",
	"opa-rego":                    "PrepareForEval once, Eval per decision with the request map as input; glob.match",
	"shell-hook":                  "one /bin/sh process per decision, JSON on stdin, built-ins only; serial only",
	"mcphost-rust-read-only":      "examples/plugins/read-only (Rust, Wasm) through plugins.Open and Policy, default limits",
	"mcphost-go-deny-destructive": "examples/plugins/deny-destructive (Go, Wasm), default limits; its own rule (deny destructive tools unless allowed; confirm_open_world off): it also denies this request, as destructive",
}

func (rs *runs) policyTable(w io.Writer, base, plugin string) {
	engines := rs.children("Decide")
	if len(engines) == 0 {
		return
	}
	var cpus []int
	for _, e := range rs.children("DecideParallel") {
		for _, p := range rs.procs("DecideParallel/" + e) {
			if !slices.Contains(cpus, p) {
				cpus = append(cpus, p)
			}
		}
	}
	slices.Sort(cpus)
	serial := func(e string) float64 {
		if s := rs.get("Decide/"+e, 0); s != nil {
			return median(s.nsPerOp)
		}
		return 0
	}
	perSec := func(e string, p int) float64 {
		if s := rs.get("DecideParallel/"+e, p); s != nil && median(s.nsPerOp) > 0 {
			return 1e9 / median(s.nsPerOp)
		}
		return 0
	}

	fmt.Fprintln(w, "| Engine | serial ns/decision |", joinf(cpus, " | ", "parallel decisions/s, -cpu %d"), "| serial time ×", base, "|")
	fmt.Fprintln(w, "|---|---:|"+strings.Repeat("---:|", len(cpus))+"---:|")
	baseNs := serial(base)
	for _, e := range engines {
		row := []string{e, group(serial(e))}
		for _, p := range cpus {
			row = append(row, group(perSec(e, p)))
		}
		row = append(row, ratio(serial(e), baseNs))
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
	fmt.Fprintln(w)
	if pn := serial(plugin); pn > 0 && baseNs > 0 {
		fmt.Fprintf(w, "%s vs %s: %s the time per decision serially", plugin, base, ratio(pn, baseNs))
		for _, p := range cpus {
			if b, pp := perSec(base, p), perSec(plugin, p); b > 0 && pp > 0 {
				fmt.Fprintf(w, "; %s the decisions/s at -cpu %d", ratio(pp, b), p)
			}
		}
		fmt.Fprintln(w, ".")
		fmt.Fprintln(w)
	}
	for _, e := range engines {
		if n, ok := notes[e]; ok {
			fmt.Fprintf(w, "- %s: %s\n", e, n)
		}
	}
	fmt.Fprintln(w)
}

func (rs *runs) transformTable(w io.Writer) {
	impls := rs.children("Transform")
	if len(impls) == 0 {
		return
	}
	var sizes []string
	for _, im := range impls {
		for _, s := range rs.children("Transform/" + im) {
			if !slices.Contains(sizes, s) {
				sizes = append(sizes, s)
			}
		}
	}
	fmt.Fprintln(w, "| Size |", joinf(impls, " | ", "%s, median"), "|", joinf(impls, " | ", "%s MB/s"), "|")
	fmt.Fprintln(w, "|---|"+strings.Repeat("---:|", 2*len(impls)))
	for _, size := range sizes {
		times, rates := []string{}, []string{}
		for _, im := range impls {
			s := rs.get("Transform/"+im+"/"+size, 0)
			if s == nil {
				times, rates = append(times, "—"), append(rates, "—")
				continue
			}
			times = append(times, duration(median(s.nsPerOp)))
			rates = append(rates, fmt.Sprintf("%.1f", median(s.mbPerS)))
		}
		fmt.Fprintln(w, "| "+size+" | "+strings.Join(times, " | ")+" | "+strings.Join(rates, " | ")+" |")
	}
	fmt.Fprintln(w)
}

// joinf formats each of v with format and joins them with sep.
func joinf[T any](v []T, sep, format string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf(format, x)
	}
	return strings.Join(s, sep)
}

// group prints a rounded number with thousands separators; 0 (no data) is
// a dash.
func group(v float64) string {
	if v <= 0 {
		return "—"
	}
	s := strconv.FormatFloat(v, 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func ratio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "—"
	}
	switch r := a / b; {
	case r >= 100:
		return fmt.Sprintf("%.0f×", r)
	case r >= 10:
		return fmt.Sprintf("%.1f×", r)
	default:
		return fmt.Sprintf("%.2f×", r)
	}
}

// duration prints nanoseconds in a readable unit.
func duration(ns float64) string {
	switch {
	case ns <= 0:
		return "—"
	case ns < 1e3:
		return fmt.Sprintf("%.0f ns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	}
	return fmt.Sprintf("%.2f s", ns/1e9)
}

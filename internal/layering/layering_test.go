package layering

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// layers lists the packages from the top (0) down, by their path in the
// module. An entry ending in "/" holds every package below that
// directory; the longest entry that matches a package is its layer.
var layers = [][]string{
	{"cmd/", "bench/"},
	{"pipeline/run", "pipeline/check"},
	{"pipeline/matrix", "pipeline/job"},
	{"pipeline/engine"},
	{"reporters", "reporters/", "github/"},
	{"pipeline/gate"},
	{"pipeline/state", "pipeline/project", "pipeline/shards"},
	{"pipeline/layers", "pipeline/tiers", "pipeline/verify", "pipeline/plan", "pipeline/scheduler", "pipeline/doctor", "pipeline/spend", "pipeline/network", "pipeline/runhost"},
	{"pipeline/agent", "pipeline/breaker", "pipeline/changes", "pipeline/counter", "pipeline/deliver", "pipeline/discovery", "pipeline/gitstate", "pipeline/prompt",
		"pipeline/exitcode", "schema", "internal/", "github"},
	{"pipeline/status", "pipeline/report", "pipeline/usage"},
}

// never lists imports the layers would allow but the house forbids, with
// why: a package (or every package below a directory ending in "/") must
// not import another, even below it.
var never = []struct{ from, to, why string }{
	{"reporters/", "pipeline/gate", "the reporters write what they are given; the gate's decisions reach them as plain values"},
	{"reporters", "pipeline/gate", "the reporters write what they are given; the gate's decisions reach them as plain values"},
	{"pipeline/state", "pipeline/agent", "the state records what agents used (pipeline/usage), not how they run"},
	{"pipeline/state", "pipeline/spend", "the state records spends (pipeline/usage), not the rules that price and cap them"},
	{"pipeline/matrix", "pipeline/job", "the matrix asks the job session for one thing (matrix.States), so that it stands below it and a command's import chain stays short"},
}

// forbidden lists, sorted, every import of graph that never names.
func forbidden(graph map[string][]string) []string {
	var out []string
	for pkg, imports := range graph {
		for _, imp := range imports {
			for _, n := range never {
				if (pkg == n.from || (strings.HasSuffix(n.from, "/") && strings.HasPrefix(pkg, n.from))) && imp == n.to {
					out = append(out, fmt.Sprintf("%s imports %s: %s", pkg, imp, n.why))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// leafTypes is the bottom layer: types every layer shares, which import
// nothing of the module, not even each other.
var leafTypes = len(layers) - 1

// layerOf is the layer of pkg (a path in the module), -1 when the table
// has none.
func layerOf(pkg string) int {
	best, bestLen := -1, -1
	for i, names := range layers {
		for _, n := range names {
			ok := pkg == n || (strings.HasSuffix(n, "/") && strings.HasPrefix(pkg, n))
			if ok && len(n) > bestLen {
				best, bestLen = i, len(n)
			}
		}
	}
	return best
}

// violations lists, sorted, every import of graph (package -> the
// module's packages it imports) that runs upward, and every package
// without a layer.
func violations(graph map[string][]string) []string {
	var out []string
	for pkg, imports := range graph {
		from := layerOf(pkg)
		if from < 0 {
			out = append(out, fmt.Sprintf("%s has no layer: give it its place in the table of internal/layering", pkg))
			continue
		}
		for _, imp := range imports {
			if from == leafTypes {
				out = append(out, fmt.Sprintf("%s is a leaf type package and imports %s: it must import nothing of the module", pkg, imp))
				continue
			}
			if to := layerOf(imp); to >= 0 && to < from {
				out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d), which is above it", pkg, from, imp, to))
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestNoPackageImportsOneAbove reads the imports of every package of the
// module (its non-test files) and fails on an import that runs upward.
func TestNoPackageImportsOneAbove(t *testing.T) {
	root, module := moduleRoot(t)
	graph, err := importGraph(root, module)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cmd/ralph-ci", "pipeline/engine", "pipeline/gate", "pipeline/tiers", "github/prchannel"} {
		if _, ok := graph[want]; !ok {
			t.Fatalf("the module's packages were not all read: %s is missing from %v", want, keys(graph))
		}
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
	for _, v := range forbidden(graph) {
		t.Error(v)
	}
}

// TestForbiddenFindsWhatNeverAllows: the reporters' import of the gate
// and the state's of the agent runner are named, though the layers allow
// them.
func TestForbiddenFindsWhatNeverAllows(t *testing.T) {
	got := forbidden(map[string][]string{
		"reporters/actions": {"pipeline/gate", "reporters"},
		"pipeline/state":    {"pipeline/spend", "pipeline/usage"},
		"pipeline/engine":   {"pipeline/gate", "pipeline/agent"},
	})
	want := []string{
		"pipeline/state imports pipeline/spend: the state records spends (pipeline/usage), not the rules that price and cap them",
		"reporters/actions imports pipeline/gate: the reporters write what they are given; the gate's decisions reach them as plain values",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("forbidden:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestViolationsFindsAnUpwardImport: the rule names an import that runs
// upward and a package the table does not place, and lets a package
// import its own layer and the ones below.
func TestViolationsFindsAnUpwardImport(t *testing.T) {
	graph := map[string][]string{
		"cmd/ralph-ci":      {"pipeline/engine", "reporters/actions", "internal/text"},
		"reporters/actions": {"reporters", "internal/text"},
		"github/prchannel":  {"pipeline/gate", "reporters/actions"},
		"pipeline/tiers":    {"reporters"},
		"pipeline/gate":     {"pipeline/engine"},
		"pipeline/nowhere":  {"schema"},
	}
	got := violations(graph)
	want := []string{
		"pipeline/gate (layer 5) imports pipeline/engine (layer 3), which is above it",
		"pipeline/nowhere has no layer: give it its place in the table of internal/layering",
		"pipeline/tiers (layer 7) imports reporters (layer 4), which is above it",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestLeafTypesImportNothing: a package of the bottom layer may not even
// import another of its own layer.
func TestLeafTypesImportNothing(t *testing.T) {
	got := violations(map[string][]string{
		"pipeline/report": {"pipeline/status"},
		"pipeline/status": nil,
		"pipeline/state":  {"pipeline/status"},
	})
	want := "pipeline/report is a leaf type package and imports pipeline/status: it must import nothing of the module"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("violations: %q, want [%q]", got, want)
	}
}

// TestLayerOf: the longest entry wins, a directory entry holds what is
// below it and not its prefix-sharing neighbours.
func TestLayerOf(t *testing.T) {
	for pkg, want := range map[string]int{
		"cmd/ralph-ci":      0,
		"pipeline/run":      1,
		"pipeline/job":      2,
		"reporters":         4,
		"github/prchannel":  4,
		"github":            8,
		"pipeline/gate":     5,
		"pipeline/state":    6,
		"pipeline/layers":   7,
		"internal/text":     8,
		"pipeline/stateful": -1,
		"internal":          -1,
		"internal/ghfake":   8,
		"pipeline/status":   9,
	} {
		if got := layerOf(pkg); got != want {
			t.Errorf("layerOf(%q) = %d, want %d", pkg, got, want)
		}
	}
}

// moduleRoot finds the directory of go.mod above the test's directory
// and the module path it declares.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(m), `"`)
				}
			}
			t.Fatalf("%s: no module line", f.Name())
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = filepath.Dir(dir)
	}
}

// importGraph reads the import lines of every non-test Go file under root
// (skipping testdata, hidden directories and nested modules) and returns,
// by package directory relative to root, the packages of module each one
// imports, relative to module.
func importGraph(root, module string) (map[string][]string, error) {
	graph := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || exists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return fmt.Errorf("read the imports: %w", err)
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if _, ok := graph[pkg]; !ok {
			graph[pkg] = nil
		}
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: import %s: %w", fset.Position(spec.Pos()), spec.Path.Value, err)
			}
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				graph[pkg] = append(graph[pkg], rest)
			}
		}
		return nil
	})
	return graph, err
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

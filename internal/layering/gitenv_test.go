package layering

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// runsGitInTests: a test file that starts git itself (startsGit) or
// through the fixture helper that does (ghorigin.New, ghorigin.Git).
var runsGitInTests = regexp.MustCompile(startsGit.String() + `|ghorigin\.(New|Git)\(`)

// dropsGitEnv: a TestMain that drops the variables pointing git at
// another repository, itself or through e2e.Main.
var dropsGitEnv = regexp.MustCompile(`(?m)^\s*gitenv\.Drop\(\)$|\{ e2e\.Main\(m\) \}`)

// gitEnvExempt are packages whose tests match runsGitInTests without
// running git that way.
var gitEnvExempt = map[string]string{
	"internal/layering": "its tests hold the lines that start git as text, to match them",
	"internal/gitenv":   "its test calls Drop itself before it runs git",
}

// TestTestsDropTheCallersGitEnv: every package whose tests run git drops,
// in its TestMain, the variables that point git at another repository
// (internal/gitenv): under git bisect run, or a hook running go test,
// they would point the tests' git, and the ralph-ci they start, at the
// developer's own repository.
func TestTestsDropTheCallersGitEnv(t *testing.T) {
	root, _ := moduleRoot(t)
	runs, drops := map[string]bool{}, map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkg, _ := filepath.Rel(root, filepath.Dir(path))
		pkg = filepath.ToSlash(pkg)
		runs[pkg] = runs[pkg] || runsGitInTests.Match(b)
		drops[pkg] = drops[pkg] || dropsGitEnv.Match(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	for pkg, r := range runs {
		if r && !drops[pkg] && gitEnvExempt[pkg] == "" {
			bad = append(bad, pkg)
		}
	}
	sort.Strings(bad)
	for _, pkg := range bad {
		t.Errorf("%s: its tests run git, but no TestMain of it calls gitenv.Drop() (or e2e.Main)", pkg)
	}
	if len(runs) == 0 {
		t.Fatal("no test file found")
	}
}

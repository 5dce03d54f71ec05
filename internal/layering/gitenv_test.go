package layering

import (
	"path"
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
	err := goFiles(root, func(rel string, src []byte) {
		if strings.HasSuffix(rel, "_test.go") {
			pkg := path.Dir(rel)
			runs[pkg] = runs[pkg] || runsGitInTests.Match(src)
			drops[pkg] = drops[pkg] || dropsGitEnv.Match(src)
		}
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

package layering

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// startsGit matches a process started with the program "git" named
// literally: exec.Command("git", …), exec.CommandContext(ctx, "git", …),
// os.StartProcess("git", …), or a name ending in /git.
var startsGit = regexp.MustCompile(`(exec\.Command(Context)?\(([^,()]+,\s*)?|os\.StartProcess\(|exec\.LookPath\()"([^"]*/)?git"`)

// gitStarters may start git themselves: the doorway, and the test helpers
// that build fixtures (an origin, a pull request's checkout) the way a
// person or GitHub would, never on ralph-ci's behalf.
var gitStarters = map[string]string{
	"internal/git":              "the doorway: every git process ralph-ci starts",
	"internal/ghorigin":         "test helper: builds the origin and the checkouts of a simulated job",
	"cmd/ralph-ci/internal/e2e": "test helper: what the end-to-end tests share (their repositories, origins and commits, made as a person would)",
}

// gitOutsideDoorway lists "file:line" of every line of a non-test Go
// file under root, outside gitStarters, that starts git.
func gitOutsideDoorway(root string) ([]string, error) {
	var out []string
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
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if _, ok := gitStarters[filepath.ToSlash(filepath.Dir(rel))]; ok {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(raw), "\n") {
			if startsGit.MatchString(line) {
				out = append(out, filepath.ToSlash(rel)+":"+strconv.Itoa(i+1))
			}
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// TestGitOnlyThroughTheDoorway: no package but internal/git starts git,
// so that every git process ralph-ci runs gets the doorway's environment
// and configuration (none of the agent's).
func TestGitOnlyThroughTheDoorway(t *testing.T) {
	root, _ := moduleRoot(t)
	found, err := gitOutsideDoorway(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s starts git outside internal/git: run it through the doorway (internal/git.Command)", f)
	}
}

// TestStartsGitMatches: the rule sees the ways of starting git and not
// other programs.
func TestStartsGitMatches(t *testing.T) {
	for line, want := range map[string]bool{
		`cmd := exec.Command("git", "status")`:                             true,
		`out, err := exec.CommandContext(ctx, "git", "-C", root).Output()`: true,
		`exec.CommandContext(ctx, "/usr/bin/git", args...)`:                true,
		`p, _ := exec.LookPath("git")`:                                     true,
		`cmd := exec.Command("bash", "-c", "git status")`:                  false,
		`cmd := exec.CommandContext(ctx, "gitleaks")`:                      false,
	} {
		if got := startsGit.MatchString(line); got != want {
			t.Errorf("%s: matched %v, want %v", line, got, want)
		}
	}
}

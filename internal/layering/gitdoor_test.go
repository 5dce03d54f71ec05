package layering

import (
	"io/fs"
	"os"
	"path"
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
	return linesOutside(root, gitStarters, startsGit)
}

// linesOutside lists "file:line" of every line matching re of a non-test
// Go file under root whose package folder is not a key of allowed.
func linesOutside(root string, allowed map[string]string, re *regexp.Regexp) ([]string, error) {
	var out []string
	err := goFiles(root, func(rel string, src []byte) {
		if strings.HasSuffix(rel, "_test.go") {
			return
		}
		if _, ok := allowed[path.Dir(rel)]; ok {
			return
		}
		for i, line := range strings.Split(string(src), "\n") {
			if re.MatchString(line) {
				out = append(out, rel+":"+strconv.Itoa(i+1))
			}
		}
	})
	sort.Strings(out)
	return out, err
}

// goFiles calls f with the path (slash-separated, relative to root) and
// content of every Go file under root, test files included, outside
// testdata, node_modules and folders named with a leading . or _.
func goFiles(root string, f func(rel string, src []byte)) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		f(filepath.ToSlash(rel), src)
		return nil
	})
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

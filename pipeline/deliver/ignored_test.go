package deliver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestOldRulesRebasesEachFolder(t *testing.T) {
	got := OldRules(map[string]string{
		"a/b/.gitignore":   "deep\n",
		".gitignore":       "# top\n\n*.log\n/only-top\n",
		"a/.gitignore":     "foo\n/bar\nx/y\nbuild/\n!keep.log\n# c\n\\#hash\r\n",
		"w*[d]/.gitignore": "z\n",
	})
	want := "*.log\n/only-top\n" +
		"a/**/foo\na/bar\na/x/y\na/**/build/\n!a/**/keep.log\na/**/\\#hash\n" +
		"w\\*\\[d]/**/z\n" +
		"a/b/**/deep\n"
	if got != want {
		t.Errorf("OldRules:\n%s\nwant:\n%s", got, want)
	}
}

func TestNewlyIgnoredLeavesOutTheOldAndRalph(t *testing.T) {
	got := NewlyIgnored([]string{"work.txt", "a.log", ".ralph/x", "sub/.ralph/y", "build/o"}, []string{"a.log"})
	if want := []string{"build/o", "work.txt"}; !slices.Equal(got, want) {
		t.Errorf("NewlyIgnored = %q, want %q", got, want)
	}
}

func TestTouchesIgnore(t *testing.T) {
	if touchesIgnore([]string{"a.go", "gitignore", "x.gitignore"}) {
		t.Error("no .gitignore among them")
	}
	if !touchesIgnore([]string{"a.go", "sub/dir/.gitignore"}) {
		t.Error("sub/dir/.gitignore is one")
	}
}

// TestOldRulesAsGitReadsThem: in a real repository with .gitignore files
// at several depths, git ignores the same files through OldRules as one
// --exclude-from file as through the files themselves.
func TestOldRulesAsGitReadsThem(t *testing.T) {
	_, dir, _ := started(t)
	files := map[string]string{
		".gitignore":         "*.log\n/top-only\n",
		"a/.gitignore":       "foo\n/bar\nx/y\nbuild/\n!keep.log\n",
		"a/b/.gitignore":     "deep\n*.tmp\n",
		"we[ird]/.gitignore": "z\n",
	}
	for rel, body := range files {
		write(t, dir, rel, body)
	}
	for _, rel := range []string{"x.log", "a/keep.log", "a/b/keep.log", "top-only", "a/top-only", "a/foo", "a/b/c/foo", "foo",
		"a/bar", "a/b/bar", "a/x/y", "a/b/x/y", "a/build/o", "a/b/build/o", "build/o", "a/b/deep", "deep", "a/b/t.tmp", "t.tmp",
		"we[ird]/z", "wei/z", "z"} {
		write(t, dir, rel, "x\n")
	}
	ctx := context.Background()
	g := Git{Dir: dir}
	byGit, err := ignoredPaths(ctx, g, "--exclude-standard")
	if err != nil {
		t.Fatal(err)
	}
	rules := filepath.Join(t.TempDir(), "rules")
	if err := os.WriteFile(rules, []byte(OldRules(files)), 0o600); err != nil {
		t.Fatal(err)
	}
	byRules, err := ignoredPaths(ctx, g, "--exclude-standard", "--exclude-per-directory=", "--exclude-from="+rules)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(byGit)
	slices.Sort(byRules)
	if !slices.Equal(byGit, byRules) {
		t.Errorf("git ignores %q through the files, %q through OldRules:\n%s", byGit, byRules, OldRules(files))
	}
	if len(byGit) < 10 {
		t.Errorf("too few ignored files to tell anything: %q", byGit)
	}
}

// TestTreeHoldsWhatANewRuleHides: a rotation adds work.txt and build/ to
// .gitignore and writes both: the verified tree and its commit hold them
// (the warning names them), a file the rules of the commit the rotation
// started from ignore (debug.log) stays out, and a rotation whose changed
// paths hold no .gitignore stages as git add --all does.
func TestTreeHoldsWhatANewRuleHides(t *testing.T) {
	_, dir, s := started(t)
	ctx := context.Background()
	var warned []string
	s.Warn = func(msg string) { warned = append(warned, msg) }
	write(t, dir, ".gitignore", ".ralph/\n*.log\n")
	if _, err := s.AfterRotation(ctx, rot); err != nil {
		t.Fatal(err)
	}
	write(t, dir, ".gitignore", ".ralph/\n*.log\nwork.txt\nbuild/\n")
	for _, rel := range []string{"work.txt", "build/out.o", "debug.log"} {
		write(t, dir, rel, "x\n")
	}
	plain, err := s.Tree(ctx, []string{"app.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := git(t, dir, "ls-tree", "-r", "--name-only", plain); strings.Contains(got, "work.txt") {
		t.Fatalf("a rotation that changed no .gitignore staged an ignored file:\n%s", got)
	}
	tree, err := s.Tree(ctx, []string{".gitignore"})
	if err != nil {
		t.Fatal(err)
	}
	r := rot
	r.Iteration, r.Tree = 2, tree
	if _, err := s.AfterRotation(ctx, r); err != nil {
		t.Fatal(err)
	}
	got := git(t, dir, "ls-tree", "-r", "--name-only", "HEAD")
	for _, want := range []string{"work.txt", "build/out.o", ".gitignore"} {
		if !slices.Contains(strings.Split(got, "\n"), want) {
			t.Errorf("the commit lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "debug.log") || strings.Contains(got, ".ralph/") {
		t.Errorf("the commit holds a file the trusted rules ignore:\n%s", got)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "build/out.o, work.txt") {
		t.Errorf("warnings: %q", warned)
	}
}

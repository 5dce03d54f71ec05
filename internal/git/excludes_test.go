package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoIgnoreRulesFromOutsideTheTree: the agent, whose HOME may be
// ralph-ci's, writes ~/.config/git/ignore and $XDG_CONFIG_HOME/git/ignore
// (git's default core.excludesFile): ralph-ci's git reads neither, so
// every file there is still one git add --all stages. Nor does it read
// the checkout's .git/info/exclude (written before the run, or by the
// agent, which has the tree): only the tree's .gitignore files decide.
func TestNoIgnoreRulesFromOutsideTheTree(t *testing.T) {
	dir := repo(t)
	home, xdg := t.TempDir(), t.TempDir()
	for _, f := range []string{filepath.Join(home, ".config", "git", "ignore"), filepath.Join(xdg, "git", "ignore")} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("home.txt\nxdg.txt\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if err := os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("info.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"home.txt", "xdg.txt", "info.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("work\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A person's git, with that HOME, ignores them: the attack is real.
	if got := person(t, dir, "status", "--porcelain", "--untracked-files=all"); strings.Contains(got, "home.txt") {
		t.Fatalf("the test's rules did not work on a person's git: %q", got)
	}
	out, err := Command{Dir: dir, Args: []string{"status", "--porcelain", "--untracked-files=all"}}.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"home.txt", "xdg.txt", "info.txt"} {
		if !strings.Contains(string(out), "?? "+f) {
			t.Errorf("ralph-ci's git ignores %s through a rule outside the tree; status:\n%s", f, out)
		}
	}
}

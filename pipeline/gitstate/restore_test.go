package gitstate

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// Read sees what git itself leaves (a conflicted merge, a packed tag, a
// branch) and Restore puts the .git back as files: no operation in
// progress, HEAD on the branch, the packed tag and the new branch gone,
// the agent's commit on the branch kept.
func TestReadRestore(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := t.TempDir()
	git := func(args ...string) string { return ghorigin.Git(t, dir, args...) }
	git("init", "-q", "-b", "main")
	ghorigin.WriteFiles(t, dir, map[string]string{"f.txt": "base\n"})
	git("add", "-A")
	git("commit", "-qm", "base")
	base := git("rev-parse", "HEAD")
	gitDir := filepath.Join(dir, ".git")
	before, err := Read(gitDir, gitDir)
	if err != nil || !before.Symbolic || before.Head != "refs/heads/main" || before.Tip() != base {
		t.Fatalf("before: %+v, %v", before, err)
	}

	// The agent: a side branch, a packed tag, a commit, a conflicted merge.
	git("checkout", "-q", "-b", "side")
	ghorigin.WriteFiles(t, dir, map[string]string{"f.txt": "theirs\n"})
	git("commit", "-qam", "theirs")
	git("checkout", "-q", "main")
	ghorigin.WriteFiles(t, dir, map[string]string{"f.txt": "ours\n"})
	git("commit", "-qam", "ours")
	ours := git("rev-parse", "HEAD")
	git("tag", "v1")
	git("pack-refs", "--all")
	cmd := []string{"merge", "side"}
	if out, err := runGit(dir, cmd...); err == nil {
		t.Fatalf("the merge did not conflict: %s", out)
	}
	after, err := Read(gitDir, gitDir)
	if err != nil || !slices.Equal(after.Ops, []string{"a merge"}) || after.Refs["refs/tags/v1"] != ours {
		t.Fatalf("after: %+v, %v", after, err)
	}
	descends := func(from, to string) bool {
		_, err := runGit(dir, "merge-base", "--is-ancestor", from, to)
		return err == nil
	}
	reset, err := Restore(gitDir, gitDir, before, after, descends)
	if err != nil || !reset {
		t.Fatalf("restore: reset %v, %v", reset, err)
	}
	git("reset", "-q", "--hard", "HEAD")
	again, err := Read(gitDir, gitDir)
	if err != nil || len(again.Ops) > 0 || len(Judge(before, again, descends)) > 0 || again.Tip() != ours {
		t.Fatalf("restored: %+v, %v; still %q", again, err, Judge(before, again, descends))
	}
	if _, err := os.Stat(filepath.Join(gitDir, "MERGE_MSG")); err == nil {
		t.Error("MERGE_MSG left")
	}
	if status := git("status", "--porcelain"); status != "" {
		t.Errorf("the work tree is not clean: %s", status)
	}
}

func runGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), ghorigin.PersonEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

package delivery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// gitEnvChild, set, makes TestHelpersLeaveTheCallersRepositoryAlone the
// test it starts under the caller's git variables.
const gitEnvChild = "RALPH_E2E_GITENV_CHILD"

// TestHelpersLeaveTheCallersRepositoryAlone: started as `git bisect run`
// or a git hook starts go test, with GIT_DIR and GIT_INDEX_FILE pointing
// at the repository it was started from (here a scratch one), the test binary
// builds a CI world (ghorigin's origin, seed and checkout, pushes as
// another person) and runs ralph-ci's delivery in it: the work reaches
// the world's origin, and the scratch repository is byte for byte as it
// was (gitenv.Drop in e2e.Main; without it, ghorigin's git wrote its
// configuration into the scratch repository's, and its branches).
func TestHelpersLeaveTheCallersRepositoryAlone(t *testing.T) {
	if os.Getenv(gitEnvChild) != "" {
		w := e2e.NewCIWorld(t, e2e.RalphBinary(t), e2e.CIRepoFiles)
		start := w.Rev("refs/heads/changes")
		w.Job("", "")
		w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
		if w.Rev("refs/heads/changes") == start {
			t.Fatal("nothing was delivered to the world's origin")
		}
		return
	}
	scratch, before := scratchRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^TestHelpersLeaveTheCallersRepositoryAlone$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), gitEnvChild+"=1")
	cmd.Env = append(cmd.Env, callersGitEnv(scratch)...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestHelpersLeaveTheCallersRepositoryAlone") {
		t.Errorf("the test under the caller's git variables: %v\n%s", err, out)
	}
	untouched(t, scratch, before)
}

// TestAgentWorksOnTheTreeItIsGiven: ralph-ci started with GIT_DIR and
// the like pointing at another repository (as from a git hook) gives the
// agent none of them: the agent's commit lands in the work tree ralph-ci
// runs on and judges, and the other repository is untouched.
func TestAgentWorksOnTheTreeItIsGiven(t *testing.T) {
	bin := e2e.RalphBinary(t)
	scratch, before := scratchRepo(t)
	dir := e2e.WriteRepoAt(t, filepath.Join(t.TempDir(), "repo"), map[string]string{
		"ralph.yaml":      "agents:\n  coder: {command: [sh, agent.sh], timeout: 1m}\nstages: {reviewer: {enabled: false}, tester: {enabled: false}, qa: {enabled: false}}\n",
		"specs/a.spec.md": "# A\n\nWrite work.txt.\n",
		".gitignore":      ".ralph/\n",
		"agent.sh": `cat > /dev/null
echo work >> work.txt
git add work.txt && git -c user.name=agent -c user.email=agent@example.com commit -q -m "the agent's work" || echo "the agent's commit failed" >&2
echo "RALPH_STATUS: CONTINUE"
`,
	})
	ctx, cancel := context.WithTimeout(context.Background(), e2e.HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--max-rotations", "1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), callersGitEnv(scratch)...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 3) {
		t.Fatalf("ralph-ci run: %v, want exit 3 (the rotation limit)\n%s", err, out)
	}
	if got := ghorigin.Git(t, dir, "log", "-1", "--format=%s"); got != "the agent's work" {
		t.Errorf("the work tree's last commit is %q, not the agent's\n%s", got, out)
	}
	untouched(t, scratch, before)
}

// callersGitEnv are the variables a git hook of the repository at dir
// gets when git runs it with GIT_DIR set (a hook of a bare repository, or
// of a commit started with --git-dir): its git directory and its index.
// (GIT_WORK_TREE, GIT_OBJECT_DIRECTORY and GIT_COMMON_DIR with them made
// the helpers' first git init fail before it wrote anything.)
func callersGitEnv(dir string) []string {
	gitDir := filepath.Join(dir, ".git")
	return []string{"GIT_DIR=" + gitDir, "GIT_INDEX_FILE=" + filepath.Join(gitDir, "index")}
}

// scratchRepo makes a repository with one commit, standing for the
// developer's own, and returns it with the digest of its files.
func scratchRepo(t *testing.T) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	ghorigin.Git(t, dir, "init", "--quiet")
	ghorigin.WriteFiles(t, dir, map[string]string{"mine.txt": "the developer's\n"})
	ghorigin.Git(t, dir, "add", "mine.txt")
	ghorigin.Git(t, dir, "commit", "--quiet", "-m", "the developer's commit")
	return dir, treeDigest(t, dir)
}

// untouched fails t when a file under dir (.git included) was added,
// changed or removed since before.
func untouched(t *testing.T, dir string, before map[string]string) {
	t.Helper()
	after := treeDigest(t, dir)
	for name, d := range after {
		if was, ok := before[name]; !ok {
			t.Errorf("the caller's repository got %s", name)
		} else if was != d {
			t.Errorf("the caller's repository's %s changed", name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			t.Errorf("the caller's repository lost %s", name)
		}
	}
}

// treeDigest is the mode and content (a link's target) of every entry
// under dir, by path.
func treeDigest(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		var content []byte
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			content = []byte(target)
		case info.Mode().IsRegular():
			if content, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		sum := sha256.Sum256(content)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = info.Mode().String() + " " + hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

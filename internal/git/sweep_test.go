package git

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedFilesAreSwept: whatever is planted in ralph-ci's own git
// directory between two of its commands (each of ReadByGit, naming a
// commit of the planter's), the next commit is ralph-ci's alone: one
// parent, its own message, and the files ralph-ci's git wrote are put
// back.
func TestPlantedFilesAreSwept(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	first := person(t, dir, "rev-parse", "HEAD")
	evil := person(t, dir, "commit-tree", "HEAD^{tree}", "-m", "the planter's")
	if _, err := Run(ctx, dir, "update-ref", "refs/remotes/origin/main", first); err != nil {
		t.Fatal(err)
	}
	c, _ := Find(dir)
	p, err := privateFor(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range ReadByGit {
		rel := strings.ReplaceAll(strings.TrimSuffix(name, "/"), "*", "X")
		target := filepath.Join(p.dir, rel)
		if strings.HasSuffix(name, "/") {
			target = filepath.Join(target, "origin")
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			t.Fatal(err)
		}
		_ = os.RemoveAll(target)
		if err := os.WriteFile(target, []byte(evil+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(p.dir, "refs", "remotes", "origin", "main"), []byte(evil+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := Command{Dir: dir, Args: []string{"commit", "--quiet", "--allow-empty", "-m", "ralph-ci's own"},
		Env: []string{"GIT_AUTHOR_NAME=R", "GIT_AUTHOR_EMAIL=r@example.com", "GIT_COMMITTER_NAME=R", "GIT_COMMITTER_EMAIL=r@example.com"}}.Run(ctx)
	if err != nil {
		t.Fatalf("commit: %v %s", err, out)
	}
	if got := person(t, dir, "log", "-1", "--format=%P %s"); got != first+" ralph-ci's own" {
		t.Errorf("ralph-ci's commit: parents and message %q, want %q", got, first+" ralph-ci's own")
	}
	if got, _ := Run(ctx, dir, "rev-parse", "origin/main"); strings.TrimSpace(string(got)) != first {
		t.Errorf("origin/main after the sweep: %s, want %s (what ralph-ci's git wrote)", got, first)
	}
	for _, name := range ReadByGit {
		rel := strings.ReplaceAll(strings.TrimSuffix(name, "/"), "*", "X")
		if name == "refs/" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(p.dir, rel)); err == nil {
			if _, kept := p.left[rel]; !kept {
				t.Errorf("%s planted is still there", rel)
			}
		}
	}
}

// TestListed: ReadByGit's folders hold what is in them, its globs match.
func TestListed(t *testing.T) {
	for rel, want := range map[string]bool{"MERGE_HEAD": true, "sequencer/todo": true, "sequencer": true, "BISECT_LOG": true,
		"refs/heads/x": true, "config": false, "HEAD": false, "info/exclude": false, "sequencerx": false} {
		if got := Listed(rel); got != want {
			t.Errorf("Listed(%q) = %v, want %v", rel, got, want)
		}
	}
}

// TestEachPlantedFileIsSwept plants each of ReadByGit alone (a file
// naming the planter's commit, or a folder holding one) between two of
// ralph-ci's commands: the next commit has ralph-ci's parent and message,
// and the plant is gone.
func TestEachPlantedFileIsSwept(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	evil := person(t, dir, "commit-tree", "HEAD^{tree}", "-m", "the planter's")
	c, _ := Find(dir)
	p, err := privateFor(c)
	if err != nil {
		t.Fatal(err)
	}
	who := []string{"GIT_AUTHOR_NAME=R", "GIT_AUTHOR_EMAIL=r@example.com", "GIT_COMMITTER_NAME=R", "GIT_COMMITTER_EMAIL=r@example.com"}
	for _, name := range ReadByGit {
		t.Run(name, func(t *testing.T) {
			head := person(t, dir, "rev-parse", "HEAD")
			rel := strings.NewReplacer("*", "X", "<revision>", head).Replace(strings.TrimSuffix(name, "/"))
			target := filepath.Join(p.dir, rel)
			if strings.HasSuffix(name, "/") {
				target = filepath.Join(target, "origin")
			}
			_ = os.MkdirAll(filepath.Dir(target), 0o700)
			if err := os.WriteFile(target, []byte(evil+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := (Command{Dir: dir, Args: []string{"commit", "--quiet", "--allow-empty", "-m", "ralph-ci's own"}, Env: who}).Run(ctx); err != nil {
				t.Fatalf("commit with %s planted: %v %s", name, err, out)
			}
			if got := person(t, dir, "log", "-1", "--format=%P %s"); got != head+" ralph-ci's own" {
				t.Errorf("with %s planted, ralph-ci's commit: %q, want %q", name, got, head+" ralph-ci's own")
			}
			if _, err := os.Lstat(target); err == nil {
				t.Errorf("%s is still there", rel)
			}
		})
	}
}

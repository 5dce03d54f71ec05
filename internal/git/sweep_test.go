package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPlantedFilesAreSwept: whatever an agent plants in ralph-ci's own
// git directory between two of its commands (each of ReadByGit, naming a
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
	gone := agentRuns(t)
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
	gone()
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

// TestEachPlantedFileIsSwept: an agent plants each of ReadByGit alone (a file
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
			gone := agentRuns(t)
			_ = os.MkdirAll(filepath.Dir(target), 0o700)
			if err := os.WriteFile(target, []byte(evil+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			gone()
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

// TestSweepSeesChangesUnderAnOldStamp: past the racy window, the sweep
// reads only what changed since ralph-ci's last command, by its stamp;
// what the agent plants then is still gone before the next command: a
// new MERGE_HEAD (the folder's stamp changed), and a branch rewritten in
// place to another commit of the same length with its modification time
// set back (its change time moved all the same).
func TestSweepSeesChangesUnderAnOldStamp(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	head := person(t, dir, "rev-parse", "HEAD")
	evil := person(t, dir, "commit-tree", "HEAD^{tree}", "-m", "the planter's")
	branch := strings.TrimPrefix(person(t, dir, "symbolic-ref", "HEAD"), "refs/heads/")
	if _, err := Run(ctx, dir, "rev-parse", "HEAD"); err != nil {
		t.Fatal(err)
	}
	// Not a race: what the last command left must be older than the
	// racy window for its stamps to be trusted, which only time does.
	time.Sleep(racyWindow + 20*time.Millisecond)
	if _, err := Run(ctx, dir, "rev-parse", "HEAD"); err != nil {
		t.Fatal(err)
	}
	c, _ := Find(dir)
	p, err := privateFor(c)
	if err != nil {
		t.Fatal(err)
	}
	gone := agentRuns(t)
	ref := filepath.Join(p.dir, "refs", "heads", branch)
	if k := p.left["refs/heads/"+branch]; k.racy || string(k.content) != head+"\n" {
		t.Fatalf("recorded %s: racy %v, %q", ref, k.racy, k.content)
	}
	fi, err := os.Stat(ref)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(ref, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(evil + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(ref, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "MERGE_HEAD"), []byte(evil+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(t.TempDir(), "ran")
	cfg, err := os.OpenFile(filepath.Join(p.dir, "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(cfg, "[core]\n\thooksPath = %s\n[alias]\n\tx = !touch %s\n", t.TempDir(), hook)
	cfg.Close()
	gone()
	who := []string{"GIT_AUTHOR_NAME=R", "GIT_AUTHOR_EMAIL=r@example.com", "GIT_COMMITTER_NAME=R", "GIT_COMMITTER_EMAIL=r@example.com"}
	if out, err := (Command{Dir: dir, Args: []string{"commit", "--quiet", "--allow-empty", "-m", "ralph-ci's own"}, Env: who}).Run(ctx); err != nil {
		t.Fatalf("commit: %v %s", err, out)
	}
	if got := person(t, dir, "log", "-1", "--format=%P %s"); got != head+" ralph-ci's own" {
		t.Errorf("ralph-ci's commit: %q, want %q", got, head+" ralph-ci's own")
	}
	if got, _ := os.ReadFile(filepath.Join(p.dir, "config")); string(got) != string(p.config) {
		t.Errorf("the config the agent appended to is still there:\n%s", got)
	}
}

// TestRacyEntriesAreReadAgain: an entry that changed within the racy
// window of its record is read again at the next scan, even when a
// change after the record left its stamp as it was (same size, the
// modification time set back, the change time within the same tick).
func TestRacyEntriesAreReadAgain(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "HEAD")
	if err := os.WriteFile(file, []byte("aaaa\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := record(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !l["HEAD"].racy {
		t.Fatalf("a file written now is not racy: %+v", l["HEAD"])
	}
	fi, _ := os.Stat(file)
	if err := os.WriteFile(file, []byte("bbbb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	again, err := scan(dir, l)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(again["HEAD"].content); got != "bbbb\n" {
		t.Errorf("scan kept %q, the file holds bbbb", got)
	}
}

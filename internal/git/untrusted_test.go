package git

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// agentRuns tells the doorway that an untrusted process starts, as
// pipeline/agent.Run does before every agent and verification command;
// gone tells that it and all it started are gone.
func agentRuns(t testing.TB) (gone func()) {
	t.Helper()
	end, err := Untrusted()
	if err != nil {
		t.Fatal(err)
	}
	return func() { end(true) }
}

// delivery runs the commands of a delivery rotation after its agent, as
// ralph-ci's own: status, add, commit, and a ref it makes.
func delivery(t *testing.T, dir, ref string) {
	t.Helper()
	ctx := context.Background()
	who := []string{"GIT_AUTHOR_NAME=R", "GIT_AUTHOR_EMAIL=r@example.com", "GIT_COMMITTER_NAME=R", "GIT_COMMITTER_EMAIL=r@example.com"}
	for _, args := range [][]string{{"status", "--porcelain"}, {"add", "--all"}, {"commit", "--quiet", "--allow-empty", "-m", "ralph-ci's own"}, {"update-ref", ref, "HEAD"}} {
		if out, err := (Command{Dir: dir, Args: args, Env: who}).Run(ctx); err != nil {
			t.Fatalf("git %s: %v %s", args[0], err, out)
		}
	}
}

// TestSweptOnceAfterEachAgent: of the commands ralph-ci runs after an
// agent, the first sweeps its git directory and the rest do not (nothing
// but its own git ran since); what they left (a ref) is recorded when
// the next agent starts, so it stays, and what that agent plants is gone
// before the next command.
func TestSweptOnceAfterEachAgent(t *testing.T) {
	dir := repo(t)
	c, _ := Find(dir)
	p, err := privateFor(c)
	if err != nil {
		t.Fatal(err)
	}
	for round, ref := range []string{"refs/ralph-ci/state/a", "refs/ralph-ci/state/b"} {
		gone := agentRuns(t)
		plant := filepath.Join(p.dir, "MERGE_HEAD")
		if err := os.WriteFile(plant, []byte("0123456789012345678901234567890123456789\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		gone()
		before := sweeps.Load()
		delivery(t, dir, ref)
		if n := sweeps.Load() - before; n != 1 {
			t.Errorf("round %d: %d sweeps for the four commands after the agent, want 1", round, n)
		}
		if _, err := os.Lstat(plant); err == nil {
			t.Errorf("round %d: the agent's MERGE_HEAD is still there", round)
		}
	}
	for _, ref := range []string{"refs/ralph-ci/state/a", "refs/ralph-ci/state/b"} {
		if _, err := os.Lstat(filepath.Join(p.dir, ref)); err != nil {
			t.Errorf("%s, made by ralph-ci's git, was swept: %v", ref, err)
		}
	}
}

// TestEveryCommandSweepsWhileAnAgentMayLive: while an untrusted process
// runs, and for good once one ended without all it started known gone
// (no shepherd, a timeout), each command sweeps and checks again.
func TestEveryCommandSweepsWhileAnAgentMayLive(t *testing.T) {
	dir := repo(t)
	t.Cleanup(func() {
		untrusted.mu.Lock()
		untrusted.tainted = false
		untrusted.mu.Unlock()
	})
	end, err := Untrusted()
	if err != nil {
		t.Fatal(err)
	}
	before := sweeps.Load()
	delivery(t, dir, "refs/ralph-ci/state/live")
	if n := sweeps.Load() - before; n != 4 {
		t.Errorf("%d sweeps for four commands while an agent lives, want 4", n)
	}
	end(false)
	before = sweeps.Load()
	delivery(t, dir, "refs/ralph-ci/state/after")
	if n := sweeps.Load() - before; n != 4 {
		t.Errorf("%d sweeps for four commands after an agent not known gone, want 4", n)
	}
}

// TestKeepsHeadCommandsKeepIt: a delivery rotation's commands that
// syncOut skips (keepsHead: status, add, push) leave ralph-ci's HEAD, its
// branch and shallow list as they were; its commit, which syncOut does
// not skip, reaches the checkout's branch.
func TestKeepsHeadCommandsKeepIt(t *testing.T) {
	ctx := context.Background()
	dir := repo(t)
	origin := t.TempDir()
	person(t, origin, "init", "-q", "--bare")
	person(t, dir, "remote", "add", "origin", origin)
	c, _ := Find(dir)
	p, err := privateFor(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, dir, "rev-parse", "HEAD"); err != nil { // ralph-ci's HEAD is the checkout's
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "work.txt"), []byte("work\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	who := []string{"GIT_AUTHOR_NAME=R", "GIT_AUTHOR_EMAIL=r@example.com", "GIT_COMMITTER_NAME=R", "GIT_COMMITTER_EMAIL=r@example.com"}
	for _, args := range [][]string{{"status", "--porcelain"}, {"add", "--all"}, {"commit", "--quiet", "-m", "work"}, {"push", "--quiet", "origin", "HEAD:refs/heads/work"}} {
		sub := subcommand(args)
		before, err := readHead(p.dir, p.dir)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := (Command{Dir: dir, Args: args, Env: who}).Run(ctx); err != nil {
			t.Fatalf("git %s: %v %s", sub, err, out)
		}
		after, err := readHead(p.dir, p.dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Join(p.dir, "shallow")); keepsHead(sub) && (after != before || err == nil) {
			t.Errorf("git %s moved ralph-ci's HEAD (%+v -> %+v) or made a shallow list (%v)", sub, before, after, err)
		}
	}
	if got, want := person(t, dir, "rev-parse", "HEAD"), person(t, origin, "rev-parse", "work"); got != want || person(t, dir, "log", "-1", "--format=%s") != "work" {
		t.Errorf("the checkout's HEAD %s, pushed %s: the commit did not reach the checkout", got, want)
	}
}

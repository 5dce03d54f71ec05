package pullrequest

import (
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// protected is a CIWorld whose base branch requires `ralph-ci`, with the
// contents API listing origin's folders too (the base's specs).
func protected(t *testing.T, files map[string]string) *e2e.CIWorld {
	return e2e.Protect(e2e.NewCIWorld(t, e2e.RalphBinary(t), files))
}

// A loop, an approval, then the merge goes through; a person's push after
// the approval blocks it again until the loop and a person say so again.
func TestProtectedMergeAfterLoopAndApproval(t *testing.T) {
	w := protected(t, e2e.CIRepoFiles)

	w.Job("", "")
	w.Ralph(6, "run", "--deliver", "pr")
	head := w.Rev("refs/heads/changes")
	w.WantGate(head, "pending", "verified 3/3 at "+head[:7]+"; awaiting approval: "+e2e.SpecA)
	if code := w.MergePR(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge while the checkpoint waits: %d, want 405", code)
	}

	w.Srv.React(w.Checkpoint().ID, e2e.Alice, "+1")
	w.Job(head, "refs/remotes/origin/changes")
	w.Ralph(0, "check", "--deliver", "pr")
	w.WantGate(head, "success", "every checkpoint approved")

	human := w.PersonPushes()
	if code := w.MergePR(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge after a person's push: %d, want 405 (nothing judged the new head)", code)
	}
	w.Job(human, "refs/remotes/origin/changes")
	w.Ralph(6, "check", "--deliver", "pr") // the approval was for the older head
	w.WantGate(human, "pending", "not verified 3/3 at "+human[:7])
	if code := w.MergePR(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge after a person's push and check: %d, want 405", code)
	}

	w.Job("", "")
	w.Ralph(6, "run", "--deliver", "pr")
	head = w.Rev("refs/heads/changes")
	w.WantGate(head, "pending", "awaiting approval")
	w.Srv.React(w.Checkpoint().ID, e2e.Alice, "+1")
	w.Job(head, "refs/remotes/origin/changes")
	w.Ralph(0, "check", "--deliver", "pr")
	w.WantGate(head, "success", "every checkpoint approved")
	if code := w.MergePR(); code != http.StatusOK {
		t.Fatalf("merge once ralph-ci is success: %d, want 200", code)
	}
	if merged, at := w.Srv.Merged(); !merged || at != head {
		t.Fatalf("merged %v at %.7s, want the head %.7s", merged, at, head)
	}
}

// A pull request that adds a verify-tier spec cannot be merged until that
// spec's checkpoint is approved too: nobody listed it anywhere.
func TestProtectedMergeWaitsForANewSpec(t *testing.T) {
	files := maps.Clone(e2e.CIRepoFiles)
	files["specs/c.spec.md"] = "---\nid: new-report\ntitle: Report\n---\n# A new report page\n"
	w := protected(t, files)
	w.Job("", "")
	w.Ralph(6, "run", "--deliver", "pr")
	head := w.Rev("refs/heads/changes")
	a, _ := w.CheckpointOf(e2e.SpecA)
	w.Srv.React(a.ID, e2e.Alice, "+1")
	w.Job(head, "refs/remotes/origin/changes")
	stdout, _ := w.Ralph(6, "check", "--deliver", "pr")
	e2e.Contains(t, "check", stdout, e2e.SpecA+"\tcheckpoint=passed", "specs/c.spec.md\tcheckpoint=pending")
	w.WantGateState(head, "pending", "awaiting approval: specs/c.spec.md")
	if code := w.MergePR(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge with the new spec's checkpoint waiting: %d, want 405", code)
	}
	c, _ := w.CheckpointOf("specs/c.spec.md")
	w.Srv.React(c.ID, e2e.Alice, "+1")
	w.Job(head, "refs/remotes/origin/changes")
	w.Ralph(0, "check", "--deliver", "pr")
	if code := w.MergePR(); code != http.StatusOK {
		t.Fatalf("merge once both checkpoints are approved: %d, want 200", code)
	}
}

// A pull request that moves a verify-tier spec of the base, edits it so
// that it is not recognised, and declares it auto: the removal of the old
// one is a checkpoint of its own, and ralph-ci stays pending until a
// person accepts it; then it passes.
func TestRemovalOfAVerifySpecIsACheckpoint(t *testing.T) {
	base := map[string]string{"README.md": "hello\n", ".gitignore": ".ralph/\n", "ralph.yaml": e2e.CIRepoFiles["ralph.yaml"],
		e2e.SpecA: e2e.CIRepoFiles[e2e.SpecA], "agent.sh": e2e.CIAgent}
	o := ghorigin.New(t, "master", "changes", 2, base, map[string]string{"notes.txt": "moving a spec\n"})
	ghorigin.Git(t, o.Seed, "checkout", "--quiet", "-B", "changes", "origin/changes")
	ghorigin.Git(t, o.Seed, "rm", "--quiet", e2e.SpecA)
	ghorigin.WriteFiles(t, o.Seed, map[string]string{"specs/moved.spec.md": "---\nid: totals-v2\ntitle: Totals, reworked\ncontracts:\n  - name: totals\n    verification: auto\n---\n# Totals, reworked\n"})
	ghorigin.Git(t, o.Seed, "add", "--all")
	ghorigin.Git(t, o.Seed, "commit", "--quiet", "-m", "move the totals spec and make it auto")
	ghorigin.Git(t, o.Seed, "push", "--quiet", "origin", "changes")
	o.RefreshPR()
	w := e2e.Protect(e2e.CIWorldOf(t, e2e.RalphBinary(t), o, base["ralph.yaml"]))

	w.Job("", "")
	w.Ralph(0, "run", "--deliver", "pr")
	head := w.Rev("refs/heads/changes")
	w.WantGateState(head, "pending", "removal of "+e2e.SpecA)
	w.Job(head, "refs/remotes/origin/changes")
	stdout, _ := w.Ralph(6, "check", "--deliver", "pr")
	e2e.Contains(t, "check", stdout, e2e.SpecA+" (verify on the pull request's base) is not in the pull request", e2e.SpecA+"\tcheckpoint=pending")
	w.WantGateState(head, "pending", "awaiting approval: "+e2e.SpecA)
	removal, rec := w.CheckpointOf(e2e.SpecA)
	e2e.Contains(t, "the removal checkpoint", removal.Body, "Removal of "+e2e.SpecA, "is no longer in this pull request")
	if rec.SHA != head {
		t.Fatalf("the removal checkpoint is for %.7s, want the head %.7s", rec.SHA, head)
	}
	if code := w.MergePR(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge before the removal is accepted: %d, want 405", code)
	}
	w.Srv.React(removal.ID, e2e.Alice, "+1")
	w.Job(head, "refs/remotes/origin/changes")
	w.Ralph(0, "check", "--deliver", "pr")
	w.WantGateState(head, "success", "every checkpoint approved")
	// A run on the same head (it judges no removal) leaves it so.
	w.Job("", "")
	w.Ralph(0, "run", "--deliver", "pr")
	w.WantGateState(head, "success", "every checkpoint approved")
	if code := w.MergePR(); code != http.StatusOK {
		t.Fatalf("merge once the removal is accepted: %d, want 200", code)
	}
}

// A pull request that breaks the config fails the gate, saying where.
func TestBrokenConfigFailsTheGate(t *testing.T) {
	w := newPRWorld(t, e2e.RalphBinary(t), map[string]string{"ralph.yaml": "agents:\n  coder: {command: [], timeout: 1m}\n"})
	w.Ralph(2, "check")
	_, statuses := w.Srv.Snapshot()
	var got []string
	for _, st := range statuses {
		if st.Context == "ralph-ci" && st.SHA == w.HeadSHA {
			got = append(got, st.State+" "+st.Description)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "failure usage: ") || !strings.Contains(got[0], "ralph.yaml") {
		t.Fatalf("ralph-ci statuses on the head: %q, want one failure naming ralph.yaml", got)
	}
}

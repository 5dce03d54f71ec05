package main

import (
	"bytes"
	"maps"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
	"github.com/ralph-ci/ralph-ci/internal/ghorigin"
)

// To the merge button of a protected repository, through the binary: the
// base branch requires the one status `ralph-ci` (ghfake.Protect), and a
// person merges with the API as the merge button does. Each job is a
// fresh checkout of origin (ciWorld).

// protected is a ciWorld whose base branch requires `ralph-ci`, with the
// contents API listing origin's folders too (the base's specs).
func protected(t *testing.T, files map[string]string) *ciWorld {
	return protect(newCIWorld(t, ralphBinary(t), files))
}

func protect(w *ciWorld) *ciWorld {
	w.extraEnv = append(w.extraEnv, "GITHUB_SERVER_URL=https://github.com", "GITHUB_RUN_ID=42")
	w.srv.Protect("ralph-ci")
	w.srv.TreeFrom = func(ref string) []string {
		if ref == w.srv.BaseSHA {
			ref = "master"
		}
		out, err := exec.Command("git", "-C", w.Bare, "ls-tree", "-r", "--name-only", ref).Output()
		if err != nil {
			return nil
		}
		return strings.Fields(string(out))
	}
	return w
}

// merge presses the merge button: PUT .../pulls/2/merge, as a person
// with the token would; it returns the answer's status code.
func (w *ciWorld) merge() int {
	w.t.Helper()
	req, err := http.NewRequest("PUT", w.srv.URL+"/repos/Codertocat/Hello-World/pulls/2/merge", bytes.NewReader([]byte(`{"merge_method":"squash"}`)))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer test-token")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// gate is the newest `ralph-ci` status on sha.
func (w *ciWorld) gate(sha string) fake.Status {
	w.t.Helper()
	_, statuses := w.srv.Snapshot()
	for i := len(statuses) - 1; i >= 0; i-- {
		if st := statuses[i]; st.SHA == sha && st.Context == "ralph-ci" {
			return st
		}
	}
	w.t.Fatalf("no ralph-ci status on %.7s", sha)
	return fake.Status{}
}

func (w *ciWorld) wantGate(sha, state, desc string) {
	w.t.Helper()
	if st := w.gate(sha); st.State != state || !strings.Contains(st.Description, desc) || st.TargetURL != "https://github.com/Codertocat/Hello-World/actions/runs/42" {
		w.t.Fatalf("ralph-ci on %.7s: %s %q -> %s, want %s with %q pointing at the run", sha, st.State, st.Description, st.TargetURL, state, desc)
	}
}

// A loop, an approval, then the merge goes through; a person's push after
// the approval blocks it again until the loop and a person say so again.
func TestProtectedMergeAfterLoopAndApproval(t *testing.T) {
	w := protected(t, ciRepoFiles)

	w.job("", "")
	w.ralph(6, "run", "--deliver", "pr")
	head := w.Rev("refs/heads/changes")
	w.wantGate(head, "pending", "verified 3/3 at "+head[:7]+"; awaiting approval: "+specA)
	if code := w.merge(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge while the checkpoint waits: %d, want 405", code)
	}

	w.srv.React(w.checkpoint().ID, alice, "+1")
	w.job(head, "refs/remotes/origin/changes")
	w.ralph(0, "check", "--deliver", "pr")
	w.wantGate(head, "success", "every checkpoint approved")

	human := w.personPushes()
	if code := w.merge(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge after a person's push: %d, want 405 (nothing judged the new head)", code)
	}
	w.job(human, "refs/remotes/origin/changes")
	w.ralph(6, "check", "--deliver", "pr") // the approval was for the older head
	w.wantGate(human, "pending", "not verified 3/3 at "+human[:7])
	if code := w.merge(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge after a person's push and check: %d, want 405", code)
	}

	w.job("", "")
	w.ralph(6, "run", "--deliver", "pr")
	head = w.Rev("refs/heads/changes")
	w.wantGate(head, "pending", "awaiting approval")
	w.srv.React(w.checkpoint().ID, alice, "+1")
	w.job(head, "refs/remotes/origin/changes")
	w.ralph(0, "check", "--deliver", "pr")
	w.wantGate(head, "success", "every checkpoint approved")
	if code := w.merge(); code != http.StatusOK {
		t.Fatalf("merge once ralph-ci is success: %d, want 200", code)
	}
	if merged, at := w.srv.Merged(); !merged || at != head {
		t.Fatalf("merged %v at %.7s, want the head %.7s", merged, at, head)
	}
}

// A pull request that adds a verify-tier spec cannot be merged until that
// spec's checkpoint is approved too: nobody listed it anywhere.
func TestProtectedMergeWaitsForANewSpec(t *testing.T) {
	files := maps.Clone(ciRepoFiles)
	files["specs/c.spec.md"] = "---\nid: new-report\ntitle: Report\n---\n# A new report page\n"
	w := protected(t, files)
	w.job("", "")
	w.ralph(6, "run", "--deliver", "pr")
	head := w.Rev("refs/heads/changes")
	a, _ := w.checkpointOf(specA)
	w.srv.React(a.ID, alice, "+1")
	w.job(head, "refs/remotes/origin/changes")
	stdout, _ := w.ralph(6, "check", "--deliver", "pr")
	contains(t, "check", stdout, specA+"\tcheckpoint=passed", "specs/c.spec.md\tcheckpoint=pending")
	w.wantGateState(head, "pending", "awaiting approval: specs/c.spec.md")
	if code := w.merge(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge with the new spec's checkpoint waiting: %d, want 405", code)
	}
	c, _ := w.checkpointOf("specs/c.spec.md")
	w.srv.React(c.ID, alice, "+1")
	w.job(head, "refs/remotes/origin/changes")
	w.ralph(0, "check", "--deliver", "pr")
	if code := w.merge(); code != http.StatusOK {
		t.Fatalf("merge once both checkpoints are approved: %d, want 200", code)
	}
}

func (w *ciWorld) wantGateState(sha, state, desc string) {
	w.t.Helper()
	if st := w.gate(sha); st.State != state || !strings.Contains(st.Description, desc) {
		w.t.Fatalf("ralph-ci on %.7s: %s %q, want %s with %q", sha, st.State, st.Description, state, desc)
	}
}

// A pull request that moves a verify-tier spec of the base, edits it so
// that it is not recognised, and declares it auto: the removal of the old
// one is a checkpoint of its own, and ralph-ci stays pending until a
// person accepts it; then it passes.
func TestRemovalOfAVerifySpecIsACheckpoint(t *testing.T) {
	base := map[string]string{"README.md": "hello\n", ".gitignore": ".ralph/\n", "ralph.yaml": ciRepoFiles["ralph.yaml"],
		specA: ciRepoFiles[specA], "agent.sh": ciAgent}
	o := ghorigin.New(t, "master", "changes", 2, base, map[string]string{"notes.txt": "moving a spec\n"})
	ghorigin.Git(t, o.Seed, "checkout", "--quiet", "-B", "changes", "origin/changes")
	ghorigin.Git(t, o.Seed, "rm", "--quiet", specA)
	ghorigin.WriteFiles(t, o.Seed, map[string]string{"specs/moved.spec.md": "---\nid: totals-v2\ntitle: Totals, reworked\ncontracts:\n  - name: totals\n    verification: auto\n---\n# Totals, reworked\n"})
	ghorigin.Git(t, o.Seed, "add", "--all")
	ghorigin.Git(t, o.Seed, "commit", "--quiet", "-m", "move the totals spec and make it auto")
	ghorigin.Git(t, o.Seed, "push", "--quiet", "origin", "changes")
	o.RefreshPR()
	w := protect(ciWorldOf(t, ralphBinary(t), o, base["ralph.yaml"]))

	w.job("", "")
	w.ralph(0, "run", "--deliver", "pr")
	head := w.Rev("refs/heads/changes")
	w.wantGateState(head, "pending", "removal of "+specA)
	w.job(head, "refs/remotes/origin/changes")
	stdout, _ := w.ralph(6, "check", "--deliver", "pr")
	contains(t, "check", stdout, specA+" (verify on the pull request's base) is not in the pull request", specA+"\tcheckpoint=pending")
	w.wantGateState(head, "pending", "awaiting approval: "+specA)
	removal, rec := w.checkpointOf(specA)
	contains(t, "the removal checkpoint", removal.Body, "Removal of "+specA, "is no longer in this pull request")
	if rec.SHA != head {
		t.Fatalf("the removal checkpoint is for %.7s, want the head %.7s", rec.SHA, head)
	}
	if code := w.merge(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge before the removal is accepted: %d, want 405", code)
	}
	w.srv.React(removal.ID, alice, "+1")
	w.job(head, "refs/remotes/origin/changes")
	w.ralph(0, "check", "--deliver", "pr")
	w.wantGateState(head, "success", "every checkpoint approved")
	// A run on the same head (it judges no removal) leaves it so.
	w.job("", "")
	w.ralph(0, "run", "--deliver", "pr")
	w.wantGateState(head, "success", "every checkpoint approved")
	if code := w.merge(); code != http.StatusOK {
		t.Fatalf("merge once the removal is accepted: %d, want 200", code)
	}
}

// A pull request that breaks the config fails the gate, saying where.
func TestBrokenConfigFailsTheGate(t *testing.T) {
	w := newPRWorld(t, ralphBinary(t), map[string]string{"ralph.yaml": "agents:\n  coder: {command: [], timeout: 1m}\n"})
	w.ralph(2, "check")
	_, statuses := w.srv.Snapshot()
	var got []string
	for _, st := range statuses {
		if st.Context == "ralph-ci" && st.SHA == w.head {
			got = append(got, st.State+" "+st.Description)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "failure usage: ") || !strings.Contains(got[0], "ralph.yaml") {
		t.Fatalf("ralph-ci statuses on the head: %q, want one failure naming ralph.yaml", got)
	}
}

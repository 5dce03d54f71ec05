package pullrequest

import (
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"

	fake "github.com/ralph-ci/ralph-ci/internal/ghfake"
)

// The one status under the name a team chose (github.status_context),
// through the binary on a protected base that requires that name: a run
// stopped by a limit fails it; the loop's end sets it pending while the
// checkpoint waits, and check reads ralph-ci's own record back from that
// same context (not from `ralph-ci`) to turn it green once a person
// approves; then the merge goes through. No status is ever set under the
// default name.
func TestGateContextIsConfigurable(t *testing.T) {
	files := maps.Clone(e2e.CIRepoFiles)
	files["ralph.yaml"] = strings.Replace(files["ralph.yaml"], "github: {approvers: [carol]}",
		"github: {approvers: [carol], status_context: merge-gate}", 1)
	if files["ralph.yaml"] == e2e.CIRepoFiles["ralph.yaml"] {
		t.Fatal("the config has no github line to extend")
	}
	w := protected(t, files)
	w.Srv.Protect("merge-gate")
	gate := func(sha string) fake.Status {
		t.Helper()
		_, statuses := w.Srv.Snapshot()
		for i := len(statuses) - 1; i >= 0; i-- {
			if st := statuses[i]; st.SHA == sha && st.Context == "merge-gate" {
				return st
			}
		}
		t.Fatalf("no merge-gate status on %.7s", sha)
		return fake.Status{}
	}
	want := func(sha, state, desc string) {
		t.Helper()
		if st := gate(sha); st.State != state || !strings.Contains(st.Description, desc) || st.TargetURL != "https://github.com/Codertocat/Hello-World/actions/runs/42" {
			t.Fatalf("merge-gate on %.7s: %s %q -> %s, want %s with %q pointing at the run", sha, st.State, st.Description, st.TargetURL, state, desc)
		}
	}

	// A limit stops the loop: failure, saying which.
	w.Job("", "")
	w.Ralph(3, "run", "--deliver", "pr", "--max-rotations", "1")
	head := w.Rev("refs/heads/changes")
	want(head, "failure", "limits: ")
	if code := w.MergePR(); code != http.StatusMethodNotAllowed {
		t.Fatalf("merge after a limit: %d, want 405", code)
	}

	// The loop goes on to 3/3: pending while the checkpoint waits.
	w.Job("", "")
	w.Ralph(6, "run", "--deliver", "pr")
	head = w.Rev("refs/heads/changes")
	want(head, "pending", "verified 3/3 at "+head[:7]+"; awaiting approval: "+e2e.SpecA)

	// A person approves; check finds the record under merge-gate.
	w.Srv.React(w.Checkpoint().ID, e2e.Alice, "+1")
	w.Job(head, "refs/remotes/origin/changes")
	w.Ralph(0, "check", "--deliver", "pr")
	want(head, "success", "every checkpoint approved")
	if code := w.MergePR(); code != http.StatusOK {
		t.Fatalf("merge once merge-gate is success: %d, want 200", code)
	}

	_, statuses := w.Srv.Snapshot()
	for _, st := range statuses {
		if st.Context == "ralph-ci" {
			t.Fatalf("a status under the default name although github.status_context is merge-gate: %+v", st)
		}
	}
}

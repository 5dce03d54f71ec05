package main

import (
	"fmt"
	"os"
	"testing"
)

// A fork's pull request: check on pull_request_target (the checkout is
// the base, with no specs; nothing of the fork's is checked out or run)
// judges the event's pull request alone through the API, and sets the
// one status on its head.
func TestCheckOnPullRequestTargetJudgesAForksPullRequest(t *testing.T) {
	w := newSweepWorld(t, ralphBinary(t), sweepConfig, "schedule", 1, 2)
	w.eventName = "pull_request_target"
	payload := fmt.Sprintf(`{"action":"synchronize","number":1,"pull_request":{"number":1,"head":{"sha":%q,"ref":"feature","repo":{"full_name":"someone/Hello-World"}},"base":{"ref":"master","repo":{"full_name":"Codertocat/Hello-World"}}},"repository":{"full_name":"Codertocat/Hello-World"}}`, w.heads[1])
	if err := os.WriteFile(w.event, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _ := w.check(6)
	contains(t, "check", stdout, "#1\tspecs/a.spec.md\tcheckpoint=pending")
	if w.srv.Seen("GET", "/issues/2/comments") != 0 {
		t.Fatal("check on pull_request_target read another pull request")
	}
	w.srv.React(w.comments[1], alice, "+1")
	stdout, _ = w.check(0)
	contains(t, "check", stdout, "#1\tspecs/a.spec.md\tcheckpoint=passed")
	if st := w.gate(1); st.State != "success" {
		t.Fatalf("ralph-ci on the fork's head: %s %q, want success", st.State, st.Description)
	}
}

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

// run on a fork's pull request does nothing unless a person with write
// access asks; asked, it works on ralph-ci/pr-N of the base repository
// and opens a pull request from it.
func TestRunOnAForkOnlyWhenAMaintainerAsks(t *testing.T) {
	w := newCIWorld(t, ralphBinary(t), ciRepoFiles)
	w.srv.HeadRepo = "someone/Hello-World"
	w.srv.Perms["mallory"] = "read"
	comment := func(login string) {
		w.setEventJSON(fmt.Sprintf(`{"action":"created","issue":{"number":2,"pull_request":{"url":"x"}},"comment":{"id":1,"body":"/ralph-ci run please","user":{"login":%q}},"repository":{"full_name":"Codertocat/Hello-World"},"sender":{"login":%q}}`, login, login))
	}
	w.extraEnv = append(w.extraEnv, "GITHUB_EVENT_NAME=issue_comment")

	// The fork's synchronize: nothing runs.
	w.setEventJSON(`{"action":"synchronize","number":2,"pull_request":{"number":2,"head":{"sha":"x","ref":"changes","repo":{"full_name":"someone/Hello-World"}},"base":{"ref":"master","repo":{"full_name":"Codertocat/Hello-World"}}},"repository":{"full_name":"Codertocat/Hello-World"}}`)
	w.job("", "")
	stdout, _ := w.ralphEnv(0, []string{"GITHUB_EVENT_NAME=pull_request_target"}, "run", "--deliver", "pr")
	contains(t, "run on a fork's push", stdout, "comes from a fork (someone/Hello-World): run works on it only when a person with write access asks")
	if len(w.iterations()) != 0 {
		t.Fatal("an agent ran on a fork's pull request nobody asked for")
	}

	// Someone who may not write asks: still nothing.
	comment("mallory")
	w.job("", "")
	stdout, _ = w.ralph(0, "run", "--deliver", "pr")
	contains(t, "run asked by mallory", stdout, "@mallory asked to run on pull request #2 from a fork, but may not write")
	if len(w.iterations()) != 0 {
		t.Fatal("an agent ran at the request of someone who may not write")
	}

	// A maintainer asks: the loop runs on ralph-ci/pr-2 and a pull request is opened from it.
	comment("alice")
	w.job("", "")
	w.ralph(3, "run", "--deliver", "pr", "--max-rotations", "2")
	if len(w.iterations()) != 2 {
		t.Fatalf("%d rotations, want 2", len(w.iterations()))
	}
	if w.Rev("refs/heads/ralph-ci/pr-2") == "" {
		t.Fatal("nothing was delivered to ralph-ci/pr-2 of the base repository")
	}
	opened := w.srv.OpenedPulls()
	if len(opened) != 1 || opened[0].Head != "ralph-ci/pr-2" || opened[0].Base != "master" {
		t.Fatalf("pull requests opened: %+v, want one from ralph-ci/pr-2 into master", opened)
	}
}

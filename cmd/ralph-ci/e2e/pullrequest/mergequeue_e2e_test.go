package pullrequest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/cmd/ralph-ci/internal/e2e"
)

// A merge queue: check on merge_group sets ralph-ci on the group's
// commit from the ralph-ci status of each pull request at the head the
// group holds; no agent runs, no comment is posted. Pull requests #1 and
// #2 of sweepWorld are in the group (their heads are its ancestors).
func TestMergeGroup(t *testing.T) {
	bin := e2e.RalphBinary(t)
	const group = "6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d6d"
	setup := func(t *testing.T) *sweepWorld {
		w := newSweepWorld(t, bin, sweepConfig, "schedule", 1, 2)
		w.eventName = "merge_group"
		payload := fmt.Sprintf(`{"action":"checks_requested","merge_group":{"head_sha":%q,"head_ref":"refs/heads/gh-readonly-queue/master/pr-2-%s","base_sha":%q,"base_ref":"refs/heads/master"}}`,
			group, w.heads[2], w.srv.BaseSHA)
		if err := os.WriteFile(w.event, []byte(payload), 0o644); err != nil {
			t.Fatal(err)
		}
		h1, h2 := w.heads[1], w.heads[2] // the heads the group was made of
		w.srv.Ancestor = func(a, b string) bool { return b == group && (a == h1 || a == h2) }
		return w
	}
	groupGate := func(w *sweepWorld) (state, desc string) {
		_, statuses := w.srv.Snapshot()
		for i := len(statuses) - 1; i >= 0; i-- {
			if st := statuses[i]; st.SHA == group && st.Context == "ralph-ci" {
				return st.State, st.Description
			}
		}
		return "", ""
	}

	t.Run("both approved", func(t *testing.T) {
		w := setup(t)
		for _, n := range []int{1, 2} {
			w.srv.SetStatus(w.heads[n], "ralph-ci", "success", "verified 3/3, every checkpoint approved")
		}
		w.check(0)
		if state, desc := groupGate(w); state != "success" || !strings.Contains(desc, "#1, #2") {
			t.Fatalf("the group: %s %q, want success for #1 and #2", state, desc)
		}
	})
	t.Run("one pull request of two not approved", func(t *testing.T) {
		w := setup(t)
		w.srv.SetStatus(w.heads[1], "ralph-ci", "success", "verified 3/3, every checkpoint approved")
		before := len(w.srv.CommentsOn(1)) + len(w.srv.CommentsOn(2))
		_, stderr := w.check(1)
		e2e.Contains(t, "check", stderr, "#2 has no ralph-ci success")
		if state, desc := groupGate(w); state != "failure" || !strings.Contains(desc, fmt.Sprintf("#2 has no ralph-ci success at %.7s (pending)", w.heads[2])) {
			t.Fatalf("the group: %s %q, want failure naming #2", state, desc)
		}
		if after := len(w.srv.CommentsOn(1)) + len(w.srv.CommentsOn(2)); after != before {
			t.Fatalf("check on merge_group posted %d comments", after-before)
		}
	})
	t.Run("a head that moved", func(t *testing.T) {
		w := setup(t)
		moved := fmt.Sprintf("%040x", 0xdef002)
		w.srv.SetStatus(w.heads[1], "ralph-ci", "success", "verified 3/3, every checkpoint approved")
		w.srv.SetHead(moved) // #1 is New's pull request: its head moves past the group
		w.srv.SetStatus(moved, "ralph-ci", "success", "verified 3/3, every checkpoint approved")
		w.srv.SetStatus(w.heads[2], "ralph-ci", "success", "verified 3/3, every checkpoint approved")
		w.heads[1] = moved
		_, stderr := w.check(1)
		e2e.Contains(t, "check", stderr, "moved")
		if state, desc := groupGate(w); state != "failure" || !strings.Contains(desc, "#1's head "+moved[:7]+" moved") {
			t.Fatalf("the group: %s %q, want failure: #1 moved", state, desc)
		}
	})
}

package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// The one status: success only when everything is verified at the head
// and approved; pending while work or a checkpoint waits; failure on a
// rejection, an escalation, a limit or a broken config.
func TestJudge(t *testing.T) {
	head := "0123456789abcdef"
	for _, tc := range []struct {
		name  string
		in    Standing
		state string
		desc  string
	}{
		{"verified and approved", Standing{Checkpoints: Result{Passed: []string{"a"}}}, Success, "verified 3/3 at 0123456, every checkpoint approved"},
		{"no verify-tier spec", Standing{}, Success, "verified 3/3 at 0123456"},
		{"awaiting approval", Standing{Checkpoints: Result{Pending: []string{"a", "b"}}}, Pending, "verified 3/3 at 0123456; awaiting approval: a, b"},
		{"work waits", Standing{Unverified: []string{"a is not verified 3/3"}, Checkpoints: Result{Pending: []string{"a"}}}, Pending, "not verified 3/3 at 0123456: a is not verified 3/3"},
		{"rejected", Standing{Checkpoints: Result{Rework: []string{"a"}, Pending: []string{"b"}}}, Failure, "checkpoint rejected, back at work: a"},
		{"escalated", Standing{Checkpoints: Result{Escalated: []string{"a"}, Rework: []string{"b"}}}, Failure, "escalated, waiting for a decision (1/2/3): a"},
		{"a limit", Standing{Failed: exitcode.New(exitcode.Limits, errors.New("max rotations (10) reached")), Unverified: []string{"x"}}, Failure, "limits: max rotations (10) reached"},
		{"a broken config", Standing{Failed: exitcode.New(exitcode.Usage, errors.New("ralph.yaml:3:1: agents: field is required"))}, Failure, "usage: ralph.yaml:3:1"},
		{"awaiting is not a failure", Standing{Failed: exitcode.New(exitcode.AwaitHuman, errors.New("awaiting")), Checkpoints: Result{Pending: []string{"a"}}}, Pending, "verified 3/3 at 0123456; awaiting approval: a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Head = head
			v := Judge(tc.in)
			if v.State != tc.state || !strings.HasPrefix(v.Description, tc.desc) {
				t.Errorf("Judge: %s %q, want %s %q", v.State, v.Description, tc.state, tc.desc)
			}
		})
	}
	long := Judge(Standing{Head: head, Unverified: []string{strings.Repeat("a very long reason\nover lines ", 20)}})
	if n := len([]rune(long.Description)); n > MaxDescription || strings.Contains(long.Description, "\n") {
		t.Errorf("a long description: %d characters, %q; want one line of at most %d", n, long.Description, MaxDescription)
	}
}

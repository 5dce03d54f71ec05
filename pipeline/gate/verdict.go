package gate

import (
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/pipeline/exitcode"
)

// The one merge gate: a commit status named `ralph-ci` (github.
// status_context) on the pull request's head, what branch protection, a
// ruleset or a merge queue requires. It is success only when every spec
// found at that head (discovered with the base's rules) is verified 3/3
// at that head and every verify-tier checkpoint (removals included) is
// approved for it; pending while work or a checkpoint waits; failure on a
// rejection, an escalation, a limit or a broken config. A spec added by a
// pull request is gated without anyone listing it: it is one more spec
// the one status waits for.

// The states of a commit status.
const (
	Pending = "pending"
	Success = "success"
	Failure = "failure"
)

// VerifiedNote starts the description of a `ralph-ci` status that run set
// when every spec was verified 3/3 at the commit and only checkpoints
// were left: ralph-ci's own record that the commit is verified, which
// check (on a comment or a schedule) reads back to turn the gate green
// once the checkpoints are approved. Only ralph-ci's token can write it.
const VerifiedNote = "verified 3/3"

// Verdict is the one status: its state and its one-line description.
type Verdict struct {
	State, Description string
}

// Standing is what the gate knows of one pull request's head.
type Standing struct {
	Head string
	// Failed is how a run or check ended when it ended badly (a limit, a
	// stuck spec, exhausted agents, a broken config, an I/O failure);
	// nil otherwise. An exit code of where checkpoints stand is not one.
	Failed error
	// Unverified says why the specs are not all verified 3/3 at Head
	// (empty when they are).
	Unverified []string
	// Checkpoints is where the verify-tier checkpoints stand, removals
	// included.
	Checkpoints Result
}

// Judge is the rule of the one status.
func Judge(s Standing) Verdict {
	at := fmt.Sprintf(" at %.7s", s.Head)
	if s.Head == "" {
		at = ""
	}
	if s.Failed != nil {
		code := exitcode.Of(s.Failed)
		switch code {
		case exitcode.AwaitHuman, exitcode.Rejected, exitcode.Escalated: // where checkpoints stand: below
		default:
			return Verdict{Failure, oneLine(code.Class() + ": " + s.Failed.Error())}
		}
	}
	c := s.Checkpoints
	switch {
	case len(c.Escalated) > 0:
		return Verdict{Failure, oneLine("escalated, waiting for a decision (1/2/3): " + strings.Join(c.Escalated, ", "))}
	case len(c.Rework) > 0:
		return Verdict{Failure, oneLine("checkpoint rejected, back at work: " + strings.Join(c.Rework, ", "))}
	case len(s.Unverified) > 0:
		return Verdict{Pending, oneLine("not verified 3/3" + at + ": " + strings.Join(s.Unverified, "; "))}
	case len(c.Pending) > 0:
		return Verdict{Pending, oneLine(VerifiedNote + at + "; awaiting approval: " + strings.Join(c.Pending, ", "))}
	}
	return Verdict{Success, oneLine(VerifiedNote + at + ", every checkpoint approved")}
}

// MaxDescription is the length GitHub allows a status description.
const MaxDescription = 140

// oneLine is s on one line, cut to MaxDescription characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > MaxDescription {
		s = string(r[:MaxDescription-1]) + "…"
	}
	return s
}

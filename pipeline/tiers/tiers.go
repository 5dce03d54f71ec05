// Package tiers holds the rules of the verify tier's human checkpoint
// (spec/verification-tiers.md), free of any I/O: the exact checkpoint and
// escalation texts, the hidden marker that carries a checkpoint's record
// in its pull-request comment, how an answer (a reply or a reaction) is
// read, the rejection counter and log with their invariants and error
// handling, and the feedback each stage may see (the isolation rules).
//
// A checkpoint is per spec (a "slice"): its Record moves through
//
//	pending --1/yes/+1--> approved
//	pending --other--> rework (rejection_count+1) --3/3 again--> pending
//	pending --3rd rejection--> escalated --1/2--> rework (count 0)
//	                                     --3--> skipped (count kept)
//	escalated --anything else--> escalated + "Please choose 1, 2, or 3."
//
// A new slice execution (the spec's "rejection counter resets to 0 on
// every new execution") starts when the checkpoint is first presented on
// a pull request (a record from another pull request is not carried
// over) and when escalation option 1 (re-scope) or 2 (pair) is chosen.
// Editing the spec (a contract revision) does not start one: option 2 of
// the rejection flow must keep the counter.
package tiers

import "encoding/json"

// Status is where a checkpoint stands.
type Status string

// The statuses of a checkpoint.
const (
	StatusNone      Status = ""          // never presented
	StatusPending   Status = "pending"   // presented, waiting for an answer
	StatusApproved  Status = "approved"  // approved for Record.SHA
	StatusRework    Status = "rework"    // rejected: the spec is back at work
	StatusEscalated Status = "escalated" // rejected 3 times: waiting for 1/2/3
	StatusSkipped   Status = "skipped"   // escalation option 3: marked auto
)

// Classifications of a rejection (section 4).
const (
	TestGap           = "test_gap"
	ContractGap       = "contract_gap"
	ImplementationGap = "implementation_gap"
)

// Routes of a spec sent back to work by an escalation choice.
const (
	RouteRescope = "rescope" // option 1: restart from scratch
	RoutePair    = "pair"    // option 2: guidance, then the test writer
)

// EscalationThreshold is the number of rejections that escalates.
const EscalationThreshold = 3

// Record is the per-spec tracking of a checkpoint: the rejection counter
// and log of the spec (section 5's state structure) and the decision. It
// is kept in the checkpoint comment's marker and in state.json.
type Record struct {
	Status Status `json:"status"`
	// SHA is the head commit the checkpoint was presented (or decided) for.
	SHA string `json:"sha,omitempty"`
	// PR is the pull request number (0 outside GitHub).
	PR int `json:"pr,omitempty"`
	// CommentID is the checkpoint comment on the pull request.
	CommentID int64 `json:"comment_id,omitempty"`
	// RejectionCount counts the rejections of this slice execution.
	RejectionCount int `json:"rejection_count"`
	// RejectionLog has one entry per rejection, in order.
	RejectionLog []Rejection `json:"rejection_log"`
	// Route says how the spec was sent back to work: a classification
	// or an escalation route.
	Route string `json:"route,omitempty"`
	// Guidance is the step-by-step guidance of escalation option 2.
	Guidance string `json:"guidance,omitempty"`
	// Skip is the skip log entry of escalation option 3.
	Skip string `json:"skip,omitempty"`
	// Reprompt is set after an invalid escalation answer.
	Reprompt string `json:"reprompt,omitempty"`
	// DecidedBy is who gave the deciding answer.
	DecidedBy string `json:"decided_by,omitempty"`
	// DecidedID and DecidedKind name the answer the decision rests on
	// (a reply comment or a reaction, by its id on GitHub): a marker may
	// be edited or forged, so an approval or a skip read from one counts
	// only when that answer is read again from GitHub and passes the
	// rules (gate.Confirmer).
	DecidedID   int64  `json:"decided_id,omitempty"`
	DecidedKind string `json:"decided_kind,omitempty"`
	// AfterComment and AfterReaction are the highest comment and reaction
	// ids already read: an answer is read once, and only answers given
	// after the checkpoint was (re-)presented count.
	AfterComment  int64 `json:"after_comment,omitempty"`
	AfterReaction int64 `json:"after_reaction,omitempty"`
}

// Rejection is one entry of the rejection log (section 5).
type Rejection struct {
	Attempt        int    `json:"attempt"`
	Feedback       string `json:"feedback"`
	Classification string `json:"classification"`
	ActionTaken    string `json:"action_taken"`
}

// Passed tells whether the checkpoint lets the spec through for head: an
// approval for that very commit, or a skip (marked auto).
func (r Record) Passed(head string) bool {
	return r.Status == StatusSkipped || (r.Status == StatusApproved && r.SHA == head)
}

// Open tells whether the checkpoint waits for an answer.
func (r Record) Open() bool {
	return r.Status == StatusPending || r.Status == StatusEscalated
}

// MarshalJSON writes the record with its rejection log always a list
// (never null), as the state and report schemas require, even for a
// record read without one.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	if r.RejectionLog == nil {
		r.RejectionLog = []Rejection{}
	}
	return json.Marshal(plain(r))
}

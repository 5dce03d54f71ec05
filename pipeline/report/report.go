// Package report is the model of what one ralph-ci invocation did and
// found: the Report the engine fills, the reporters (package reporters and
// below) write, and a verdict's layers fill one Layer each of. It imports
// nothing of the project, so that the rules that build it (the layers) need
// not reach the writers. Its JSON form is schema/report.cue.
package report

import "time"

// Version is the version of the JSON report format (schema/report.cue).
const Version = 1

// Report is everything one ralph-ci invocation did and found.
type Report struct {
	Version    int       `json:"version"`
	Tool       Tool      `json:"tool"`
	Command    string    `json:"command"` // run, check
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at"`
	Exit       Exit      `json:"exit"`
	Totals     Totals    `json:"totals"`
	Specs      []Spec    `json:"specs"`
	// Spend is what the agents spent, by scope, and which caps stopped
	// what (run only; absent from check's reports and older versions).
	Spend *Spend `json:"spend,omitempty"`
}

// Spend is what the agents spent and the caps that stopped a rotation, a
// spec or the run.
type Spend struct {
	// Run is this invocation's spend; PullRequest every run's of the
	// loop's state (with delivery: the pull request's); Day the
	// repository's today, all pull requests, when budgets.per_day is set.
	Run         Amount  `json:"run"`
	PullRequest Amount  `json:"pull_request"`
	Day         *Amount `json:"day,omitempty"`
	// Stops are the caps that stopped something, in order.
	Stops []CapStop `json:"stops,omitempty"`
}

// Amount is a spend. USD leaves out the runs that could not be priced
// (Unpriced counts them); Text says it as reports write it ("$0.1234",
// "$0.10 + unknown (1 unpriced)", "unknown").
type Amount struct {
	USD      float64 `json:"usd"`
	Tokens   int64   `json:"tokens"`
	Unpriced int     `json:"unpriced,omitempty"`
	Text     string  `json:"text"`
}

// CapStop is a cap that stopped a rotation (and then the spec or the run,
// when it bounds them).
type CapStop struct {
	Scope     string `json:"scope"`   // rotation, run, spec, pull_request, day
	Key       string `json:"key"`     // the config key: budgets.per_rotation, …
	Measure   string `json:"measure"` // cost_usd or tokens
	Limit     string `json:"limit"`   // the cap: "$0.50", "20000"
	Spent     Amount `json:"spent"`   // the scope's spend when it stopped
	Spec      string `json:"spec,omitempty"`
	Iteration int    `json:"iteration,omitempty"`
	// Rotation is the stopped rotation's own spend.
	Rotation *Amount `json:"rotation,omitempty"`
	// Saved says what stopping saved.
	Saved string `json:"saved,omitempty"`
}

// Tool names the program that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Exit is how the invocation ended.
type Exit struct {
	Code    int    `json:"code"`
	Class   string `json:"class"` // exitcode.Code.Class()
	Message string `json:"message"`
}

// Totals sum up the specs.
type Totals struct {
	Specs     int     `json:"specs"`
	Verified  int     `json:"verified"` // verified and done (auto tier, or approved)
	Pending   int     `json:"pending"`  // still in the loop
	Failed    int     `json:"failed"`   // out of iterations, or another limit
	Stuck     int     `json:"stuck"`    // returned STUCK too often
	Awaiting  int     `json:"awaiting"` // verified, waiting for a human checkpoint
	Rotations int     `json:"rotations"`
	CostUSD   float64 `json:"cost_usd"`
}

// AllVerified counts the specs verified 3/3 as the README defines it
// (counter 3/3 and last stage passed): those done and those whose
// verify-tier checkpoint awaits a human. The other counts of Totals
// partition the specs; this one spans two of them.
func (t Totals) AllVerified() int { return t.Verified + t.Awaiting }

// Spec outcome values.
const (
	SpecVerified = "verified" // 3/3, last stage passed (auto tier, or approved)
	SpecPending  = "pending"  // work remains (a limit stopped the run first)
	SpecFailed   = "failed"   // taken out of the loop: out of iterations
	SpecStuck    = "stuck"    // taken out of the loop: STUCK too often
	SpecAwaiting = "awaiting" // verified 3/3, waiting for a human (verify tier)
)

// Spec is one spec's result.
type Spec struct {
	Path      string     `json:"path"`
	Key       string     `json:"key"`
	Title     string     `json:"title"`
	Tier      string     `json:"tier"`
	Outcome   string     `json:"outcome"` // one of the Spec* values
	Reason    string     `json:"reason,omitempty"`
	Counter   int        `json:"counter"` // 0..3
	Stage     string     `json:"stage"`
	Rotations []Rotation `json:"rotations"` // run by this invocation
	// TotalRotations counts every rotation of the spec, all runs included.
	TotalRotations int     `json:"total_rotations"`
	CostUSD        float64 `json:"cost_usd"`
	// Spend is the spec's spend, all runs included (absent from older
	// versions).
	Spend           *Amount `json:"spend,omitempty"`
	DurationSeconds float64 `json:"duration_seconds"`
	// Checkpoint is the human checkpoint of a verify-tier spec, once
	// presented.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// Shards are the jobs of a CI matrix the spec ran in: its shard
	// ("2-of-4") and "integration" when the integration ran it too.
	Shards []string `json:"shards,omitempty"`
}

// Checkpoint is where a verify-tier spec's human checkpoint stands.
type Checkpoint struct {
	// Status is pending, approved, rework, escalated or skipped.
	Status string `json:"status"`
	// SHA is the head commit it was presented or decided for.
	SHA            string      `json:"sha"`
	RejectionCount int         `json:"rejection_count"`
	RejectionLog   []Rejection `json:"rejection_log"`
	// Text is the checkpoint (or escalation) text, exactly as shown.
	Text string `json:"text"`
	// Note says where it stands and what is expected.
	Note string `json:"note"`
	// Skip is the skip log entry, after escalation option 3.
	Skip string `json:"skip,omitempty"`
}

// Rejection is one entry of a checkpoint's rejection log.
type Rejection struct {
	Attempt        int    `json:"attempt"`
	Feedback       string `json:"feedback"`
	Classification string `json:"classification"`
	ActionTaken    string `json:"action_taken"`
}

// Rotation is one agent process on one spec.
type Rotation struct {
	Iteration       int      `json:"iteration"`
	Stage           string   `json:"stage"`
	Agent           string   `json:"agent"`
	AgentStatus     string   `json:"agent_status"` // what the agent said (NONE if nothing)
	Status          string   `json:"status"`       // what counted: DONE, CONTINUE, ..., REJECTED
	Claimed         bool     `json:"claimed"`
	Accepted        bool     `json:"accepted"`
	Reason          string   `json:"reason,omitempty"`
	Counter         int      `json:"counter"` // after the rotation
	ChangedFiles    []string `json:"changed_files"`
	DurationSeconds float64  `json:"duration_seconds"`
	CostUSD         float64  `json:"cost_usd"`
	CostKnown       bool     `json:"cost_known"`
	ExitCode        int      `json:"exit_code"`
	TimedOut        bool     `json:"timed_out"`
	Log             string   `json:"log"` // history log, relative to the repo root
	Layers          []Layer  `json:"layers"`
	// PromptBytes is the size of the prompt the agent was given (absent
	// from the reports of older versions).
	PromptBytes int `json:"prompt_bytes,omitempty"`
	// InputTokens and OutputTokens are the tokens the agent's CLI reported
	// (cached input included); absent when it reported none.
	InputTokens  int64 `json:"input_tokens,omitempty"`
	OutputTokens int64 `json:"output_tokens,omitempty"`
	// Spend is the rotation's spend: its CLI's cost, else its tokens
	// priced (absent from older versions); StoppedBy the cap that stopped
	// it, if one did.
	Spend     *Amount  `json:"spend,omitempty"`
	StoppedBy *CapStop `json:"stopped_by,omitempty"`
	// Judge is the semantic judge's run on the rotation's claim, when one
	// ran (its spend is in Spend too).
	Judge *Judge `json:"judge,omitempty"`
}

// Judge is one run of the semantic judge: the model CLI of the agent with
// its vendor's small model.
type Judge struct {
	Agent           string  `json:"agent"`   // the agent whose CLI judged
	Model           string  `json:"model"`   // the judge's model
	Verdict         string  `json:"verdict"` // VERIFIED, NOT_VERIFIED or "no answer"
	CostUSD         float64 `json:"cost_usd"`
	CostKnown       bool    `json:"cost_known"`
	InputTokens     int64   `json:"input_tokens,omitempty"`
	OutputTokens    int64   `json:"output_tokens,omitempty"`
	DurationSeconds float64 `json:"duration_seconds"`
	Spend           *Amount `json:"spend,omitempty"`
}

// Layer is the verdict of one verification layer or method on a claim.
type Layer struct {
	Name   string `json:"name"` // contradiction, signal, string_match, ...
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"`
}

// ComputeTotals sums up specs: how many there are, how many have each
// outcome, the rotations they ran and what they cost. A spec with an
// unknown outcome counts in Specs only.
func ComputeTotals(specs []Spec) Totals {
	var t Totals
	for _, s := range specs {
		t.Specs++
		t.Rotations += len(s.Rotations)
		t.CostUSD += s.CostUSD
		switch s.Outcome {
		case SpecVerified:
			t.Verified++
		case SpecPending:
			t.Pending++
		case SpecFailed:
			t.Failed++
		case SpecStuck:
			t.Stuck++
		case SpecAwaiting:
			t.Awaiting++
		}
	}
	return t
}

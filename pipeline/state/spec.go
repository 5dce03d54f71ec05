package state

import (
	"maps"

	"github.com/ralph-ci/ralph-ci/pipeline/counter"
	"github.com/ralph-ci/ralph-ci/pipeline/status"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
	"github.com/ralph-ci/ralph-ci/pipeline/usage"
)

// SpecState is the saved state of one spec. Its fields are grouped by the
// feature that owns them, as embedded structs: encoding/json flattens
// them, so state.json keeps one flat object per spec, its keys in the
// order they always had. The stage moves (StartOver, SendBack, Advance,
// ClearReview, …) are the methods below.
type SpecState struct {
	// Path is the spec file, relative to the repository root, slash-separated.
	Path string `json:"path"`
	Counting
	Staging
	// Checkpoint is the human checkpoint of a verify-tier spec: its
	// decision, rejection counter and log (also kept in the checkpoint
	// comment's marker).
	Checkpoint *tiers.Record `json:"checkpoint,omitempty"`
	Tasks
	ReviewLoop
	VerifierGuard
	Sharding
	Spending
}

// Spending is what the spec's agents spent, all runs included, and the
// breaker's count of rejections for one reason.
type Spending struct {
	// Spend is the spec's spend (budgets.per_spec).
	Spend usage.Amount `json:"spend,omitzero"`
	// RejectKey is the normalised reason of the last rejected claim (see
	// pipeline/breaker); RejectRepeats counts the rejections in a row for
	// it. StuckBy is "breaker" once loop.same_rejections of them stopped
	// the spec.
	RejectKey     string `json:"reject_key,omitempty"`
	RejectRepeats int    `json:"reject_repeats,omitempty"`
	StuckBy       string `json:"stuck_by,omitempty"`
}

// Stuck tells whether the spec was taken out of the loop as stuck: it
// returned STUCK too often, or its claims were rejected for the same
// reason too often.
func (s *SpecState) Stuck() bool {
	return s.Excluded != "" && (s.LastStatus == status.Stuck || s.StuckBy != "")
}

// Sharding is what planning a CI matrix reads (pipeline/shards): where
// the spec ran and how long its agents took.
type Sharding struct {
	// Shard is the matrix shard ("2-of-4") whose state the last
	// integration took the spec's from; "" outside a matrix.
	Shard string `json:"shard,omitempty"`
	// Seconds is the agent time of all the spec's rotations.
	Seconds float64 `json:"seconds,omitempty"`
}

// Counting is what the verification counter and the scheduler read: the
// counter and the outcome of the spec's last rotation.
type Counting struct {
	// DoneCount is the verification counter (0..3).
	DoneCount int `json:"done_count"`
	// LastStatus is the status of the last rotation (status.Never
	// before the first).
	LastStatus status.Status `json:"last_status"`
	// LastHash is the sha256 (hex) of the spec content at the last rotation.
	LastHash string `json:"last_hash"`
	// ModifiedFiles tells whether the last rotation changed tracked files.
	ModifiedFiles bool `json:"modified_files"`
	// ChangedFiles lists the files the last rotation changed.
	ChangedFiles []string `json:"changed_files"`
	// Rotations is the number of rotations of this spec; it also numbers
	// the spec's history logs.
	Rotations int `json:"rotations"`
	// StuckCount is the number of consecutive STUCK rotations.
	StuckCount int `json:"stuck_count"`
	// SeenHash is the sha256 (hex) of the spec content when the loop last
	// scanned it, after its rotations: content that differs from it at the
	// start of a run was changed outside the loop (a change of mind).
	SeenHash string `json:"seen_hash,omitempty"`
}

// Staging is where the spec is in its stages, and whether it is still in
// the loop.
type Staging struct {
	// Stage is the stage the spec's next rotation runs ("" = the first).
	Stage string `json:"stage,omitempty"`
	// StageIterations counts the rotations of the current stage.
	StageIterations int `json:"stage_iterations,omitempty"`
	// StagesDone tells that the spec's last stage has passed once.
	StagesDone bool `json:"stages_done,omitempty"`
	// VerificationPasses counts the rotations run after the last stage
	// passed (bounded by loop.max_verification_passes).
	VerificationPasses int `json:"verification_passes,omitempty"`
	// Reason says why the last completion claim was rejected.
	Reason string `json:"reason,omitempty"`
	// Excluded says why the spec was taken out of the loop (stuck, out of
	// iterations); "" while it is in.
	Excluded string `json:"excluded,omitempty"`
}

// Tasks are the spec's accepted completion claims, as the artifact review
// counts them.
type Tasks struct {
	// TaskKey is the spec hash the task fields below belong to; a changed
	// spec starts its tasks (accepted claims) and review loop over.
	TaskKey string `json:"task_key,omitempty"`
	// TaskIndex is the number of tasks (accepted completion claims) of the
	// spec so far: the index of the next one.
	TaskIndex int `json:"task_index,omitempty"`
	// TaskStage is the stage (the "phase") of the last accepted task.
	TaskStage string `json:"task_stage,omitempty"`
}

// ReviewLoop is the pending artifact-review loop.
type ReviewLoop struct {
	// ReviewIteration is the iteration of a pending artifact review loop
	// (a fix rotation is due); 0 when none is pending.
	ReviewIteration int `json:"review_iteration,omitempty"`
	// ReviewFindings are the findings of the last REVIEW_FAIL of the
	// pending review loop.
	ReviewFindings string `json:"review_findings,omitempty"`
	// ReviewFixFailures counts failed fix rotations of the pending loop.
	ReviewFixFailures int `json:"review_fix_failures,omitempty"`
}

// VerifierGuard is the baseline of the verifier tamper guard.
type VerifierGuard struct {
	// VerifierKey identifies what VerifierHashes were recorded for (stage,
	// spec hash, guarded files).
	VerifierKey string `json:"verifier_key,omitempty"`
	// VerifierHashes are the sha256 of the guarded verifier files when the
	// stage started ("" for a missing file).
	VerifierHashes map[string]string `json:"verifier_hashes,omitempty"`
	// VerifierSeen are their hashes after the last rotation, to tell a
	// change made by a rotation from one made between runs.
	VerifierSeen map[string]string `json:"verifier_seen,omitempty"`
	// VerifierTree is HEAD's tree when the stage started: the loop's diff,
	// read for markers of unfinished work, is taken against it.
	VerifierTree string `json:"verifier_tree,omitempty"`
	// VerifierTests are the tests that passed in the stage's verifications
	// so far: none may go missing or be skipped later.
	VerifierTests []string `json:"verifier_tests,omitempty"`
}

// Verified tells whether the spec whose content hashes to hash is done:
// its counter at 3/3 and its last stage passed, for this very content,
// and it is still in the loop.
func (s *SpecState) Verified(hash string) bool {
	return s != nil && s.DoneCount == counter.Max && s.StagesDone && s.LastHash == hash && s.Excluded == ""
}

// StartOver sends the spec back to the start of its verification:
// counter 0/3, its first stage, no stage passed, no STUCK in a row.
func (s *SpecState) StartOver() {
	s.DoneCount, s.Stage, s.StageIterations, s.StagesDone, s.StuckCount = 0, "", 0, false, 0
	s.VerificationPasses = 0
}

// ChangeOfMind clears what the spec's old content decided, when a person
// changed their mind (edited the spec between runs, or ran ralph-ci
// reset): its verification starts over, and the same-reason rejection
// streak, the stuck mark, the exclusion and the last rejection's reason
// go. The verifier guard's baseline is kept: a change of the criteria
// re-lists what it guards before the next rotation (layers.GuardBefore),
// so a rotation's rejected edit of a test is not taken as the new
// baseline by an edit of the spec's text.
func (s *SpecState) ChangeOfMind() {
	s.StartOver()
	s.Excluded, s.Reason = "", ""
	s.RejectKey, s.RejectRepeats, s.StuckBy = "", 0, ""
}

// SendBack puts a spec whose checkpoint was rejected back to work: it
// starts over from stage ("" = the first), and reason tells the next
// rotations why.
func (s *SpecState) SendBack(stage, reason string) {
	s.StartOver()
	s.Stage, s.Reason = stage, reason
}

// Advance moves the spec on after an accepted claim on its stage: to
// next, or, when next is "" (the claim passed the last stage), it stays
// on stage with every stage passed. The stage's iterations start over.
func (s *SpecState) Advance(stage, next string) {
	if next == "" {
		s.Stage, s.StagesDone = stage, true
	} else {
		s.Stage = next
	}
	s.StageIterations = 0
}

// StartTasks begins the task count of the spec's content hash: no task
// accepted yet, and no review loop pending.
func (s *SpecState) StartTasks(hash string) {
	s.Tasks = Tasks{TaskKey: hash}
	s.ClearReview()
}

// AcceptTask counts an accepted claim on stage as the spec's next task.
func (s *SpecState) AcceptTask(stage string) {
	s.TaskIndex, s.TaskStage = s.TaskIndex+1, stage
}

// ClearReview ends the pending artifact-review loop.
func (s *SpecState) ClearReview() { s.ReviewLoop = ReviewLoop{} }

// AwaitFix starts (or continues) a review loop: a fix rotation is due for
// review iteration it, with the reviewer's findings.
func (s *SpecState) AwaitFix(it int, findings string) {
	s.ReviewLoop = ReviewLoop{ReviewIteration: it, ReviewFindings: findings}
}

// RecordVerifier sets the verifier guard's baseline to hashes, recorded
// for key; with no hashes nothing is guarded.
func (s *SpecState) RecordVerifier(key string, hashes map[string]string) {
	s.VerifierGuard = VerifierGuard{VerifierKey: key}
	if len(hashes) > 0 {
		s.VerifierHashes, s.VerifierSeen = hashes, maps.Clone(hashes)
	}
}

// Package status is ralph-ci's one status vocabulary: what became of a
// rotation. The agent's output, .ralph/status, state.json's last_status,
// the counter and the scheduler all use it, spelled as state.json stores
// it. It imports nothing of the project, so that the rules over statuses
// (counter, scheduler, state) need not reach the agent package.
package status

// Status is what became of a rotation: what the agent said about its task
// (DONE, CONTINUE, ROTATE, STUCK, or nothing), or what ralph-ci made of a
// claim it rejected.
type Status string

// The statuses.
const (
	// Never is the zero value: no rotation has run yet.
	Never Status = ""
	// None: the rotation ended without any status, which is not DONE
	// ("silent completion is not valid").
	None     Status = "NONE"
	Done     Status = "DONE"
	Continue Status = "CONTINUE"
	Rotate   Status = "ROTATE"
	Stuck    Status = "STUCK"
	// Rejected: the agent claimed completion and ralph-ci's layers or
	// verification rejected the claim. No agent reports it.
	Rejected Status = "REJECTED"
)

// TaskComplete is the word an agent may say for DONE.
const TaskComplete = "TASK_COMPLETE"

// Word reads one status word, case-sensitively: one of the four an agent
// reports, or TASK_COMPLETE (DONE, with task true). It is the only place
// that knows the words and the alias; ok is false for anything else.
func Word(s string) (st Status, task, ok bool) {
	switch v := Status(s); v {
	case Done, Continue, Rotate, Stuck:
		return v, false, true
	case TaskComplete:
		return Done, true, true
	}
	return None, false, false
}

// Done tells whether s counts as DONE for the counter: DONE, or its alias
// TASK_COMPLETE when a caller kept the word. Every other status (none,
// REJECTED, a lower-case "done", anything unknown) is not.
func (s Status) Done() bool {
	st, _, ok := Word(string(s))
	return ok && st == Done
}

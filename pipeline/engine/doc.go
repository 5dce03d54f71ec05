// Package engine is the batch executor of ralph-ci: it works through the
// discovered specs one rotation at a time, exactly as the multi-spec and
// verification-counter rules say, until every spec is verified 3/3 or a
// limit stops it.
//
// One rotation: pick a spec (scheduler), snapshot the tracked files
// (changes), record the in-flight rotation (state), run the stage's agent
// with the prompt on stdin (agent, prompt), read its status, judge its
// completion claim, compare the files, update every counter (counter), and
// save state.json atomically.
//
// Judging. The layers and their order (contradiction, signal, promise,
// verifier guard, unfinished work, the method and its tests, the artifact
// review) are layers.Judge's; the engine gathers the facts it reads
// (hashing the guarded files, the loop's diff, running the method and the
// reviewer, each only when Judge asks) and does what the verdict says to
// tell (the logs, the progress log). verdictOf reads the spec's state and
// returns a judgement; apply, in apply.go, is the one
// place a rotation changes the state (the spec's tasks, review loop and
// guard, its stage, then every counter through counter.Apply). A run killed at any point
// resumes without losing or double-counting a rotation: an interrupted
// rotation is run again against the baseline recorded before it started.
//
// Stages. A spec's rotations run its stages in order (coder, reviewer,
// tester, qa as enabled); a verified completion claim moves the spec to
// its next stage, and the last stage stays current for the verification
// passes that follow. A spec is verified when its counter is 3/3 and its
// last stage has passed: until then its counter is held at 2/3 at most.
// A stage that reaches its max iterations without a verified claim, or a
// spec that returns STUCK loop.stuck_attempts times in a row, is taken out
// of the loop and reported.
//
// A spec whose content changes (its hash differs from the one saved) is
// re-verified from scratch: counter 0/3 and first stage.
//
// Restart. state.json records the spec of the last rotation, so a new
// invocation (after a crash, or the next slice of --max-rotations)
// selects by the runtime rules exactly where the last one stopped: the
// spec it was focused on keeps the focus it would have kept, and the
// priority order is the same. Only specs that appear while a run is going
// interrupt the current spec; specs that were never processed when a run
// starts are tier 1 (new) but do not interrupt.
package engine

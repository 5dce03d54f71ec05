// Package layers holds the verification layers of ralph-ci as pure rules:
// every function here decides from its arguments alone, without files,
// processes or clocks, so each rule of spec/verification-layers.md has a
// table test beside it. The engine runs the agents, hashes the files and
// writes the logs; it asks this package what they mean.
//
// A completion claim (a DONE or TASK_COMPLETE status, or a promise; the
// status is the final status line or .ralph/status, [FinalStatus]) goes
// through the layers in order, and the first that fails rejects it:
//
//  1. contradiction ([FinalMessage], [Admissions], [Contradiction]): an
//     admission in the agent's own final message, not negated, quoted or
//     echoed, rejects it ("CONTRADICTION: claimed completion while
//     admitting failure");
//  2. signal ([Signal]): an explicit DONE and the promise are both needed,
//     silent completion is not valid;
//  3. promise ([Promise]): the <promise> tag must hold the stage's promise;
//  4. verifier guard ([GuardedFiles], [IsTestFile], [Rebase], [Adopt],
//     [Verdict.Guard], [Verdict.NewTests]): a claim made while the
//     scripts, criteria, config or tests differ from the stage's baseline,
//     or after a new test file that can stop the others, is rejected; the
//     loop's own changes never become the baseline;
//  5. unfinished ([Unfinished]): markers of work left undone that the
//     loop's diff added;
//  6. the stage's method (package verify; [MethodLayers] reports it), and
//     its test report held against the stage's baseline
//     ([Verdict.TestRun]);
//  7. artifact review ([ReviewDue], [DecideReview], [ReviewPrompt]): the
//     reviewer's REVIEW_PASS or REVIEW_FAIL, Path A (a fix rotation) or
//     Path B (suggestions), and the fix rotation that fails twice
//     ([Verdict.FixFailed]).
//
// [Judge] holds that order (its list [order]): the engine gathers the
// rotation's [Facts] and asks it; the facts that cost a process (the
// loop's diff, the stage's method, the reviewer) it asks for in
// [Verdict.Need], only when every layer before them passed. A new layer is
// a field of Facts and a rule in that list.
//
// Judging returns a [Verdict]; it never changes a spec's state. What the
// verdict asks of the state (the review loop's next step, in
// [Verdict.Loop]) is applied by the engine, in one place.
package layers

// Package layers holds the verification layers of ralph-ci as pure rules:
// every function here decides from its arguments alone, without files,
// processes or clocks, so each rule of spec/verification-layers.md has a
// table test beside it. The engine runs the agents, hashes the files and
// writes the logs; it asks this package what they mean.
//
// A completion claim (a DONE or TASK_COMPLETE status, or a promise) goes
// through the layers in order, and the first that fails rejects it:
//
//  1. contradiction ([Contradiction]): a contradiction phrase beside the
//     claim rejects it ("CONTRADICTION: claimed completion while admitting
//     failure");
//  2. signal ([Signal]): an explicit DONE and the promise are both needed,
//     silent completion is not valid;
//  3. promise ([Promise]): the stage's promise must appear in the output;
//  4. verifier guard ([GuardedFiles], [Verdict.Guard]): a claim made after
//     a rotation changed the files the verification runs is rejected;
//  5. the stage's method (package verify; [MethodLayers] reports it);
//  6. artifact review ([ReviewDue], [DecideReview], [ReviewPrompt]): the
//     reviewer's REVIEW_PASS or REVIEW_FAIL, Path A (a fix rotation) or
//     Path B (suggestions), and the fix rotation that fails twice
//     ([Verdict.FixFailed]).
//
// Judging returns a [Verdict]; it never changes a spec's state. What the
// verdict asks of the state (the review loop's next step, in
// [Verdict.Loop]) is applied by the engine, in one place.
package layers

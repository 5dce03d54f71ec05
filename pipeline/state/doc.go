// Package state owns ralph-ci's on-disk state in the .ralph directory at the
// root of a repository, and makes it survive a crash (kill -9, power loss) at
// any moment without losing or double-counting a rotation.
//
// Layout (see [Dir] for the path helpers):
//
//	.ralph/
//	  state.json              matrix of all specs (State, Load, Save)
//	  guardrails.md           shared notes between agents
//	  run.json                the one-instance lock (Acquire, Lock.Release)
//	  current.log             output of the running rotation
//	  status                  status word written by the agent
//	  handoffs/{key}.md       per spec
//	  history/{key}/NNN.log   per spec, one log per rotation of that spec
//
// # Crash safety
//
// Files are replaced with [WriteFileAtomic]: the data goes to a temporary
// file in the same directory (renameio), which is fsynced and renamed over
// the target, and then the directory is fsynced. A reader therefore always
// sees either the old or the new complete file. Leftover temporary files
// (named ".<name>" and a number) are never read; [Dir.CleanTemp] removes
// them.
//
// A rotation is made crash-safe by a write-ahead record in state.json
// itself, [State.Pending], so that each rotation costs one write:
//
//  1. before the agent of rotation N+1 starts, [Save] writes the result of
//     rotation N together with the record of N+1: the spec, the stage and
//     the change-detection baseline ("before");
//  2. the agent runs;
//  3. the result of N+1 is written by the next rotation's step 1, or by a
//     final Save (without a pending record) when the run ends.
//
// A run that finds a pending record re-runs that rotation against the
// recorded baseline (so edits made before the crash still count as changes
// of that rotation). A crash can thus neither lose a rotation nor count
// one twice; at worst a rotation that had finished in the last moments is
// run again. state.json is written with the file flushed before the rename
// but without flushing the directory (see writeFileOrdered): a power loss
// that undoes a rename brings back an older state and its pending
// rotation, with the same guarantee. It is written to a spare file
// (".state.json.spare") that is then exchanged with state.json, so a
// rotation creates and deletes no file for its state; Save holds an
// exclusive flock on the directory meanwhile and Load a shared one, so a
// reader never sees the spare half rewritten.
//
// # One instance per repository
//
// [Acquire] creates run.json exclusively (a complete temporary file is
// hard-linked to run.json, which fails if it exists) and recovers locks left
// by crashed processes; see [Acquire] for the details.
//
// # One spec's state
//
// [SpecState] groups its fields by the feature that owns them, as embedded
// structs that encoding/json flattens (state.json is one flat object per
// spec, unchanged): [Counting] (the counter and the last rotation),
// [Staging] (stage progression and exclusion), the checkpoint, [Tasks] and
// [ReviewLoop] (the artifact review), [VerifierGuard] (the tamper guard's
// baseline). Its stage moves — [SpecState.StartOver], [SpecState.SendBack],
// [SpecState.Advance], [SpecState.ClearReview] and the task and guard
// moves beside them — are methods in one file, spec.go. Statuses are
// [status.Status] values (package pipeline/status), spelled as state.json stores them.
package state

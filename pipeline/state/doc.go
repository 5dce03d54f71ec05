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
//	  rotation.json           the in-flight rotation record (BeginRotation)
//	  status                  status word written by the agent
//	  handoffs/{key}.md       per spec
//	  history/{key}/NNN.log   per spec, one log per rotation of that spec
//
// # Crash safety
//
// Every file is replaced with [WriteFileAtomic]: the data goes to a temporary
// file in the same directory, which is fsynced and renamed over the target,
// and then the directory is fsynced. A reader therefore always sees either
// the old or the new complete file. Leftover temporary files (named
// ".<name>.tmp-*") are never read; [Dir.CleanTemp] removes them.
//
// A rotation is made crash-safe by a write-ahead record, rotation.json:
//
//  1. [BeginRotation] records iteration N+1, the spec and the change
//     detection baseline ("before") before the agent starts;
//  2. the agent runs;
//  3. [Save] writes state.json with iteration N+1;
//  4. [EndRotation] removes rotation.json.
//
// On start-up [PendingRotation] compares the record with state.json: if the
// record is one ahead the rotation was interrupted before step 3 and must be
// re-run against the recorded baseline (so edits made before the crash still
// count as changes of that rotation); if it is not ahead, step 3 had completed
// and the record is simply removed. A crash can thus neither lose a rotation
// nor count one twice.
//
// # One instance per repository
//
// [Acquire] creates run.json exclusively (a complete temporary file is
// hard-linked to run.json, which fails if it exists) and recovers locks left
// by crashed processes; see [Acquire] for the details.
package state

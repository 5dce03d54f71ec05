// Package counter implements ralph's per-spec verification counter, as
// specified by verification-counter.md.
//
// Each spec carries a counter from 0/3 to 3/3 that tracks how many times in
// a row an agent has reported DONE without changing any tracked file:
//
//	0/3  the agent is working (not DONE yet)
//	1/3  the agent reported DONE (files may have been changed)
//	2/3  verified and DONE again (no files changed)
//	3/3  verified twice without changes: the spec is complete
//
// After every rotation the active spec's counter moves by [Next]:
//
//	status    tracked files changed   new counter
//	DONE      no                      current+1 (never above 3/3)
//	DONE      yes                     1/3
//	non-DONE  yes                     0/3
//	non-DONE  no                      unchanged
//
// Non-DONE means CONTINUE, ROTATE, STUCK, no status at all, REJECTED, or
// any status this package does not know (see [IsDone]; statuses are
// status.Status values).
//
// Multi-spec change propagation: when the active spec changed tracked files,
// every other spec goes through [Propagate], which only downgrades 3/3 to
// 2/3; 0/3, 1/3 and 2/3 stay as they are. [Apply] performs a whole rotation
// (the active spec's [Next] plus the propagation to every other spec) on a
// map of counters.
//
// Counters are plain ints so the caller can persist them in its state file
// (.ralph/state.json, field done_count) and resume after a restart: the
// functions here keep no state of their own. Because a state file may be
// edited by hand, every function first clamps its input into 0..[Max] (see
// [Clamp]); no function ever returns a value outside that range.
package counter

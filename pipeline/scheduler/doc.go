// Package scheduler picks the spec that the next rotation works on, as
// specified by the scheduling parts of multi-spec-mode.md.
//
// The caller keeps the matrix of specs — one [Entry] per spec found by the
// latest scan of the spec dirs, with the saved state already updated for the
// rotation that just ended — and asks [Next] which spec to run next. The
// package is pure: it keeps no state and never modifies the entries.
//
// # Priority
//
// [Tier] sorts every spec into one of four tiers; [Order] sorts by tier:
//
//  1. new specs (no saved state) — highest priority
//  2. modified specs (content hash changed)
//  3. non-DONE specs (CONTINUE, ROTATE, STUCK, no or unknown status) and
//     specs whose last rotation changed tracked files
//  4. DONE specs that did not change tracked files — lower verification
//     count first (1/3 before 2/3)
//
// Ties are broken alphabetically by path ([ComparePaths]), and entries that
// still tie (duplicate paths) keep their input order.
//
// # Paths and PROMPT.md
//
// Paths are repo-relative and slash-separated, compared byte by byte.
// PROMPT.md is treated specially here (the caller passes no sort key): the
// exact path "PROMPT.md" sorts as 000-prompt.spec.md would, and ahead of
// every other path, so it is first within its tier even against names such
// as ".ralph/x.spec.md" or "000-a.spec.md" that a plain "000-prompt.spec.md"
// key would put before it. The match is exact and case-sensitive: a
// "docs/PROMPT.md" or "prompt.md" is an ordinary path.
//
// # Focused execution
//
// A spec needs work ([NeedsWork]) while its counter is below 3/3, and also
// when it is new or modified, whatever its counter: a modified spec at 3/3
// was verified against a content that no longer exists, so it must be
// verified again. Excluded specs never run. [Next] then follows these rules:
//
//   - on start or restart (no current spec), and when the current spec was
//     removed or excluded: the first spec of [Order] that needs work;
//   - after any outcome other than DONE without file changes: stay on the
//     current spec while it needs work, unless a new spec exists — new specs
//     interrupt; modified specs do not, they only win at the next switch;
//   - after DONE without file changes: the highest-priority other spec that
//     needs work, and the current spec again only when it is the only one;
//   - when no spec that is not excluded needs work, the loop is complete
//     (no entry is [Runnable]) and Next reports ok=false.
//
// Counters themselves are moved by package counter; the caller applies
// counter.Apply (and resets New, Modified, LastStatus and ModifiedFiles of
// the spec it just ran) before calling Next again.
package scheduler

package gitstate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Descends tells whether commit to descends from commit from (or is it):
// the agent's own commits move HEAD forward, which is no leftover.
type Descends func(from, to string) bool

// Judge names what the rotation left in git between before (the state
// ralph-ci left the checkout in) and after (what the agent left), one
// reason each; none when ralph-ci may commit. Commits the agent made on
// the branch (descending from where it was) are the agent's work, not a
// leftover; anything else is: an operation in progress, a lock on the
// index, HEAD detached or on another branch, the branch moved elsewhere
// (a reset, a rebase, an amend), a ref created, moved or deleted.
func Judge(before, after Snapshot, descends Descends) []string {
	var why []string
	for _, o := range after.Ops {
		why = append(why, o+" in progress")
	}
	if after.Lock {
		why = append(why, "a lock left on the index (.git/index.lock)")
	}
	switch {
	case before.Symbolic && !after.Symbolic:
		why = append(why, fmt.Sprintf("HEAD detached at %s (the loop works on %s)", short(after.Head), branch(before.Head)))
	case before.Symbolic && after.Head != before.Head:
		why = append(why, fmt.Sprintf("HEAD switched to %s (the loop works on %s)", branch(after.Head), branch(before.Head)))
	case !before.Symbolic && after.Symbolic:
		why = append(why, fmt.Sprintf("HEAD put on %s (the loop works on the detached commit %s)", branch(after.Head), short(before.Head)))
	}
	if moved := movedFrom(before, after, descends); moved != "" {
		why = append(why, moved)
	}
	for _, r := range changedRefs(before, after) {
		was, had := before.Refs[r]
		now, has := after.Refs[r]
		switch {
		case !had:
			why = append(why, fmt.Sprintf("a new %s", refName(r)))
		case !has:
			why = append(why, fmt.Sprintf("%s deleted", refName(r)))
		default:
			why = append(why, fmt.Sprintf("%s moved from %s to %s", refName(r), short(was), short(now)))
		}
	}
	return why
}

// movedFrom says how HEAD's commit moved when it no longer descends from
// where it was (on the loop's branch, or detached), "" otherwise.
func movedFrom(before, after Snapshot, descends Descends) string {
	if before.Symbolic != after.Symbolic || before.Head != after.Head && before.Symbolic {
		return "" // switched or detached: said above
	}
	was, now := before.Tip(), after.Tip()
	switch {
	case was == now:
		return ""
	case now == "":
		return fmt.Sprintf("%s deleted", branch(before.Head))
	case was == "" || descends(was, now):
		return "" // the agent's own commits
	}
	where := "HEAD"
	if before.Symbolic {
		where = branch(before.Head)
	}
	return fmt.Sprintf("%s moved to %s, which does not descend from %s (a reset, a rebase or an amend)", where, short(now), short(was))
}

// changedRefs lists, sorted, the refs created, moved or deleted, but the
// branch HEAD was on (judged by movedFrom).
func changedRefs(before, after Snapshot) []string {
	set := map[string]bool{}
	for _, m := range []map[string]string{before.Refs, after.Refs} {
		for r := range m {
			set[r] = true
		}
	}
	var out []string
	for _, r := range slices.Sorted(maps.Keys(set)) {
		if before.Symbolic && r == before.Head {
			continue
		}
		was, had := before.Refs[r]
		now, has := after.Refs[r]
		if had != has || was != now {
			out = append(out, r)
		}
	}
	return out
}

// Reason is the rotation's rejection reason for what Judge found.
func Reason(why []string) string {
	return "git state left by the rotation: " + strings.Join(why, "; ") +
		"; ralph-ci commits nothing through it and restored the checkout (leave merges, rebases, branches, HEAD and refs to ralph-ci, and commit on the branch only)"
}

func refName(r string) string {
	switch {
	case strings.HasPrefix(r, "refs/tags/"):
		return "tag " + strings.TrimPrefix(r, "refs/tags/")
	case strings.HasPrefix(r, "refs/heads/"):
		return "branch " + strings.TrimPrefix(r, "refs/heads/")
	}
	return "ref " + r
}

func branch(ref string) string {
	if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		return "branch " + b
	}
	return ref
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

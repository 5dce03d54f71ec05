package gitstate

import (
	"strings"
	"testing"
)

const (
	a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	c = "cccccccccccccccccccccccccccccccccccccccc"
)

// descends: b descends from a; c from nothing.
func descends(from, to string) bool { return from == to || from == a && to == b }

func onBranch(tip string, more ...string) Snapshot {
	s := Snapshot{Head: "refs/heads/main", Symbolic: true, Refs: map[string]string{"refs/heads/main": tip, "refs/remotes/origin/main": a}}
	for i := 0; i+1 < len(more); i += 2 {
		s.Refs[more[i]] = more[i+1]
	}
	return s
}

// Judge names each git state a rotation left, and lets the agent's own
// commits on the branch pass.
func TestJudge(t *testing.T) {
	before := onBranch(a)
	detached := Snapshot{Head: a, Refs: before.Refs}
	for _, tc := range []struct {
		name          string
		before, after Snapshot
		want          string // the reasons joined by "|"
	}{
		{"nothing happened", before, onBranch(a), ""},
		{"the agent committed on the branch", before, onBranch(b), ""},
		{"a merge in progress", before, func() Snapshot { s := onBranch(b); s.Ops = []string{"a merge"}; return s }(), "a merge in progress"},
		{"a lock", before, func() Snapshot { s := onBranch(a); s.Lock = true; return s }(), "a lock left on the index (.git/index.lock)"},
		{"reset elsewhere", before, onBranch(c), "branch main moved to cccccccccccc, which does not descend from aaaaaaaaaaaa (a reset, a rebase or an amend)"},
		{"branch deleted", before, Snapshot{Head: "refs/heads/main", Symbolic: true, Refs: map[string]string{"refs/remotes/origin/main": a}}, "branch main deleted"},
		{"detached", before, Snapshot{Head: b, Refs: before.Refs}, "HEAD detached at bbbbbbbbbbbb (the loop works on branch main)"},
		{"switched", before, Snapshot{Head: "refs/heads/x", Symbolic: true, Refs: onBranch(a, "refs/heads/x", c).Refs}, "HEAD switched to branch x (the loop works on branch main)|a new branch x"},
		{"a new tag, a moved and a deleted ref", onBranch(a, "refs/tags/old", a), onBranch(a, "refs/tags/v1", b, "refs/remotes/origin/main", c), "ref refs/remotes/origin/main moved from aaaaaaaaaaaa to cccccccccccc|tag old deleted|a new tag v1"},
		{"detached, committing on", detached, Snapshot{Head: b, Refs: before.Refs}, ""},
		{"detached, moved", detached, Snapshot{Head: c, Refs: before.Refs}, "HEAD moved to cccccccccccc, which does not descend from aaaaaaaaaaaa (a reset, a rebase or an amend)"},
		{"detached, put on a branch", detached, before, "HEAD put on branch main (the loop works on the detached commit aaaaaaaaaaaa)"},
	} {
		if got := strings.Join(Judge(tc.before, tc.after, descends), "|"); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

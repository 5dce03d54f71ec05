// Package gitstate reads, as data, the git states an agent can leave in a
// checkout's .git (a merge, rebase, cherry-pick, revert, am or bisect in
// progress, a lock on the index, HEAD detached, moved or on another
// branch, refs it created, moved or deleted), judges them against what
// the checkout held before the rotation, and puts the .git back.
//
// ralph-ci never commits through such a state: with --deliver commit it
// would conclude the agent's conflicted merge as a rotation commit, or
// commit conflict markers in the middle of its rebase. Read takes the
// files git itself keeps (HEAD, the refs, packed-refs, the markers of an
// operation in progress), never the agent's configuration, bounded and
// without following what the agent may have made a FIFO (internal/git's
// ref reader); Judge is a pure rule; Restore writes the files back
// (internal/git's ref writer) and chooses what to put back.
package gitstate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

// Snapshot is what a checkout's .git says of its state.
type Snapshot struct {
	// Head is HEAD: the ref it names ("refs/heads/x") when Symbolic, else
	// the commit id it holds.
	Head     string
	Symbolic bool
	// Ops are the operations in progress (see ops), in their order there.
	Ops []string
	// Lock tells that index.lock exists.
	Lock bool
	// Refs are every ref under refs/ and its value (loose refs win over
	// packed-refs); a symbolic ref's value is "ref: <target>".
	Refs map[string]string
}

// Tip is the commit HEAD is at ("" on an unborn branch).
func (s Snapshot) Tip() string {
	if s.Symbolic {
		return s.Refs[s.Head]
	}
	return s.Head
}

// op is an operation git keeps in progress by a file (or folder) in the
// git directory.
type op struct{ name, file string }

// ops are the operations in progress git marks in the git directory; the
// files are what Restore removes.
var ops = []op{
	{"a merge", "MERGE_HEAD"},
	{"a rebase", "rebase-merge"},
	{"a rebase or git am", "rebase-apply"},
	{"a cherry-pick", "CHERRY_PICK_HEAD"},
	{"a revert", "REVERT_HEAD"},
	{"a cherry-pick or revert of several commits", "sequencer"},
	{"a bisect", "BISECT_START"},
	{"a bisect", "BISECT_LOG"},
}

// opLeftovers are the other files an operation leaves (removed with it).
var opLeftovers = []string{"MERGE_MSG", "MERGE_MODE", "MERGE_RR", "AUTO_MERGE", "BISECT_TERMS", "BISECT_NAMES", "BISECT_EXPECTED_REV", "BISECT_ANCESTORS_OK", "BISECT_HEAD", "BISECT_FIRST_PARENT"}

// Read reads the state of a checkout: gitDir holds its HEAD, index and
// operations in progress, commonDir its refs (gitDir, but for a linked
// worktree; see internal/git.Find).
func Read(gitDir, commonDir string) (Snapshot, error) {
	var s Snapshot
	var err error
	if s.Head, s.Symbolic, err = git.ReadHead(gitDir); err != nil {
		return s, fmt.Errorf("read the checkout's HEAD: %w", err)
	}
	for _, o := range ops {
		if _, err := os.Lstat(filepath.Join(gitDir, o.file)); err == nil && !slices.Contains(s.Ops, o.name) {
			s.Ops = append(s.Ops, o.name)
		}
	}
	if _, err := os.Lstat(filepath.Join(gitDir, "index.lock")); err == nil {
		s.Lock = true
	}
	if s.Refs, err = git.Refs(commonDir); err != nil {
		return s, fmt.Errorf("read the checkout's refs: %w", err)
	}
	return s, nil
}

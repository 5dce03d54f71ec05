package gitstate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

// Restore puts the checkout's git directories (see Read) back where after (what the agent
// left) differs from before, as files, with no git process: it removes
// the markers of operations in progress and the index lock, points HEAD
// back (and the loop's branch, when it no longer descends from where it
// was: the agent's own commits on it stay), and sets every other ref back
// (deleting those the agent created). No agent process is alive then (the
// shepherd stopped them), so nothing races it. resetTree tells that the
// index and work tree no longer belong to HEAD (an operation was in
// progress, HEAD or its branch moved): the caller resets them to HEAD.
func Restore(gitDir, commonDir string, before, after Snapshot, descends Descends) (resetTree bool, err error) {
	var errs []error
	for _, o := range ops {
		if _, err := os.Lstat(filepath.Join(gitDir, o.file)); err == nil {
			resetTree = true
			errs = append(errs, os.RemoveAll(filepath.Join(gitDir, o.file)))
		}
	}
	if resetTree {
		for _, f := range opLeftovers {
			if err := os.Remove(filepath.Join(gitDir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if after.Lock {
		if err := os.Remove(filepath.Join(gitDir, "index.lock")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if before.Head != after.Head || before.Symbolic != after.Symbolic {
		resetTree = true
		errs = append(errs, git.WriteHead(gitDir, before.Head, before.Symbolic))
	}
	if before.Symbolic && movedFrom(before, Snapshot{Head: before.Head, Symbolic: true, Refs: after.Refs}, descends) != "" {
		resetTree = true
		errs = append(errs, git.SetRef(commonDir, before.Head, before.Tip()))
	}
	for _, r := range changedRefs(before, after) {
		errs = append(errs, git.SetRef(commonDir, r, before.Refs[r]))
	}
	if err := errors.Join(errs...); err != nil {
		return resetTree, fmt.Errorf("restore the checkout's .git: %w", err)
	}
	return resetTree, nil
}

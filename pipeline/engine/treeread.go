package engine

import (
	"errors"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// Reads of the work tree's files (specs, the loop's new files, the
// scripts the verification calls, the guard's files). The agent, which
// is lent the tree, can replace any of them by a link; ralph-ci, which
// may be root, follows one only while it stays inside the tree
// (safefile.Tree): a link that leads out is refused, and where the read
// is a scan, the file is skipped and the refusal logged once a path.

// readTree reads rel, slash-separated and relative to the work tree,
// through no link that leads out of it.
func (e *engine) readTree(rel string, limit int64) ([]byte, error) {
	return safefile.ReadIn(e.root, filepath.Join(e.root, filepath.FromSlash(rel)), limit)
}

// scanTree is readTree for a scan that goes on without the file: a
// link out of the tree is logged (once a path) and reported as an
// error, which the scan takes as an unreadable file.
func (e *engine) scanTree(rel string, limit int64) ([]byte, error) {
	b, err := e.readTree(rel, limit)
	e.noteRefused(rel, err)
	return b, err
}

// noteRefused logs, once a run and path, that the read of rel was
// refused because a link leads out of the tree.
func (e *engine) noteRefused(rel string, err error) {
	if !errors.Is(err, safefile.ErrLeavesTree) {
		return
	}
	if _, seen := e.refused.LoadOrStore(rel, true); seen {
		return
	}
	e.log.Warn().Str("file", rel).Err(err).Msg("a file of the work tree is a link that leads out of it: ralph-ci skipped it (the agent may have put it there)")
}

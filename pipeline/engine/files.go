package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/pipeline/changes"
)

// fileList is listFiles' answer for one snapshot of the tracked files.
type fileList struct {
	key   [sha256.Size]byte
	files []string
}

// files is listFiles(e.root): the latest snapshot's list when its git
// ls-files made one (changes.Snapshot.Listed), else computed again only
// when the latest snapshot of the change detection (e.latest) differs
// from the one of the last answer: which files git tracks or would track follows from
// HEAD and what git status reports, so while those stay the same (a
// rotation that changed nothing, seen by the watcher without any git
// process) no git ls-files runs. Without a snapshot it always lists.
func (e *engine) files() []string {
	if e.latest == nil {
		return listFiles(e.root)
	}
	if files, ok := e.latest.Listed(); ok { // the snapshot's git ls-files listed them
		return files
	}
	k := snapshotKey(*e.latest)
	if e.listed.files == nil || e.listed.key != k {
		e.listed = fileList{key: k, files: listFiles(e.root)}
	}
	return e.listed.files
}

// snapshotKey digests a snapshot: its kind, HEAD, and every path with its
// content id.
func snapshotKey(s changes.Snapshot) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(s.Kind + "\x00" + s.Head + "\x00"))
	for _, f := range slices.Sorted(maps.Keys(s.Files)) {
		h.Write([]byte(f + "\x00" + s.Files[f] + "\x00"))
	}
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// listFiles lists the repository's files, slash-separated and relative to
// root: those git tracks or would track (not ignored), or, outside a git
// work tree, every file but .git, .ralph, node_modules and vendor.
func listFiles(root string) []string {
	if out, err := igit.Run(context.Background(), root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"); err == nil {
		var files []string
		for _, f := range bytes.Split(out, []byte{0}) {
			if len(f) > 0 && !bytes.HasPrefix(f, []byte(".ralph/")) {
				files = append(files, string(f))
			}
		}
		return files
	}
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".ralph", "node_modules", "vendor":
				return filepath.SkipDir
			}
			return nil
		}
		if rel, err := filepath.Rel(root, p); err == nil && d.Type().IsRegular() {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	return files
}

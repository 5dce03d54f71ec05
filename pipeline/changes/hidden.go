package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// Paths git status does not report even when their content changes, which
// an agent could use to change files unseen:
//
//   - tracked files marked assume-unchanged or skip-worktree in the index
//     (git update-index): status skips their worktree content;
//   - untracked files ignored only by rules outside the tree, in
//     .git/info/exclude, which no commit shows (an agent may write it).
//
// Take hashes the first kind always, and counts the second kind as
// untracked files: only the .gitignore files of the tree decide what is
// ignored.

// addHidden adds both kinds of paths under root to st.hash. The index
// (read as data: git.ReadIndex, else git ls-files --stage -v) also tells st
// the files git tracks (st.listed, to which takeGit adds the untracked
// files git status and expandDirs list) and the submodules of the index
// (st.links).
func addHidden(ctx context.Context, root string, r repo, st *status) error {
	listed := make(map[string]bool, len(st.hash))
	for _, p := range st.hash {
		listed[p] = true
	}
	add := func(p string) {
		if p, ok := st.rel(p, r.prefix); ok && !listed[p] && !strings.HasSuffix(p, "/") {
			listed[p] = true
			st.hash = append(st.hash, p)
		}
	}
	entries, err := readIndex(ctx, root, r)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	st.listed = []string{}
	for _, e := range entries {
		if p, ok := st.rel(e.Path, r.prefix); ok && !seen[p] {
			seen[p] = true
			st.listed = append(st.listed, p)
		}
		// git status skips the work tree content of an assume-unchanged
		// or skip-worktree entry.
		if e.AssumeUnchanged || e.SkipWorktree {
			add(e.Path)
		}
		if e.Mode == gitlinkMode && e.Stage == 0 {
			st.addGitlink(e.Path, e.ID, r.prefix)
			if rel, ok := st.rel(e.Path, r.prefix); ok {
				st.links = append(st.links, rel)
			}
		}
	}
	if !hasPatterns(r.infoExclude) {
		return nil
	}
	out, err := runGit(ctx, root, pathspec(r, "ls-files", "-z", "--others", "--exclude-per-directory=.gitignore", "--full-name")...)
	if err != nil {
		return fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			add(p)
		}
	}
	return nil
}

// indexReads counts the indexes read as data (git.ReadIndex), so that
// tests can tell which way readIndex took.
var indexReads atomic.Int64

// readIndex returns the index's entries under the root: read as data, or
// from git ls-files -z -v --stage when git.ReadIndex does not read it (a
// split or sparse index).
func readIndex(ctx context.Context, root string, r repo) ([]git.IndexEntry, error) {
	if n, err := idLen(r.format); err == nil {
		if entries, err := git.ReadIndex(root, n); err == nil {
			indexReads.Add(1)
			return entries, nil
		}
	}
	out, err := runGit(ctx, root, pathspec(r, "ls-files", "-z", "-v", "--stage", "--full-name")...)
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	var entries []git.IndexEntry
	for _, entry := range strings.Split(string(out), "\x00") {
		// tag SP mode SP id SP stage TAB path
		meta, p, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || len(f[0]) != 1 {
			continue
		}
		// -v tags an assume-unchanged entry in lower case and a
		// skip-worktree one "S" (or "s" for both).
		tag := f[0][0]
		entries = append(entries, git.IndexEntry{Path: p, Mode: f[1], ID: f[2], Stage: int(f[3][0] - '0'),
			AssumeUnchanged: tag >= 'a' && tag <= 'z', SkipWorktree: tag == 'S' || tag == 's'})
	}
	return entries, nil
}

// pathspec limits a git command to the root when it is below the top.
func pathspec(r repo, args ...string) []string {
	if r.prefix != "" {
		args = append(args, "--", ".", ":(exclude)"+ralphDir)
	}
	return args
}

// hasPatterns tells whether the exclude file at path (info/exclude of a
// git folder) holds any rule; one that exists but cannot be read, or is
// a link out of its git folder, is assumed to.
func hasPatterns(path string) bool {
	data, err := safefile.ReadIn(filepath.Dir(filepath.Dir(path)), path, safefile.ConfigLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	} else if err != nil {
		return true
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) > 0 && line[0] != '#' {
			return true
		}
	}
	return false
}

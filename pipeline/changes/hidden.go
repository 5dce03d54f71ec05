package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

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

// addHidden adds both kinds of paths under root to st.hash. The same git
// ls-files lists the untracked files git does not ignore, so that st also
// learns the files git tracks or would track (st.listed) and the
// submodules of the index (st.links).
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
	out, err := runGit(ctx, root, pathspec(r, "ls-files", "-z", "-v", "--stage", "--others", "--exclude-standard", "--full-name")...)
	if err != nil {
		return fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	seen := map[string]bool{}
	list := func(p string) {
		if p, ok := st.rel(p, r.prefix); ok && !seen[p] {
			seen[p] = true
			st.listed = append(st.listed, p)
		}
	}
	st.listed = []string{}
	for _, entry := range strings.Split(string(out), "\x00") {
		if p, ok := strings.CutPrefix(entry, "? "); ok { // untracked, not ignored
			list(p)
			continue
		}
		// tag SP mode SP id SP stage TAB path
		meta, p, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || len(f[0]) != 1 {
			continue
		}
		list(p)
		// -v tags an assume-unchanged entry in lower case and a
		// skip-worktree one "S" (or "s" for both).
		if tag := f[0][0]; tag == 'S' || (tag >= 'a' && tag <= 'z') {
			add(p)
		}
		if f[1] == gitlinkMode && f[3] == "0" {
			st.addGitlink(p, f[2], r.prefix)
			if rel, ok := st.rel(p, r.prefix); ok {
				st.links = append(st.links, rel)
			}
		}
	}
	if !hasPatterns(r.infoExclude) {
		return nil
	}
	out, err = runGit(ctx, root, pathspec(r, "ls-files", "-z", "--others", "--exclude-per-directory=.gitignore", "--full-name")...)
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

package changes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// Past this many collapsed untracked directories, takeGit lists every
// untracked file instead of naming the directories on the command line.
const maxDirArgs = 1000

// statusArgs names the candidate paths: everything that may differ from HEAD,
// except submodules with only dirty files, which addHidden finds (git status
// would run git inside them, under their own configuration: the agent's).
//
// At the top of a work tree there is deliberately no pathspec to leave .ralph
// out: a pathspec turns off git's untracked cache. .ralph costs git little
// anyway (nothing when it is ignored; in normal mode an untracked .ralph is one
// collapsed entry) and its entries are dropped while parsing. Below the top,
// the pathspec keeps git from scanning the rest of the work tree, which is
// worth more than the cache.
func statusArgs(r repo) []string {
	untracked := "--untracked-files=normal"
	if r.allUntracked {
		untracked = "--untracked-files=all"
	}
	args := []string{"status", "--porcelain=v2", "-z", "--branch", "--no-ahead-behind",
		untracked, "--no-renames", "--ignore-submodules=dirty"}
	if r.prefix != "" {
		args = append(args, "--", ".", ":(exclude)"+ralphDir)
	}
	return args
}

// takeGit records the HEAD commit and the content of every path git status
// reports under root.
func takeGit(ctx context.Context, root string, r repo) (Snapshot, error) {
	out, err := runGit(ctx, root, statusArgs(r)...)
	if err != nil {
		return Snapshot{}, fmt.Errorf("git status in %s: %w", root, err)
	}
	st, err := parseStatus(out, r.prefix)
	if err != nil {
		return Snapshot{}, fmt.Errorf("git status in %s: %w", root, err)
	}
	if err := addHidden(ctx, root, r, &st); err != nil {
		return Snapshot{}, err
	}
	nested := st.nested
	if len(st.dirs) > 0 {
		if r.allUntracked { // with all files listed, a directory is a repository
			nested = append(nested, st.dirs...)
			for _, d := range st.dirs {
				st.others = append(st.others, d+"/")
			}
		} else if err := expandDirs(ctx, root, r.prefix, &st); err != nil {
			return Snapshot{}, err
		}
	}
	files := st.files
	hashed, err := hashFiles(ctx, root, r.format, st.hash)
	if err != nil {
		return Snapshot{}, err
	}
	for p, id := range hashed {
		files[p] = id
	}
	for _, p := range append(nested, st.repos...) {
		id, err := nestedID(ctx, root, r.format, p, files[p])
		if err != nil {
			return Snapshot{}, err
		}
		if index, ok := st.clean[p]; ok && id == index {
			delete(files, p) // as clean as status would have said
			continue
		}
		files[p] = id
	}
	st.listed = append(st.listed, st.others...)
	sort.Strings(st.listed)
	return Snapshot{Kind: KindGit, Head: st.head, Files: files, index: &index{listed: st.listed, links: st.links,
		staged: st.staged, stagedKnown: !st.unstaged}}, nil
}

// expandDirs lists, in one git call, the untracked files (and nested
// repositories) inside the untracked directories git status reported as
// single entries, and adds them to st.hash (and st.repos).
func expandDirs(ctx context.Context, root, prefix string, st *status) error {
	args := []string{"--literal-pathspecs", "ls-files", "-z", "--others", "--exclude-standard", "--full-name"}
	if len(st.dirs) <= maxDirArgs {
		args = append(args, "--")
		for _, d := range st.dirs {
			args = append(args, d+"/")
		}
	}
	out, err := runGit(ctx, root, args...)
	if err != nil {
		return fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	for _, p := range strings.Split(string(out), "\x00") {
		p, ok := st.rel(p, prefix)
		if !ok {
			continue
		}
		if dir, isDir := strings.CutSuffix(p, "/"); isDir {
			st.repos = append(st.repos, dir)
		} else {
			st.hash = append(st.hash, p)
		}
		st.others = append(st.others, p)
	}
	return nil
}

// nestedID returns the content id of the submodule or nested repository at
// path p under root: its HEAD commit, followed by a digest of its dirty files
// when it has any. index is the commit the superproject records, if any.
func nestedID(ctx context.Context, root, format, p, index string) (string, error) {
	dir := filepath.Join(root, filepath.FromSlash(p))
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		n, err := idLen(format) // gone, or replaced by a file or link
		if err != nil {
			return "", err
		}
		tree, err := safefile.OpenTree(root)
		if err != nil {
			return "", err
		}
		defer tree.Close()
		return hashPath(tree, n, dir)
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err != nil {
		return index, nil // not checked out: git reports the recorded commit
	}
	sub, err := Take(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("nested repository %s: %w", p, err)
	}
	id := sub.Head
	if len(sub.Files) > 0 {
		id += "+" + digest(sub.Files)
	}
	return id, nil
}

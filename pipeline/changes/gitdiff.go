package changes

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Limits past which lsTree lists the whole tree instead of naming the paths on
// the command line, to stay well under any platform's command-line limit.
const (
	maxPathArgs     = 1000
	maxPathArgBytes = 32 << 10
)

// side is the content of one path in the two snapshots being compared.
type side struct {
	before, after       string
	hasBefore, hasAfter bool
}

// changedGit compares two git snapshots. A path a snapshot lists has the
// content recorded there; any other path has its blob at that snapshot's HEAD.
func changedGit(ctx context.Context, root string, before, after Snapshot) ([]string, error) {
	paths := map[string]*side{}
	get := func(p string) *side {
		s := paths[p]
		if s == nil {
			s = &side{}
			paths[p] = s
		}
		return s
	}
	for p, id := range before.Files {
		s := get(p)
		s.before, s.hasBefore = id, true
	}
	for p, id := range after.Files {
		s := get(p)
		s.after, s.hasAfter = id, true
	}
	if before.Head != after.Head {
		oldTree, newTree := before.Head, after.Head
		if oldTree == "" {
			oldTree = emptyTree(newTree)
		}
		if newTree == "" {
			newTree = emptyTree(oldTree)
		}
		diff, err := diffTree(ctx, root, oldTree, newTree)
		if err != nil {
			return nil, err
		}
		for p, ids := range diff {
			s := get(p)
			if !s.hasBefore {
				s.before, s.hasBefore = ids[0], true
			}
			if !s.hasAfter {
				s.after, s.hasAfter = ids[1], true
			}
		}
	}
	// Whatever is still unknown is a path that did not change between the two
	// HEADs, so it has the same blob at both.
	head := after.Head
	if head == "" {
		head = before.Head
	}
	var need []string
	for p, s := range paths {
		if !s.hasBefore || !s.hasAfter {
			need = append(need, p)
		}
	}
	var blobs map[string]string
	if len(need) > 0 && head != "" {
		var err error
		if blobs, err = lsTree(ctx, root, head, need); err != nil {
			return nil, err
		}
	}
	var changed []string
	for p, s := range paths {
		if !s.hasBefore {
			s.before = blobs[p]
		}
		if !s.hasAfter {
			s.after = blobs[p]
		}
		if s.before != s.after {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	return changed, nil
}

// diffTree returns, for every path under root whose entry differs between two
// trees, its ids in the old and the new tree ("" where it has none).
func diffTree(ctx context.Context, root, oldTree, newTree string) (map[string][2]string, error) {
	out, err := runGit(ctx, root, "diff-tree", "-r", "-z", "--no-renames",
		"--ignore-submodules=none", "--relative", oldTree, newTree,
		"--", ".", ":(exclude)"+ralphDir)
	if err != nil {
		return nil, fmt.Errorf("git diff-tree in %s: %w", root, err)
	}
	diff := map[string][2]string{}
	fields := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		// :oldmode newmode oldid newid status NUL path
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) != 5 || meta[4] == "" || meta[4][0] == 'R' || meta[4][0] == 'C' {
			return nil, fmt.Errorf("git diff-tree in %s: unexpected entry %q", root, fields[i])
		}
		if p := fields[i+1]; !isRalph(p) {
			diff[p] = [2]string{noZero(meta[2]), noZero(meta[3])}
		}
	}
	return diff, nil
}

// noZero maps git's all-zero "no object" id to "".
func noZero(id string) string {
	if isZeroID(id) {
		return ""
	}
	return id
}

// lsTree returns the ids of paths in commit (paths relative to root), in one
// git call; paths not in the commit are left out.
func lsTree(ctx context.Context, root, commit string, paths []string) (map[string]string, error) {
	want := make(map[string]bool, len(paths))
	size := 0
	for _, p := range paths {
		want[p] = true
		size += len(p) + 1
	}
	args := []string{"--literal-pathspecs", "ls-tree", "-r", "-z", commit}
	if len(paths) <= maxPathArgs && size <= maxPathArgBytes {
		args = append(append(args, "--"), paths...)
	}
	return readTree(ctx, root, args, func(p string) bool { return want[p] })
}

// expandGit returns every file of a git snapshot with its content id: the
// files of its HEAD commit, updated with the ones the snapshot lists.
func expandGit(ctx context.Context, root string, s Snapshot) (map[string]string, error) {
	files := map[string]string{}
	if s.Head != "" {
		var err error
		files, err = readTree(ctx, root, []string{"ls-tree", "-r", "-z", s.Head},
			func(p string) bool { return !isRalph(p) })
		if err != nil {
			return nil, err
		}
	}
	for p, id := range s.Files {
		if id == "" {
			delete(files, p)
		} else {
			files[p] = id
		}
	}
	return files, nil
}

// readTree runs a git ls-tree -z command and returns the id of each listed
// path that keep accepts.
func readTree(ctx context.Context, root string, args []string, keep func(string) bool) (map[string]string, error) {
	out, err := runGit(ctx, root, args...)
	if err != nil {
		return nil, fmt.Errorf("git ls-tree in %s: %w", root, err)
	}
	ids := map[string]string{}
	for _, rec := range strings.Split(string(out), "\x00") {
		if rec == "" {
			continue
		}
		// mode SP type SP id TAB path
		meta, p, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-tree in %s: unexpected entry %q", root, rec)
		}
		if keep(p) {
			ids[p] = f[2]
		}
	}
	return ids, nil
}

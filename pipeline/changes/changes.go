package changes

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

// Kinds of Snapshot.
const (
	// KindGit is a snapshot of a git work tree: HEAD plus the paths that may
	// differ from it.
	KindGit = "git"
	// KindTree is a snapshot of a plain directory tree: every counted file.
	KindTree = "tree"
)

// Snapshot is the content state of the tracked files at one moment. It
// marshals to small JSON and can be compared, after a round trip, with a
// snapshot taken later by Changed.
//
// A content id is the git object id of the path's content (a blob id for
// files and symbolic links, a commit id for a clean submodule, that commit
// followed by "+" and a digest for a submodule with local modifications), or
// "" when there is no file at the path.
type Snapshot struct {
	// Kind is KindGit or KindTree.
	Kind string `json:"kind"`
	// Head is the id of the HEAD commit, "" when HEAD is unborn (a repository
	// with no commits yet). Git snapshots only.
	Head string `json:"head,omitempty"`
	// Files maps slash-separated root-relative paths to content ids. In a git
	// snapshot it holds only the paths git status reported (the others have
	// their content at Head); in a tree snapshot it holds every counted file.
	Files map[string]string `json:"files,omitempty"`
	// index is what a real Take learnt besides (see Listed); nil when
	// unknown.
	index *index
}

// Take records a snapshot of the tracked files under root. Inside a git work
// tree it runs git status once (and describes submodules and nested
// repositories with local changes); elsewhere, or when git ignores root
// itself, it hashes the whole tree, honouring root/.ralphignore.
func Take(ctx context.Context, root string) (Snapshot, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot of %s: %w", root, err)
	}
	r, err := lookupRepo(ctx, abs)
	switch {
	case errors.Is(err, errNotRepo) || (err == nil && r.ignored):
		return takeTree(ctx, abs)
	case err != nil:
		return Snapshot{}, err
	}
	snap, err := takeGit(ctx, abs, r)
	if errors.Is(err, errNotRepo) { // the repository went away since it was cached
		repos.Delete(abs)
		return takeTree(ctx, abs)
	}
	return snap, err
}

// Changed lists the tracked files under root whose content differs between
// before and after, sorted, as slash-separated root-relative paths. It needs
// the repository only when the snapshots are git snapshots whose contents are
// not all recorded in them (HEAD moved, or a path listed in one snapshot is
// clean in the other). A git and a tree snapshot (a repository was created
// or removed) are compared file by file, which needs the git one's repository.
func Changed(ctx context.Context, root string, before, after Snapshot) ([]string, error) {
	for _, s := range []Snapshot{before, after} {
		if err := s.validate(); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("changes in %s: %w", root, err)
	}
	if before.Kind == KindGit && after.Kind == KindGit {
		return changedGit(ctx, abs, before, after)
	}
	b, a := before.Files, after.Files
	if before.Kind == KindGit {
		if b, err = expandGit(ctx, abs, before); err != nil {
			return nil, err
		}
	}
	if after.Kind == KindGit {
		if a, err = expandGit(ctx, abs, after); err != nil {
			return nil, err
		}
	}
	return diffMaps(b, a), nil
}

// validate rejects snapshots that are not from Take, such as a zero Snapshot
// or a tampered record, before their contents reach a git command line.
func (s Snapshot) validate() error {
	switch {
	case s.Kind != KindGit && s.Kind != KindTree:
		return fmt.Errorf("snapshot of unknown kind %q", s.Kind)
	case s.Head != "" && (s.Kind != KindGit || !git.IsID(s.Head)):
		return fmt.Errorf("snapshot with bad HEAD id %q", s.Head)
	}
	for p := range s.Files {
		if p == "" || strings.HasPrefix(p, "/") {
			return fmt.Errorf("snapshot with bad path %q", p)
		}
	}
	return nil
}

// diffMaps returns the sorted paths whose content differs between before and
// after, where a path missing from a map has no file.
func diffMaps(before, after map[string]string) []string {
	var changed []string
	for p, b := range before {
		if after[p] != b {
			changed = append(changed, p)
		}
	}
	for p, a := range after {
		if _, ok := before[p]; !ok && a != "" {
			changed = append(changed, p)
		}
	}
	sort.Strings(changed)
	return changed
}

package changes

import (
	"maps"
	"slices"
	"strings"
)

// index is what a real Take in git mode learnt from the git ls-files it
// runs anyway (see addHidden), besides the snapshot's content: the files
// git tracks or would track, and the submodules of the index. It is never
// saved with the snapshot (a snapshot read back from JSON knows neither)
// and never changed once made.
type index struct {
	listed, links []string
	// staged are the paths whose index entry differed from HEAD's, with
	// HEAD's entry, when stagedKnown.
	staged      []Staged
	stagedKnown bool
}

// Staged is a path, from the top of the work tree, whose index entry
// differs from HEAD's, with its mode and content id at HEAD ("" for both
// when HEAD has none), as git status --porcelain=v2 shows them.
type Staged struct{ Path, Mode, ID string }

// Staged returns the paths whose index entry differed from HEAD's when
// the snapshot was taken (what the agent staged), with HEAD's entry: every
// other path's index entry was HEAD's. ok is false when the snapshot does
// not know them (outside git, below the top of the work tree, a conflict,
// read back from JSON). The caller must not change the slice.
func (s Snapshot) Staged() (staged []Staged, ok bool) {
	if s.index == nil || !s.index.stagedKnown {
		return nil, false
	}
	return s.index.staged, true
}

// Listed returns the files under the root that git tracks or would track
// (the index's, and the untracked files git does not ignore), as git
// ls-files --cached --others --exclude-standard lists them: sorted,
// root-relative, .ralph left out, an untracked nested repository as its
// folder with a trailing slash. ok is false when the snapshot does not
// know them (outside git, or read back from JSON): the caller lists them.
// The caller must not change the slice.
func (s Snapshot) Listed() (files []string, ok bool) {
	if s.index == nil {
		return nil, false
	}
	return s.index.listed, true
}

// Gitlinks returns the submodules the index records under the root,
// root-relative; ok is false when the snapshot does not know them.
func (s Snapshot) Gitlinks() (paths []string, ok bool) {
	if s.index == nil {
		return nil, false
	}
	return s.index.links, true
}

// Committed is one path of a commit made of the work tree's changes: the
// content id it has in the commit ("" when the commit deletes it) and
// whether it is a submodule there.
type Committed struct {
	Path string
	ID   string
	Link bool
}

// AfterCommit is the snapshot of the same work tree once its changes at
// the paths of committed were committed as head, on top of s.Head, and
// nothing else changed: what Take would see then, up to paths listed with
// the content they have at head (which Changed reads alike). A submodule
// with dirty files keeps its id: only its commit was committed. ralph-ci
// uses it after its own commit of a rotation's work, so that the next
// rotation's baseline needs no git (see Watcher.Adopt).
func (s Snapshot) AfterCommit(head string, committed []Committed) Snapshot {
	out := Snapshot{Kind: s.Kind, Head: head, Files: maps.Clone(s.Files)}
	if out.Files == nil {
		out.Files = map[string]string{}
	}
	for _, c := range committed {
		if !strings.Contains(out.Files[c.Path], "+") {
			out.Files[c.Path] = c.ID
		}
	}
	if s.index == nil {
		return out
	}
	listed := map[string]bool{}
	for _, p := range s.index.listed {
		listed[p] = true
	}
	links := map[string]bool{}
	for _, p := range s.index.links {
		links[p] = true
	}
	for _, c := range committed {
		listed[c.Path] = c.ID != "" // in the index now, or gone from it and the tree
		if c.Link {
			listed[c.Path+"/"] = false // a nested repository committed as a submodule
		}
		links[c.Path] = c.ID != "" && c.Link
	}
	// The commit holds the index: no path differs from HEAD's there.
	out.index = &index{listed: keys(listed), links: keys(links), staged: []Staged{}, stagedKnown: s.index.stagedKnown}
	return out
}

// keys are the paths set true in m, sorted.
func keys(m map[string]bool) []string {
	out := []string{}
	for p, ok := range m {
		if ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

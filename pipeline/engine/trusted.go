package engine

import (
	"bytes"
	"context"
	"errors"
	"strings"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/schema"
)

// The guard's baseline comes from the loop's trusted commit when the stage
// starts: the newest commit on HEAD's first-parent line that the loop did
// not make (ralph-ci's commits carry a Ralph-Spec: trailer). So a verifier
// the loop changed and committed (then lost its state, or started a new
// stage) is held against it, not adopted. An item the working tree changed
// against HEAD before the stage's first rotation is a person's uncommitted
// edit and is taken as it is.

// maxLoopCommits bounds the walk back over the loop's own commits.
const maxLoopCommits = 1000

// loopBase is what one walk of HEAD's first-parent line tells about the
// loop's trusted commit.
type loopBase struct {
	// commit is the newest commit reachable from HEAD by first parents
	// whose message has no Ralph-Spec: trailer ("" outside git or when
	// none is found within maxLoopCommits).
	commit string
	head   bool // the trusted commit is HEAD: the loop committed nothing on top
	// tree is the tree of the trusted commit, else of HEAD ("" when the
	// walk failed).
	tree string
}

// maxObjectSize bounds an object the guard reads (a commit, a tree, a
// verifier's content).
const maxObjectSize = 64 << 20

// trustedBase walks HEAD's first-parent line once for the trusted commit,
// whether it is HEAD, and its tree (see gitHeadTree). Each commit is read
// and checked against its id (internal/git.Objects) and its trailers are
// parsed by ralph-ci (git.Trailers): replace refs, trailer.* settings and
// rewritten object files of the agent's change nothing.
func trustedBase(ctx context.Context, root string) loopBase {
	head, err := git(ctx, root, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		return loopBase{}
	}
	objs, err := igit.OpenObjects(ctx, root, maxObjectSize)
	if err != nil {
		return loopBase{}
	}
	defer objs.Close()
	var b loopBase
	id := strings.TrimSpace(string(head))
	for i := 0; i < maxLoopCommits && id != ""; i++ {
		c, err := objs.Commit(id)
		if err != nil {
			return loopBase{tree: b.tree} // shallow history, or a tampered object: no trusted commit
		}
		if i == 0 {
			b.tree = c.Tree // HEAD's, unless a trusted commit is found
		}
		if len(igit.Trailers(c.Message)[loopTrailer]) == 0 {
			b.commit, b.head, b.tree = c.ID, i == 0, c.Tree
			return b
		}
		id = ""
		if len(c.Parents) > 0 {
			id = c.Parents[0]
		}
	}
	return b
}

// loopTrusted is trustedBase held to what ralph-ci recorded: the run's
// first walk records the trusted commit (the checkout is ralph-ci's then:
// no agent ran yet); a later walk may move it only onto a person's commit
// that delivery integrated from origin (the recorded commit its ancestor,
// itself reachable from what delivery last pushed). A commit without the
// loop's trailer that appeared in the checkout during the run is the
// agent's (an amended, rebased, reset or replaced commit of the loop's
// loses its trailers, and a commit the agent made itself has none): the
// guard says so and keeps the recorded commit.
func (e *engine) loopTrusted(ctx context.Context) loopBase {
	b := trustedBase(ctx, e.root)
	switch {
	case e.trusted == "" || b.commit == e.trusted:
		e.trusted = b.commit
		return b
	case b.commit != "" && e.isAncestor(ctx, e.trusted, b.commit) && e.isAncestor(ctx, b.commit, e.deliveredHead()):
		e.trusted = b.commit
		return b
	}
	e.log.Warn().Str("found", b.commit).Str("trusted", e.trusted).Msg("verifier guard: HEAD's history holds a commit without ralph-ci's trailers that did not come from origin (the agent rewrote the loop's history, or committed outside it); the trusted commit stays the one ralph-ci recorded")
	tree, err := git(ctx, e.root, "rev-parse", "--verify", "-q", e.trusted+"^{tree}")
	if err != nil {
		return loopBase{commit: e.trusted}
	}
	head, _ := git(ctx, e.root, "rev-parse", "--verify", "-q", "HEAD")
	return loopBase{commit: e.trusted, head: strings.TrimSpace(string(head)) == e.trusted, tree: strings.TrimSpace(string(tree))}
}

// isAncestor tells whether commit a is an ancestor of b (or b itself).
func (e *engine) isAncestor(ctx context.Context, a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	_, err := git(ctx, e.root, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// deliveredHead is the last commit delivery pushed ("" without one).
func (e *engine) deliveredHead() string {
	if d, ok := e.opts.Deliverer.(interface{ Head() string }); ok {
		return d.Head()
	}
	return ""
}

// loopTrailer marks the loop's own commits.
const loopTrailer = "Ralph-Spec"

// trustedHashes rebases hashes, the items' hashes in the working tree,
// on the trusted commit base: an item unchanged against HEAD takes its
// content at that commit (an item the loop's commits added is left out:
// it is new), and the test files of that commit join the list when the
// stage guards tests ("" when the loop deleted them). Outside git, or
// without a trusted commit, hashes are returned as they are.
func (e *engine) trustedHashes(ctx context.Context, base loopBase, crit schema.Criteria, hashes map[string]string) map[string]string {
	if base.commit == "" {
		return hashes
	}
	out := map[string]string{}
	headItems := make([]string, 0, len(hashes))
	for item := range hashes {
		headItems = append(headItems, item)
	}
	if !crit.AllowTestChanges {
		if names, err := git(ctx, e.root, "ls-tree", "-r", "--name-only", "-z", base.commit); err == nil {
			for _, f := range bytes.Split(names, []byte{0}) {
				if item, ok := layers.TestItem(string(f), false); ok {
					if _, ok := hashes[item]; !ok {
						hashes[item] = "" // missing from the working tree: deleted by the loop
						headItems = append(headItems, item)
					}
				}
			}
		}
	}
	if base.head {
		// The trusted content is HEAD's: an item that differs from it is
		// an uncommitted edit, taken as it is, and one that does not is
		// the trusted content. Either way the working tree's hash.
		return hashes
	}
	atHead, err1 := contentHashes(ctx, e.root, "HEAD", headItems)
	atBase, err2 := contentHashes(ctx, e.root, base.commit, headItems)
	if err1 != nil || err2 != nil {
		e.log.Warn().AnErr("head", err1).AnErr("base", err2).Msg("verifier guard: cannot read the trusted commit; the working tree is the baseline")
		return hashes
	}
	for item, h := range hashes {
		switch {
		case h != atHead[item]: // a person's uncommitted edit: as it is
			out[item] = h
		case atBase[item] == "" && h != "":
			// Added by the loop's commits: a new file, not a changed
			// verifier (new tests are checked as such).
		default: // committed as it is: the trusted content
			out[item] = atBase[item]
		}
	}
	return out
}

// contentHashes hashes the items as commit holds them, the way hashFiles
// hashes the working tree ("" for an item commit lacks), each object
// read checked against its id, with one git cat-file process.
func contentHashes(ctx context.Context, root, commit string, items []string) (map[string]string, error) {
	id, err := git(ctx, root, "rev-parse", "--verify", "-q", commit+"^{commit}")
	if err != nil {
		return nil, err
	}
	commit = strings.TrimSpace(string(id))
	objs, err := igit.OpenObjects(ctx, root, maxObjectSize)
	if err != nil {
		return nil, err
	}
	defer objs.Close()
	hashes := make(map[string]string, len(items))
	for _, item := range items {
		path, _ := layers.ItemFile(item)
		_, content, err := objs.Blob(commit, path)
		switch {
		case errors.Is(err, igit.ErrMissing):
			hashes[item] = "" // missing (or not a file) at commit
			continue
		case err != nil:
			return nil, err
		}
		hashes[item] = layers.ItemHash(item, content)
	}
	return hashes, objs.Close()
}

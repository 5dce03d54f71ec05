package engine

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"

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

// trustedBase walks HEAD's first-parent line once for the trusted commit,
// whether it is HEAD, and its tree (see gitHeadTree).
func trustedBase(ctx context.Context, root string) loopBase {
	out, err := git(ctx, root, "log", "--first-parent", "-n", strconv.Itoa(maxLoopCommits), "--format=%H%x00%T%x00%(trailers:key=Ralph-Spec,valueonly)%x1e", "HEAD")
	if err != nil {
		return loopBase{}
	}
	var b loopBase
	for i, rec := range strings.Split(string(out), "\x1e") {
		fields := strings.SplitN(strings.TrimLeft(rec, "\n"), "\x00", 3)
		if len(fields) != 3 {
			continue
		}
		if i == 0 {
			b.tree = fields[1] // HEAD's, unless a trusted commit is found
		}
		if strings.TrimSpace(fields[2]) == "" {
			b.commit, b.head, b.tree = fields[0], i == 0, fields[1]
			return b
		}
	}
	return b
}

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
				if rel := string(f); rel != "" && layers.IsTestFile(rel) {
					if _, ok := hashes[rel]; !ok {
						hashes[rel] = "" // missing from the working tree: deleted by the loop
						headItems = append(headItems, rel)
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
// hashes the working tree ("" for an item commit lacks), with one git
// cat-file process.
func contentHashes(ctx context.Context, root, commit string, items []string) (map[string]string, error) {
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = root
	var in bytes.Buffer
	for _, item := range items {
		path, _ := layers.ItemFile(item)
		fmt.Fprintf(&in, "%s:%s\n", commit, path)
	}
	cmd.Stdin = &in
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := bufio.NewReader(out)
	hashes := make(map[string]string, len(items))
	for _, item := range items {
		header, err := r.ReadString('\n')
		if err != nil {
			_ = cmd.Wait()
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		fields := strings.Fields(header)
		if len(fields) != 3 || fields[1] != "blob" {
			hashes[item] = "" // missing (or not a file) at commit
			continue
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil {
			_ = cmd.Wait()
			return nil, fmt.Errorf("git cat-file: %q", header)
		}
		content := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(r, content); err != nil {
			_ = cmd.Wait()
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		sum := sha256.Sum256(layers.ItemContent(item, content[:size]))
		hashes[item] = hex.EncodeToString(sum[:])
	}
	return hashes, cmd.Wait()
}

package engine

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
)

// gitHeadTree is the tree of the loop's trusted commit (loopBase.commit),
// else of HEAD: the same for the same content, whoever committed it when;
// "" outside git or before the first commit. base is what trustedBase
// found; only when its walk failed is git asked again.
func gitHeadTree(ctx context.Context, root string, base loopBase) string {
	if base.tree != "" {
		return base.tree
	}
	out, err := git(ctx, root, "rev-parse", "--verify", "-q", "HEAD^{tree}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// loopAdded are the lines added since tree (HEAD's at the stage's start), in
// tracked files and in new files git does not ignore; none (never nil)
// when git cannot tell.
func loopAdded(ctx context.Context, root, tree string) layers.Added {
	diff, err := git(ctx, root, "diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames", tree, "--")
	if err != nil {
		return layers.Added{}
	}
	added := layers.AddedLines(string(diff))
	others, err := git(ctx, root, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return added
	}
	for _, f := range bytes.Split(others, []byte{0}) {
		rel := string(f)
		if rel == "" || strings.HasPrefix(rel, ".ralph/") {
			continue
		}
		// Bounded and non-blocking: the agent may leave a link to
		// /dev/zero or a FIFO here.
		b, err := safefile.Read(filepath.Join(root, filepath.FromSlash(rel)), safefile.SourceLimit)
		if err != nil || bytes.IndexByte(b, 0) >= 0 {
			continue // unreadable, special, binary or huge: not prose
		}
		added[rel] = strings.Split(string(b), "\n")
	}
	return added
}

// git runs git in root through the doorway (internal/git).
func git(ctx context.Context, root string, args ...string) ([]byte, error) {
	return igit.Run(ctx, root, args...)
}

package engine

import (
	"bytes"
	"context"
	"path"
	"path/filepath"
	"strings"

	igit "github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
	"github.com/ralph-ci/ralph-ci/pipeline/layers"
	"github.com/ralph-ci/ralph-ci/pipeline/plan"
	"github.com/ralph-ci/ralph-ci/pipeline/verify"
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
func loopAdded(ctx context.Context, root, tree string, read func(rel string, limit int64) ([]byte, error)) (layers.Added, layers.Where) {
	diff, err := git(ctx, root, "diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames", tree, "--")
	if err != nil {
		return layers.Added{}, layers.Where{}
	}
	added, where := layers.AddedWhere(string(diff))
	others, err := git(ctx, root, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return added, where
	}
	for _, f := range bytes.Split(others, []byte{0}) {
		rel := string(f)
		if rel == "" || strings.HasPrefix(rel, ".ralph/") {
			continue
		}
		// Bounded and non-blocking: the agent may leave a link to
		// /dev/zero, out of the tree, or a FIFO here.
		b, err := read(rel, safefile.SourceLimit)
		if err != nil || bytes.IndexByte(b, 0) >= 0 {
			continue // unreadable, special, binary or huge: not prose
		}
		added[rel] = strings.Split(string(b), "\n")
		where.New[rel] = true
		where.Lines[rel] = make([]int, len(added[rel]))
		for i := range where.Lines[rel] {
			where.Lines[rel][i] = i + 1
		}
	}
	return added, where
}

// runModules are the Python modules the stage's verification runs with
// python -m: in its commands, and in the repository's scripts they call
// (the verifier guard holds those as the stage started).
func runModules(stage plan.Stage, read func(rel string, limit int64) ([]byte, error)) []string {
	var texts []string
	for _, c := range verify.Commands(stage.Criteria.VerificationMethod, stage.Criteria.VerificationConfig) {
		text := c.Command.Shell
		if c.Command.Argv != nil {
			text = strings.Join(c.Command.Argv, " ")
		}
		texts = append(texts, text)
		for _, f := range layers.Called(text) {
			if b, err := read(path.Join(filepath.ToSlash(c.WorkingDir), f), safefile.ConfigLimit); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	return layers.RunModules(texts...)
}

// git runs git in root through the doorway (internal/git).
func git(ctx context.Context, root string, args ...string) ([]byte, error) {
	return igit.Run(ctx, root, args...)
}

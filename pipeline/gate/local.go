package gate

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/pipeline/tiers"
)

// Local is the channel of a laptop: no pull request, checkpoints printed
// to the terminal, answers given with `ralph-ci answer SPEC 1|2|3
// [feedback]` (see Answer). Approvals are for the repository's HEAD
// commit ("" outside git).
type Local struct {
	Root string
	Out  io.Writer
}

var _ Channel = Local{}

// Read implements Channel: the HEAD commit, no comments, no answers.
func (l Local) Read(ctx context.Context) (Snapshot, error) {
	return Snapshot{Head: Head(ctx, l.Root)}, nil
}

// Publish implements Channel: it prints the checkpoint.
func (l Local) Publish(_ context.Context, spec string, s tiers.Slice, rec tiers.Record) (int64, error) {
	if l.Out == nil {
		return 0, nil
	}
	_, err := fmt.Fprintf(l.Out, "\n── ralph-ci checkpoint: %s ──\n%s\n%s\nAnswer with: ralph-ci answer %s 1|2|3 [feedback]\n\n", spec, tiers.Shown(s, rec), tiers.Note(spec, rec), spec)
	return 0, err
}

// Status implements Channel: nothing to set on a laptop.
func (Local) Status(context.Context, string, string, string) error { return nil }

// Head is the HEAD commit of the git repository at root, "" outside one.
func Head(ctx context.Context, root string) string {
	out, err := git.Run(ctx, root, "rev-parse", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

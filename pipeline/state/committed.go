package state

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/git"
)

// Committed says why the state folder in the checkout of root is not
// trusted: files of it are tracked by git, so a commit (a pull request's,
// or anyone's) wrote them, not ralph-ci; a pull request could claim any
// spec verified in them. "" when none is: the folder is untracked or
// ignored, the normal local loop (or git cannot tell: not a repository).
// `run` then starts from an empty state (with delivery, the state comes
// from its own ref instead) and `check` on a pull request presents no
// checkpoint from it.
func Committed(ctx context.Context, root string) string {
	out, err := git.Run(ctx, root, "ls-files", "--", DirName)
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return ""
	}
	files := strings.Fields(string(out))
	return fmt.Sprintf("the checkout has %s committed (%s): a pull request could claim any spec verified in it", DirName+"/", strings.Join(files, ", "))
}

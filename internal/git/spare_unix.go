//go:build unix

package git

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// canSpare: RemovePack keeps a pack's files for the next (see place).
const canSpare = true

// reuse writes content into the file spare, in place of what it held,
// when spare is a regular file of one name (not a link to follow, a FIFO
// to block on, nor a name of a file that has another: the pack folder is
// the agent's to change between rotations, and ralph-ci may be root). It
// is what a new file beside it would be after the write: content alone,
// mode 0600. A spare that is none of those is removed (the name alone).
func reuse(spare string, content []byte) error {
	f, err := safefile.OpenSoleUnder(filepath.Dir(spare), spare, os.O_WRONLY, 0)
	if err != nil {
		if errors.Is(err, safefile.ErrLink) || errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrHardLink) {
			_ = os.Remove(spare)
		}
		return err
	}
	_, werr := f.WriteAt(content, 0)
	return errors.Join(werr, f.Truncate(int64(len(content))), f.Chmod(0o600), f.Close())
}

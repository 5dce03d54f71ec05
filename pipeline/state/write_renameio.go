//go:build !windows

package state

import (
	"io"
	"os"
	"path/filepath"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// writeFile is WriteFileAtomic's write: a new, fsynced file in path's
// folder renamed over path (safefile.ReplaceUnder), with perm whatever
// the umask. Not renameio's: .ralph/ is lent to the agent, which may make
// a folder of it a link (to /etc/sudoers.d) and renameio would follow it;
// ReplaceUnder refuses a folder that is a link.
func writeFile(path string, data []byte, perm os.FileMode) error {
	return safefile.ReplaceUnder(filepath.Dir(path), path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

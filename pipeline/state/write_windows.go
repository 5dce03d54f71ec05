package state

import (
	"io"
	"os"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// writeFile is WriteFileAtomic's write on Windows, where renameio does
// not build: a file beside path renamed over it (safefile.Replace).
func writeFile(path string, data []byte, perm os.FileMode) error {
	return safefile.Replace(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

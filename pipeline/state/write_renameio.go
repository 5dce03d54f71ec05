//go:build !windows

package state

import (
	"os"

	"github.com/google/renameio/v2"
)

// writeFile is WriteFileAtomic's write: renameio's, with perm whatever
// the umask.
func writeFile(path string, data []byte, perm os.FileMode) error {
	return renameio.WriteFile(path, data, perm, renameio.WithStaticPermissions(perm))
}

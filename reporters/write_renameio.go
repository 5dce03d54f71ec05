//go:build !windows

package reporters

import (
	"io"

	"github.com/google/renameio/v2"
)

// replaceFile makes path hold what write writes, through renameio's
// pending file (mode 0644), renamed over path.
func replaceFile(path string, write func(io.Writer) error) error {
	f, err := renameio.NewPendingFile(path, renameio.WithStaticPermissions(0o644))
	if err != nil {
		return err
	}
	defer f.Cleanup()
	if err := write(f); err != nil {
		return err
	}
	return f.CloseAtomicallyReplace()
}

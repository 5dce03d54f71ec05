package reporters

import (
	"io"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// replaceFile makes path hold what write writes, through a file beside
// it renamed over it (renameio does not build on Windows): see
// safefile.Replace for what is atomic here.
func replaceFile(path string, write func(io.Writer) error) error {
	return safefile.Replace(path, 0o644, write)
}

package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Replace makes path hold what write writes: into a new file in path's
// own folder (".<name>.tmp-<random>"), given perm, synced, closed, then
// renamed over path. A failed write or rename removes the new file and
// leaves path as it was. It is the write that works on every system; on
// Linux and macOS the callers keep renameio (whose files are the same
// kind), and Windows, which renameio does not build on, uses this.
//
// What is atomic: a reader that opens path sees its old content or the
// new, never a part of either; on Linux and macOS rename(2) promises it.
// On Windows os.Rename is MoveFileEx with MOVEFILE_REPLACE_EXISTING,
// which NTFS does in one metadata change, so a reader sees the same; but
//   - the rename fails (and path keeps its old content) while another
//     process holds path open without FILE_SHARE_DELETE (Go's os.Open
//     does not share delete, nor do most programs): the error says so;
//   - perm is kept only as far as Windows has it (no write bit makes the
//     file read-only); the new file's access list is the folder's;
//   - the folder is not flushed (Windows cannot fsync a folder), so after
//     a power loss path may hold the old content, though never a part.
func Replace(path string, perm fs.FileMode, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err = fill(f, perm, write); err == nil {
		if err = os.Rename(tmp, path); err != nil && runtime.GOOS == "windows" {
			err = fmt.Errorf("%w (is %s open in another program?)", err, path)
		}
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

// fill writes a new file f through write, gives it perm, syncs and
// closes it: what Replace and ReplaceUnder do before the rename.
func fill(f *os.File, perm fs.FileMode, write func(io.Writer) error) error {
	err := write(f)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

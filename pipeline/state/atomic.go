package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// Suffixes of the temporary files this package creates next to their
// targets. A file is never read under one of these names, so a temporary
// file left behind by a crash cannot be mistaken for state.
const (
	tmpInfix = ".tmp-" // WriteFileAtomic before renameio: .<name>.tmp-<random>
	newInfix = ".new-" // Acquire: .run.json.new-<random>, linked or renamed to run.json
	// spareSuffix names writeFileOrdered's spare: .<name>.spare. It is not
	// a leftover: it is reused by every write, and a crash mid-write only
	// spoils the spare.
	spareSuffix = ".spare"
)

// cleanTempAge is how old a temporary file must be before CleanTemp deletes
// it, so that a write in progress in another process is never disturbed.
const cleanTempAge = time.Minute

// WriteFileAtomic replaces the file at path with data so that, whatever
// happens (crash, kill -9, power loss), path holds either its previous
// complete content or data, never a mix or a truncated file.
//
// renameio writes a temporary file in the same directory (".<name>"
// followed by a random number), fsyncs it and renames it over path; the
// directory is then fsynced so the rename itself is durable. The
// directory must exist. perm applies to the new file (umask is bypassed).
// On Windows, where renameio does not build, safefile.Replace does the
// same (".<name>.tmp-<random>"), and says what is atomic there: not the
// rename's durability, since a folder cannot be flushed.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	if err := writeFile(path, data, perm); err != nil {
		return fmt.Errorf("write %s: %w (does its directory exist and is it writable?)", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("write %s: flush its directory: %w", path, err)
	}
	return nil
}

// writeFileOrdered replaces path with data like WriteFileAtomic, except that
// it does not flush the directory: the new content is on disk before the
// rename, so a reader (even after a power loss) sees the old or the new
// complete file, but a power loss may undo the rename. state.json is
// written this way, once per rotation: an undone rename brings back the
// previous state with its pending rotation, which is then run again, so
// no rotation is lost or counted twice, and each rotation saves a
// directory flush.
//
// The data goes to a spare file (".<name>.spare", never read) that is then
// swapped with path in one atomic exchange, so the spare holds the previous
// content afterwards and the next write reuses it. Creating and deleting a
// file per write is what a temporary file would cost, and on some file
// systems (ext4 without a journal skips every inode deleted in the last
// minute when it allocates one) that cost grows with each write.
//
// Reusing a file means rewriting one that a reader may have opened while
// it was still path, so the write holds an exclusive flock on the
// directory and Load a shared one. Where there is no flock or no exchange
// (or path does not exist yet), the spare is renamed over path instead and
// a new one is made next time. Only the holder of the ralph-ci lock may
// call it: two writers would share the spare.
//
// What it earns (BenchmarkWriteState, state.json of 1,000 specs, ext4):
// 4.6 ms a save against 6.1 ms for a new temporary file renamed over it,
// far under 1% of a real agent's rotation. It stays because the spare is
// also the state one save earlier, which the message for a corrupt
// state.json offers to put back (see Load).
func writeFileOrdered(path string, data []byte, perm os.FileMode) error {
	unlock, locked, err := lockDir(filepath.Dir(path), true)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer unlock()
	spare := spareOf(path)
	// Not O_TRUNC: fill overwrites and then truncates to the new length,
	// which frees no block unless the state shrank, and freeing blocks is
	// slow (on a file system mounted with discard, 150 us here).
	f, err := openSpare(path, spare, perm)
	if err != nil {
		return fmt.Errorf("write %s: create %s: %w (is the directory writable?)", path, spare, err)
	}
	if err := fill(f, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if locked && exchange(spare, path) == nil {
		return nil
	}
	if err := os.Rename(spare, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// openSpare opens the spare for writing without following a link or
// blocking on a FIFO (safefile.OpenUnder). The agent, which is lent
// .ralph/, may have put one there: the spare is ralph-ci's own scratch,
// holding nothing to keep, so what is there is removed (the link itself,
// never its target) and a new spare made; the error of the first open
// says what was found, for the engine to log (OnReplaced).
func openSpare(path, spare string, perm os.FileMode) (*os.File, error) {
	dir := filepath.Dir(path)
	f, err := safefile.OpenUnder(dir, spare, os.O_WRONLY|os.O_CREATE, perm)
	if err == nil || !(errors.Is(err, safefile.ErrLink) || errors.Is(err, safefile.ErrNotRegular)) {
		return f, err
	}
	if rerr := safefile.RemoveUnder(dir, spare); rerr != nil {
		return nil, errors.Join(err, rerr)
	}
	if f := replaced.Load(); f != nil {
		(*f)(spare, err)
	}
	return safefile.OpenUnder(dir, spare, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

// replaced is told of each file of .ralph/ that ralph-ci removed and
// made again because it was not what ralph-ci left there (OnReplaced).
var replaced atomic.Pointer[func(path string, found error)]

// OnReplaced makes f be told of each file of .ralph/ that ralph-ci
// removed and made again because it was not what ralph-ci left there (a
// link or a FIFO the agent put in its place), for the engine to log it.
// It is process-wide, not a parameter, because the writes that find such
// a file sit under every save of the state.
func OnReplaced(f func(path string, found error)) { replaced.Store(&f) }

// spareOf returns the path of the spare writeFileOrdered keeps beside path.
func spareOf(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+spareSuffix)
}

// writeTemp writes data to a new, fsynced temporary file in dir whose name
// matches pattern (as for os.CreateTemp) and returns its name. On failure
// nothing is left behind.
func writeTemp(dir, pattern string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("create temporary file: %w (does %s exist and is it writable?)", err, dir)
	}
	if err := fill(f, data, perm); err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// fill writes data at the start of the file f, cuts it to that length,
// gives it perm (whatever the umask), flushes it to disk and closes it. f
// is closed on failure too.
func fill(f *os.File, data []byte, perm os.FileMode) (err error) {
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close %s: %w", f.Name(), cerr)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w (is the disk full?)", f.Name(), err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return fmt.Errorf("truncate %s: %w", f.Name(), err)
	}
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("set permissions of %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("flush %s to disk: %w", f.Name(), err)
	}
	return nil
}

// removeDurably removes path (a missing file is fine) and fsyncs its
// directory so the removal survives a crash.
func removeDurably(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("remove %s: flush directory: %w", path, err)
	}
	return nil
}

// isTempName reports whether a file name is one of this package's
// temporary files: renameio's (".<name>" and a number) or Acquire's.
func isTempName(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	if strings.TrimRight(name, "0123456789") != name {
		return true
	}
	for _, infix := range []string{tmpInfix, newInfix} {
		if strings.Contains(name, infix) {
			return true
		}
	}
	return false
}

// CleanTemp deletes temporary files left behind by crashes in the .ralph
// directory and its handoffs folder. Files younger than a minute are kept
// because they may belong to a write in progress. Call it while holding the
// lock. A missing directory is not an error.
func (d Dir) CleanTemp() error { return d.cleanTemp(cleanTempAge) }

func (d Dir) cleanTemp(minAge time.Duration) error {
	var errs []error
	for _, dir := range []string{string(d), d.HandoffsDir()} {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("clean temporary files: %w", err))
			continue
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !isTempName(e.Name()) {
				continue
			}
			info, err := e.Info()
			if err != nil || time.Since(info.ModTime()) < minAge {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("clean temporary files: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}

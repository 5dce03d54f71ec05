package git

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// ReadByGit are the files and folders git reads in its git directory
// (GIT_DIR) that ralph-ci never writes there, or writes only by its own
// git commands: each would change what ralph-ci's next command does if
// someone else put it there (a MERGE_HEAD makes the next commit a merge
// with a parent of their choosing, a sequencer or rebase-merge folder
// holds commands to run, rr-cache turns rerere on and replays their
// conflict resolutions, remotes/ and branches/ name other URLs for a
// remote, info/grafts and shallow rewrite parents, a ref under refs/
// shadows a name ralph-ci resolves, and so does a file at the top named
// as the revision: "<revision>" stands for any name ralph-ci resolves,
// a branch or a commit id, which git looks for there before refs/). A
// trailing slash is a folder, a * a glob. The list is what the strace test of cmd/ralph-ci checks git's
// reads against and what the attack test plants; the sweep itself is
// not a list: before each command it removes every entry of the git
// directory that ralph-ci or its git did not leave there (see sweep).
var ReadByGit = []string{
	"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_RR", "MERGE_AUTOSTASH", "AUTO_MERGE", "SQUASH_MSG",
	"CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "ORIG_HEAD", "FETCH_HEAD", "BISECT_*",
	"sequencer/", "rebase-merge/", "rebase-apply/", "rr-cache/", "remotes/", "branches/",
	"info/grafts", "info/attributes", "info/sparse-checkout", "info/refs", "shallow", "packed-refs", "refs/", "logs/",
	"hooks/", "commondir", "gitdir", "config.worktree", "worktrees/", "modules/", "objects/", "index", "sharedindex.*",
	"description", "<revision>", "HEAD.lock", "config.lock", "packed-refs.lock", "shallow.lock",
}

// Listed tells whether rel, a slash-separated path in a git directory,
// is one of ReadByGit (or inside one of its folders).
func Listed(rel string) bool {
	for _, p := range ReadByGit {
		if dir, ok := strings.CutSuffix(p, "/"); ok {
			if rel == dir || len(rel) > len(dir) && rel[:len(dir)+1] == p {
				return true
			}
			continue
		}
		if ok, _ := path.Match(p, rel); ok {
			return true
		}
	}
	return false
}

// left is what ralph-ci and its git left in the git directory after the
// last command: every folder (nil) and regular file (its content), by
// slash-separated path.
type left map[string][]byte

// maxLeft bounds the content kept of one file (the shallow list, a
// packed-refs of many refs): a larger file is removed when it changed.
const maxLeft = 64 << 20

// record is what the git directory dir holds now.
func record(dir string) (left, error) {
	l := left{}
	err := walkEntries(dir, func(p, rel string, d fs.DirEntry) error {
		switch {
		case d.IsDir():
			l[rel] = nil
		case d.Type().IsRegular():
			content, err := safefile.Read(p, maxLeft)
			if err == nil {
				l[rel] = append([]byte{}, content...)
			}
		}
		return nil
	})
	return l, err
}

// walkEntries calls fn for every entry below dir (not dir itself), with
// its path relative to dir in slashes; an entry gone while the walk ran
// is passed over.
func walkEntries(dir string, fn func(p, rel string, d fs.DirEntry) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		return fn(p, filepath.ToSlash(rel), d)
	})
}

// sweep makes the git directory dir hold what ralph-ci's git left there
// (l) and nothing else: an entry l does not hold is removed (a folder
// with all it holds), a file whose content changed or that is gone is
// written back, a folder that is gone is made again. It runs before each
// git command, when no process of the agent's lives (see the package
// documentation): what the agent or anyone else put in the folder since
// ralph-ci's last command is gone before git reads it. It reads every
// file each time, with no cache of their stat: with record after the
// command it costs about 0.3 ms a git command (BenchmarkSweep, 2 cores
// under load), some 2.4 ms for a delivery rotation's 8 commands, 0.05%
// of a rotation of a real agent CLI (about 5 s).
func (l left) sweep(dir string) error {
	var errs []error
	var extra []string
	err := walkEntries(dir, func(p, rel string, d fs.DirEntry) error {
		want, ok := l[rel]
		switch {
		case !ok, d.IsDir() != (want == nil), !d.IsDir() && !d.Type().IsRegular():
			extra = append(extra, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		case !d.IsDir():
			cur, err := safefile.Read(p, int64(len(want))+1)
			if err != nil || !bytes.Equal(cur, want) {
				extra = append(extra, p)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range extra {
		errs = append(errs, os.RemoveAll(p))
	}
	for rel, content := range l { // what was removed, changed or is gone
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if content == nil {
			if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
				errs = append(errs, os.MkdirAll(p, 0o700))
			}
			continue
		}
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, os.MkdirAll(filepath.Dir(p), 0o700), rewrite(p, content))
		}
	}
	return errors.Join(errs...)
}

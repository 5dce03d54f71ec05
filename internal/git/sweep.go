package git

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

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
// last command: every folder and file by slash-separated path ("" is the
// directory itself).
type left map[string]kept

// kept is one entry of left: a folder (with the names it holds) or a
// regular file (with its content), and its stamp when it was read.
type kept struct {
	dir     bool
	names   []string // a folder's entries
	content []byte   // a file's content
	other   bool     // neither: a link, a FIFO, ... (never left by git)
	stamp   stamp
	// racy: the entry changed so shortly before it was read that a change
	// after the read could carry the same stamp; it is read again.
	racy bool
}

// stamp is what lstat says of an entry that changes whenever its content
// (a file) or its list of entries (a folder) changes: any write, and any
// entry made, removed or renamed in a folder, sets its change time to the
// clock, which no process of the agent's can set back (utimes sets the
// modification time, and then the change time to the clock).
type stamp struct {
	ino, size    uint64
	mode         uint32
	mtime, ctime int64 // nanoseconds
}

// racyWindow is how close to the read a change makes an entry racy: the
// kernel stamps changes with a clock that moves in ticks (at most 10 ms).
const racyWindow = 50 * time.Millisecond

// maxLeft bounds the content kept of one file (the shallow list, a
// packed-refs of many refs): a larger file is removed when it changed.
const maxLeft = 64 << 20

// record is what the git directory dir holds now.
func record(dir string) (left, error) { return scan(dir, nil) }

// scan is what the git directory dir holds now, read as cheaply as prev
// (an earlier scan) allows: a folder whose stamp is the one prev holds
// holds the entries prev names, a file whose stamp is prev's holds prev's
// content, unless prev found them racy (or their file system stamps only
// whole seconds, which makes every entry racy). Everything else is read:
// the entries of a folder, the content of a file. With no prev, all is.
// It costs a git command of a delivery rotation one lstat per entry of
// the folder where reading it all cost four to six system calls per entry
// (BenchmarkSweep).
func scan(dir string, prev left) (left, error) {
	cur := left{}
	since := time.Now().Add(-racyWindow).UnixNano()
	var walk func(rel, p string) error
	walk = func(rel, p string) error {
		fi, err := os.Lstat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && rel != "" {
				return nil // gone while the walk ran
			}
			return err
		}
		st := stampOf(fi)
		racy := st.ctime >= since || st.mtime >= since || (st.ctime%1e9 == 0 && st.mtime%1e9 == 0) || st.ino == 0
		old, had := prev[rel]
		same := had && !old.racy && old.stamp == st
		switch {
		case fi.IsDir():
			k := kept{dir: true, stamp: st, racy: racy}
			if same && old.dir {
				k.names = old.names
			} else {
				entries, err := os.ReadDir(p)
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				for _, e := range entries {
					k.names = append(k.names, e.Name())
				}
			}
			cur[rel] = k
			for _, name := range k.names {
				child := name
				if rel != "" {
					child = rel + "/" + name
				}
				if err := walk(child, filepath.Join(p, name)); err != nil {
					return err
				}
			}
		case fi.Mode().IsRegular():
			if same && !old.dir && !old.other {
				cur[rel] = old
				return nil
			}
			content, err := safefile.Read(p, maxLeft)
			if err != nil {
				cur[rel] = kept{other: true, stamp: st} // unreadable or too large: not kept
				return nil
			}
			cur[rel] = kept{content: content, stamp: st, racy: racy}
		default:
			cur[rel] = kept{other: true, stamp: st}
		}
		return nil
	}
	return cur, walk("", dir)
}

// sweep makes the git directory dir hold what ralph-ci's git left there
// (l) and nothing else: an entry l does not hold is removed (a folder
// with all it holds), a file whose content changed or that is gone is
// written back, a folder that is gone is made again. It runs before each
// git command, when no process of the agent's lives (see the package
// documentation): what the agent or anyone else put in the folder since
// ralph-ci's last command is gone before git reads it. What it reads of
// the folder is what changed since l was recorded (scan): an entry whose
// stamp is the one recorded is as recorded.
func (l left) sweep(dir string) error {
	cur, err := scan(dir, l)
	if err != nil {
		return err
	}
	var errs []error
	var extra []string
	for rel, c := range cur {
		if rel == "" {
			continue
		}
		want, ok := l[rel]
		switch {
		case !ok || want.other || c.other || c.dir != want.dir:
			extra = append(extra, rel)
		case !c.dir && !bytes.Equal(c.content, want.content):
			extra = append(extra, rel)
		}
	}
	// Remove the outermost first; what is inside a removed folder goes
	// with it.
	sort.Strings(extra)
	removed := map[string]bool{}
	under := func(rel string) bool { // removed, itself or with a folder above
		for ; rel != "."; rel = path.Dir(rel) {
			if removed[rel] {
				return true
			}
		}
		return false
	}
	for _, rel := range extra {
		if !under(rel) {
			removed[rel] = true
			errs = append(errs, os.RemoveAll(filepath.Join(dir, filepath.FromSlash(rel))))
		}
	}
	for rel, want := range l { // what was removed, changed or is gone
		if _, there := cur[rel]; rel == "" || want.other || (there && !under(rel)) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if want.dir {
			errs = append(errs, os.MkdirAll(p, 0o700))
			continue
		}
		errs = append(errs, os.MkdirAll(filepath.Dir(p), 0o700), rewrite(p, want.content))
	}
	return errors.Join(errs...)
}

package git

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// Checkout is a work tree and the git directory it holds, as ralph-ci found
// it (read as data, never as configuration).
type Checkout struct {
	// Top is the top of the work tree.
	Top string
	// GitDir holds HEAD and the index (the work tree's .git, or the folder
	// a .git file names); CommonDir holds the objects and the refs (GitDir,
	// except in a linked work tree).
	GitDir, CommonDir string
}

// Objects is the checkout's object store.
func (c Checkout) Objects() string { return filepath.Join(c.CommonDir, "objects") }

// Index is the checkout's index file.
func (c Checkout) Index() string { return filepath.Join(c.GitDir, "index") }

// Find finds the checkout around dir the way git discovers a repository
// (the nearest folder holding a .git folder or a "gitdir:" file), reading
// only files; ErrNotRepo when there is none.
func Find(dir string) (Checkout, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Checkout{}, err
	}
	for d := abs; ; d = filepath.Dir(d) {
		c, ok, err := checkoutAt(d)
		if err != nil || ok {
			return c, err
		}
		if filepath.Dir(d) == d {
			return Checkout{}, ErrNotRepo
		}
	}
}

// checkoutAt reads top/.git: a folder, or a file naming one.
func checkoutAt(top string) (Checkout, bool, error) {
	dotGit := filepath.Join(top, ".git")
	fi, err := os.Stat(dotGit)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission):
		return Checkout{}, false, nil
	case err != nil:
		return Checkout{}, false, err
	}
	c := Checkout{Top: top, GitDir: dotGit}
	if !fi.IsDir() {
		raw, err := readSmall(dotGit)
		if err != nil {
			return Checkout{}, false, fmt.Errorf("%s: %w", dotGit, err)
		}
		to, ok := strings.CutPrefix(strings.TrimSpace(string(raw)), "gitdir: ")
		if !ok {
			return Checkout{}, false, fmt.Errorf("%s: not a \"gitdir:\" file", dotGit)
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(top, to)
		}
		c.GitDir = filepath.Clean(to)
	}
	if fi, err := os.Stat(filepath.Join(c.GitDir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return Checkout{}, false, nil
	}
	c.CommonDir = c.GitDir
	if raw, err := readSmall(filepath.Join(c.GitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(raw))
		if !filepath.IsAbs(common) {
			common = filepath.Join(c.GitDir, common)
		}
		c.CommonDir = filepath.Clean(common)
	}
	for _, d := range []string{"objects", "refs"} { // as git tells a repository
		if fi, err := os.Stat(filepath.Join(c.CommonDir, d)); err != nil || !fi.IsDir() {
			return Checkout{}, false, nil
		}
	}
	return c, true, nil
}

// readSmall reads a small regular file (at most 64 KiB), refusing
// anything else (a FIFO, a device) so that a planted one cannot hang or
// flood ralph-ci.
func readSmall(path string) ([]byte, error) { return safefile.Read(path, 64<<10) }

// private is ralph-ci's own git directory for one checkout: the one git
// runs with (GIT_DIR), outside the work tree, whose configuration, hooks
// and info files ralph-ci writes itself.
type private struct {
	mu  sync.Mutex
	dir string
	// gitDir and commonDir are the checkout's git directories at the
	// first use: they must not change.
	gitDir, commonDir fs.FileInfo
	// config is the configuration file's content, written before each use.
	config []byte
	// exclude is info/exclude of ralph-ci's git directory: empty (no rule
	// from outside the tree decides what is ignored).
	exclude []byte
	// alternates is the checkout's objects/info/alternates at the first
	// use ("" when none): it must not change.
	alternates []byte
	// head is the checkout's HEAD as last synced both ways.
	head headState
	// left is what ralph-ci and its git left in dir after the last
	// command, and busy the commands running that may write there: the
	// next command sweeps dir back to left when none runs (see sweep).
	left left
	busy int
	// stale tells that left is not yet what the last command left: its
	// record was put off while no untrusted process could run (see
	// Untrusted), and is taken before the next one starts or sweep runs.
	stale bool
	// quiet is the epoch of Untrusted's at which dir last held left (or
	// what only ralph-ci's git wrote since), no untrusted process alive;
	// quietKnown is false when there is none.
	quiet      uint64
	quietKnown bool
	// idLen is the length of the repository's object ids: 64 when its
	// configuration says sha256 at the first use, else 40.
	idLen int
	// held is dir, open and locked while this process lives (see hold);
	// nil where the system has no such lock.
	held *os.File
}

// remove removes p's git directory and lets go of it.
func (p *private) remove() {
	_ = os.RemoveAll(p.dir)
	if p.held != nil {
		_ = p.held.Close()
	}
}

var (
	privMu   sync.Mutex
	privates = map[string]*private{} // by the checkout's top
	baseDir  string                  // SetPrivateDir's
	privBase string                  // the folder the git directories are in
)

// SetPrivateDir sets the folder where ralph-ci's own git directories are
// made (by default the system's temporary folder). Call it before the
// first git command.
func SetPrivateDir(dir string) {
	privMu.Lock()
	defer privMu.Unlock()
	baseDir = dir
}

// Cleanup removes ralph-ci's own git directories. Call it when ralph-ci
// exits, after its last git command.
func Cleanup() {
	privMu.Lock()
	defer privMu.Unlock()
	for k, p := range privates {
		p.remove()
		delete(privates, k)
	}

}

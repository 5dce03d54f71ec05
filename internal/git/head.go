package git

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// headState is where a HEAD points: a branch (sym, "refs/heads/x") and its
// commit (id, "" when unborn), or a detached commit (sym "").
type headState struct{ sym, id string }

// readHead reads HEAD in gitDir and resolves it with the refs of
// commonDir, as data: loose refs, then packed-refs.
func readHead(gitDir, commonDir string) (headState, error) {
	v, symbolic, err := ReadHead(gitDir)
	switch {
	case err != nil:
		return headState{}, fmt.Errorf("read HEAD: %w", err)
	case !symbolic && !IsID(v):
		return headState{}, fmt.Errorf("%s: neither a branch nor a commit id", filepath.Join(gitDir, "HEAD"))
	case !symbolic:
		return headState{id: v}, nil
	case !validRef(v):
		return headState{}, fmt.Errorf("%s: %q is not a branch ralph-ci can follow", filepath.Join(gitDir, "HEAD"), v)
	}
	id, err := ResolveRef(commonDir, v)
	return headState{sym: v, id: id}, err
}

// validRef tells whether ref is a branch name ralph-ci writes as a file:
// under refs/heads/, no component that climbs or hides.
func validRef(ref string) bool {
	rest, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok || rest == "" || strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".lock") {
		return false
	}
	for _, part := range strings.Split(rest, "/") {
		if part == "" || part == "." || part == ".." || strings.HasPrefix(part, ".") {
			return false
		}
	}
	return !strings.ContainsAny(ref, " ~^:?*[\\\x00\n")
}

// IsID tells whether s is a full object id (sha1 or sha256, lowercase).
func IsID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

// writeHead points HEAD in gitDir (and the branch in commonDir) at h.
func writeHead(gitDir, commonDir string, h headState) error {
	if h.sym == "" {
		return WriteHead(gitDir, h.id, false)
	}
	if err := SetRef(commonDir, h.sym, h.id); err != nil {
		return err
	}
	return WriteHead(gitDir, h.sym, true)
}

// syncIn makes ralph-ci's HEAD the checkout's: the agent's commits and
// branch are data ralph-ci then reads (and judges).
func (p *private) syncIn(c Checkout) error {
	h, err := readHead(c.GitDir, c.CommonDir)
	if err != nil {
		return fmt.Errorf("the checkout's HEAD: %w", err)
	}
	if h == p.head {
		return nil
	}
	if err := writeHead(p.dir, p.dir, h); err != nil {
		return err
	}
	p.head = h
	return nil
}

// syncOut gives the checkout what ralph-ci's git changed (a commit, a
// branch checked out, history fetched), so that the next agent sees a
// consistent repository: HEAD, its branch and the shallow list.
func (p *private) syncOut(c Checkout) error {
	h, err := readHead(p.dir, p.dir)
	if err != nil {
		return fmt.Errorf("ralph-ci's HEAD: %w", err)
	}
	if h != p.head {
		if err := writeHead(c.GitDir, c.CommonDir, h); err != nil {
			return fmt.Errorf("update the checkout's HEAD: %w", err)
		}
		p.head = h
	}
	mine, merr := safefile.Read(filepath.Join(p.dir, "shallow"), 64<<20)
	theirs, _ := safefile.ReadIn(c.CommonDir, filepath.Join(c.CommonDir, "shallow"), 64<<20)
	switch {
	case errors.Is(merr, fs.ErrNotExist) && theirs != nil:
		return os.Remove(filepath.Join(c.CommonDir, "shallow"))
	case merr == nil && string(mine) != string(theirs):
		if err := keptIn(c.CommonDir, filepath.Join(c.CommonDir, "shallow")); err != nil {
			return err
		}
		return rewrite(filepath.Join(c.CommonDir, "shallow"), mine)
	}
	return nil
}

// Head is the commit the HEAD of the checkout around dir points at ("" when
// unborn), read as data, as ralph-ci's own git sees it before a command:
// what git rev-parse HEAD prints, without a process. Read it after a
// command of ralph-ci's own (a commit): its HEAD is then the checkout's.
func Head(dir string) (string, error) {
	c, err := Find(dir)
	if err != nil {
		return "", err
	}
	h, err := readHead(c.GitDir, c.CommonDir)
	return h.id, err
}

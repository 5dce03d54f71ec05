package git

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// headState is where a HEAD points: a branch (sym, "refs/heads/x") and its
// commit (id, "" when unborn), or a detached commit (sym "").
type headState struct{ sym, id string }

// readHead reads HEAD in gitDir and resolves it with the refs of
// commonDir, as data: loose refs, then packed-refs.
func readHead(gitDir, commonDir string) (headState, error) {
	raw, err := readSmall(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return headState{}, fmt.Errorf("read HEAD: %w", err)
	}
	v := strings.TrimSpace(string(raw))
	sym, ok := strings.CutPrefix(v, "ref: ")
	if !ok {
		if !isID(v) {
			return headState{}, fmt.Errorf("%s: neither a branch nor a commit id", filepath.Join(gitDir, "HEAD"))
		}
		return headState{id: v}, nil
	}
	if !validRef(sym) {
		return headState{}, fmt.Errorf("%s: %q is not a branch ralph-ci can follow", filepath.Join(gitDir, "HEAD"), sym)
	}
	id, err := resolveRef(commonDir, sym)
	return headState{sym: sym, id: id}, err
}

// resolveRef is the commit of a ref ("" when it does not exist).
func resolveRef(commonDir, ref string) (string, error) {
	raw, err := readSmall(filepath.Join(commonDir, filepath.FromSlash(ref)))
	switch {
	case err == nil:
		v := strings.TrimSpace(string(raw))
		if !isID(v) {
			return "", fmt.Errorf("ref %s holds %q, not a commit id", ref, v)
		}
		return v, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read ref %s: %w", ref, err)
	}
	f, err := os.OpenFile(filepath.Join(commonDir, "packed-refs"), os.O_RDONLY|syscallNonblock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", f.Name())
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		id, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref && isID(id) {
			return id, nil
		}
	}
	return "", sc.Err()
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

// isID tells whether s is a full object id (sha1 or sha256, lowercase).
func isID(s string) bool {
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
	head := h.id + "\n"
	if h.sym != "" {
		head = "ref: " + h.sym + "\n"
		ref := filepath.Join(commonDir, filepath.FromSlash(h.sym))
		if h.id == "" {
			if err := os.Remove(ref); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		} else {
			if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
				return err
			}
			if err := rewrite(ref, []byte(h.id+"\n")); err != nil {
				return err
			}
		}
	}
	return rewrite(filepath.Join(gitDir, "HEAD"), []byte(head))
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
	mine, merr := readLimited(filepath.Join(p.dir, "shallow"), 64<<20)
	theirs, _ := readLimited(filepath.Join(c.CommonDir, "shallow"), 64<<20)
	switch {
	case errors.Is(merr, fs.ErrNotExist) && theirs != nil:
		return os.Remove(filepath.Join(c.CommonDir, "shallow"))
	case merr == nil && string(mine) != string(theirs):
		return rewrite(filepath.Join(c.CommonDir, "shallow"), mine)
	}
	return nil
}

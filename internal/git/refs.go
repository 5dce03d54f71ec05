package git

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// The ref files of a git directory (HEAD, the loose refs under refs/ and
// packed-refs), read as data and written as files, with no git process:
// ralph-ci reads and puts back what an agent left in a checkout's .git
// without running git there. Every read is bounded and refuses what is not
// a regular file (a FIFO the agent planted cannot hang it).

// Bounds of what the ref readers read: HEAD and a loose ref hold an id;
// packed-refs one line per ref.
const (
	refLimit    = 4 << 10
	packedLimit = 64 << 20
	maxRefs     = 100000
)

// ReadHead reads HEAD in gitDir: the ref it names ("refs/heads/x") when
// symbolic, else what it holds (a commit id, unchecked).
func ReadHead(gitDir string) (value string, symbolic bool, err error) {
	// The checkout's git folder is lent to the agent with the tree: no
	// link out of it is followed (ralph-ci may be root).
	raw, err := safefile.ReadIn(gitDir, filepath.Join(gitDir, "HEAD"), refLimit)
	if err != nil {
		return "", false, err
	}
	v := strings.TrimSpace(string(raw))
	if target, ok := strings.CutPrefix(v, "ref: "); ok {
		return target, true, nil
	}
	return v, false, nil
}

// WriteHead points HEAD in gitDir at the ref value (symbolic) or at the
// commit id value, atomically.
func WriteHead(gitDir, value string, symbolic bool) error {
	if symbolic {
		value = "ref: " + value
	}
	p := filepath.Join(gitDir, "HEAD")
	if err := keptIn(gitDir, p); err != nil {
		return err
	}
	return rewrite(p, []byte(value+"\n"))
}

// ResolveRef is the commit of ref in commonDir: its loose file, else its
// line in packed-refs ("" when it is in neither).
func ResolveRef(commonDir, ref string) (string, error) {
	raw, err := safefile.ReadIn(commonDir, filepath.Join(commonDir, filepath.FromSlash(ref)), refLimit)
	switch {
	case err == nil:
		v := strings.TrimSpace(string(raw))
		if !IsID(v) {
			return "", fmt.Errorf("ref %s holds %q, not a commit id", ref, v)
		}
		return v, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("read ref %s: %w", ref, err)
	}
	packed, err := safefile.ReadInOptional(commonDir, filepath.Join(commonDir, "packed-refs"), packedLimit)
	if err != nil {
		return "", err
	}
	sc := packedScanner(packed)
	for sc.Scan() {
		if id, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref && IsID(id) {
			return id, nil
		}
	}
	return "", sc.Err()
}

// Refs reads every ref under refs/ in commonDir with its value: packed-refs,
// then the loose refs (which win). A symbolic ref's value is
// "ref: <target>"; a loose ref that cannot be read has "unreadable: " and
// the reason.
func Refs(commonDir string) (map[string]string, error) {
	refs := map[string]string{}
	packed, err := safefile.ReadInOptional(commonDir, filepath.Join(commonDir, "packed-refs"), packedLimit)
	if err != nil {
		return nil, err
	}
	sc := packedScanner(packed)
	for sc.Scan() {
		if id, name, ok := strings.Cut(sc.Text(), " "); ok && strings.HasPrefix(name, "refs/") {
			refs[name] = id
		}
	}
	tree, err := safefile.OpenTree(commonDir)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	err = filepath.WalkDir(filepath.Join(commonDir, "refs"), func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case d.IsDir():
			return nil
		case len(refs) > maxRefs:
			return fmt.Errorf("more than %d refs", maxRefs)
		}
		rel, err := filepath.Rel(commonDir, p)
		if err != nil {
			return err
		}
		raw, err := tree.Read(p, refLimit)
		if err != nil {
			refs[filepath.ToSlash(rel)] = "unreadable: " + err.Error()
			return nil
		}
		refs[filepath.ToSlash(rel)] = strings.TrimSpace(string(raw))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return refs, nil
}

// packedScanner scans the lines of packed-refs.
func packedScanner(packed []byte) *bufio.Scanner {
	sc := bufio.NewScanner(bytes.NewReader(packed))
	sc.Buffer(make([]byte, 4096), 64<<10)
	return sc
}

// SetRef writes ref in commonDir as a loose ref holding value (which wins
// over packed-refs), atomically; an empty value deletes it, from
// packed-refs too. Only a ref that SafeRef accepts is written.
func SetRef(commonDir, ref, value string) error {
	if !SafeRef(ref) {
		return fmt.Errorf("ref %q: not a ref ralph-ci writes", ref)
	}
	p := filepath.Join(commonDir, filepath.FromSlash(ref))
	if err := keptIn(commonDir, p); err != nil {
		return err
	}
	if value != "" {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return rewrite(p, []byte(value+"\n"))
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return unpack(commonDir, ref)
}

// unpack removes ref (and its peeled line) from packed-refs.
func unpack(commonDir, ref string) error {
	path := filepath.Join(commonDir, "packed-refs")
	raw, err := safefile.ReadInOptional(commonDir, path, packedLimit)
	if err != nil || raw == nil {
		return err
	}
	var out bytes.Buffer
	skip, changed := false, false
	for _, line := range strings.SplitAfter(string(raw), "\n") {
		if strings.HasPrefix(line, "^") && skip {
			continue
		}
		_, name, _ := strings.Cut(strings.TrimSpace(line), " ")
		skip = name == ref
		if skip {
			changed = true
			continue
		}
		out.WriteString(line)
	}
	if !changed {
		return nil
	}
	if err := keptIn(commonDir, path); err != nil {
		return err
	}
	return rewrite(path, out.Bytes())
}

// keptIn refuses a write at path, below the git folder dir, when a
// symbolic link on its way (its folder, or dir itself) leads out of dir
// or is its folder: the checkout's git folder is lent to the agent with
// the tree, and ralph-ci may be root. (The file itself may be a link:
// rewrite replaces it by a rename.) The agent's processes are gone when
// ralph-ci writes there, so the check holds until the write.
func keptIn(dir, path string) error {
	if err := safefile.Inside(dir, filepath.Dir(path)); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// SafeRef tells whether ref names a file under refs/ that stays there.
func SafeRef(ref string) bool {
	rest, ok := strings.CutPrefix(ref, "refs/")
	if !ok || rest == "" || strings.Contains(ref, "\x00") {
		return false
	}
	for _, part := range strings.Split(rest, "/") {
		if part == "" || part == "." || part == ".." {
			return false
		}
	}
	return true
}

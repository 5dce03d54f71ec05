package gitstate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// Restore puts the checkout's git directories (see Read) back where after (what the agent
// left) differs from before, as files, with no git process: it removes
// the markers of operations in progress and the index lock, points HEAD
// back (and the loop's branch, when it no longer descends from where it
// was: the agent's own commits on it stay), and sets every other ref back
// (deleting those the agent created). No agent process is alive then (the
// shepherd stopped them), so nothing races it. resetTree tells that the
// index and work tree no longer belong to HEAD (an operation was in
// progress, HEAD or its branch moved): the caller resets them to HEAD.
func Restore(gitDir, commonDir string, before, after Snapshot, descends Descends) (resetTree bool, err error) {
	var errs []error
	for _, o := range ops {
		if _, err := os.Lstat(filepath.Join(gitDir, o.file)); err == nil {
			resetTree = true
			errs = append(errs, os.RemoveAll(filepath.Join(gitDir, o.file)))
		}
	}
	if resetTree {
		for _, f := range opLeftovers {
			if err := os.Remove(filepath.Join(gitDir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if after.Lock {
		if err := os.Remove(filepath.Join(gitDir, "index.lock")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if before.Head != after.Head || before.Symbolic != after.Symbolic {
		resetTree = true
		head := before.Head
		if before.Symbolic {
			head = "ref: " + head
		}
		errs = append(errs, writeFile(filepath.Join(gitDir, "HEAD"), head))
	}
	if before.Symbolic && movedFrom(before, Snapshot{Head: before.Head, Symbolic: true, Refs: after.Refs}, descends) != "" {
		resetTree = true
		errs = append(errs, setRef(commonDir, before.Head, before.Tip()))
	}
	for _, r := range changedRefs(before, after) {
		errs = append(errs, setRef(commonDir, r, before.Refs[r]))
	}
	if err := errors.Join(errs...); err != nil {
		return resetTree, fmt.Errorf("restore the checkout's .git: %w", err)
	}
	return resetTree, nil
}

// setRef writes ref with value as a loose ref (which wins over
// packed-refs); an empty value deletes it, from packed-refs too.
func setRef(gitDir, ref, value string) error {
	if !safeRef(ref) {
		return fmt.Errorf("ref %q: not a ref ralph-ci writes", ref)
	}
	p := filepath.Join(gitDir, filepath.FromSlash(ref))
	if value != "" {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return writeFile(p, value)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return unpack(gitDir, ref)
}

// unpack removes ref (and its peeled line) from packed-refs.
func unpack(gitDir, ref string) error {
	path := filepath.Join(gitDir, "packed-refs")
	raw, err := safefile.ReadOptional(path, packedLimit)
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
	return writeFile(path, strings.TrimSuffix(out.String(), "\n"))
}

// safeRef tells whether ref names a file under refs/ that stays there.
func safeRef(ref string) bool {
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

// writeFile replaces path with content and a newline, atomically.
func writeFile(path, content string) error {
	tmp := path + ".ralph-ci.tmp"
	if err := os.WriteFile(tmp, []byte(content+"\n"), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

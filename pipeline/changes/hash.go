package changes

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/ralph-ci/ralph-ci/internal/git"
	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// Object formats a repository can use, as git rev-parse --show-object-format
// names them.
const (
	formatSHA1   = "sha1"
	formatSHA256 = "sha256"
)

// idLen returns the length of the object ids of a format, in hex digits.
func idLen(format string) (int, error) {
	switch format {
	case formatSHA1, "":
		return sha1.Size * 2, nil
	case formatSHA256:
		return sha256.Size * 2, nil
	}
	return 0, fmt.Errorf("unsupported git object format %q", format)
}

// emptyTree returns the id of the empty tree in the object format whose ids
// have the same length as id.
func emptyTree(id string) string {
	if len(id) == sha256.Size*2 {
		return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
	}
	return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
}

// isZeroID reports whether id is git's all-zero id, which means "no object".
func isZeroID(id string) bool {
	return id != "" && bytes.Count([]byte(id), []byte{'0'}) == len(id)
}

// hashPath returns the blob id of the file at path: its content, or its target
// when it is a symbolic link. It returns "" when nothing git could track is
// there: no file, a directory, or a special file.
func hashPath(tree *safefile.Tree, n int, path string) (string, error) {
	for range 3 {
		id, again, err := hashOnce(tree, n, path)
		if !again {
			return id, err
		}
		// The file changed while we read it: read it again.
	}
	return "", fmt.Errorf("hash %s: it kept changing while it was read", path)
}

// hashOnce is one try of hashPath: again when the file changed while it
// was read (grew, or became a link).
func hashOnce(tree *safefile.Tree, n int, path string) (id string, again bool, err error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return "", false, nil
	case err != nil:
		return "", false, err
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return "", false, err
		}
		return git.ObjectID("blob", []byte(filepath.ToSlash(target)), n), false, nil
	case !fi.Mode().IsRegular():
		return "", false, nil
	}
	// Opened non-blocking, through no link out of the tree (the agent may
	// have put one since the Lstat), and read no further than its size:
	// whatever replaced the file since (a FIFO, a file that keeps
	// growing) never blocks nor grows the read.
	f, fi, err := tree.Open(path)
	switch {
	case errors.Is(err, safefile.ErrLeavesTree):
		return "", true, nil // a link now: hashed as one
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, safefile.ErrNotRegular):
		return "", false, nil
	case err != nil:
		return "", false, err
	}
	defer f.Close()
	h := git.NewObjectHash("blob", fi.Size(), n)
	read, err := io.Copy(h, io.LimitReader(f, fi.Size()+1))
	if err != nil {
		return "", false, err
	}
	return hex.EncodeToString(h.Sum(nil)), read != fi.Size(), nil
}

// hashFiles hashes the files at the slash-separated paths relative to root,
// spreading the work over the available CPUs. The result maps each path to its
// blob id, "" for paths with no file.
func hashFiles(ctx context.Context, root, format string, paths []string) (map[string]string, error) {
	n, err := idLen(format)
	if err != nil {
		return nil, err
	}
	tree, err := safefile.OpenTree(root)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	ids := make([]string, len(paths))
	errs := make([]error, len(paths))
	workers := min(runtime.GOMAXPROCS(0), (len(paths)+15)/16)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(paths) || ctx.Err() != nil {
					return
				}
				ids[i], errs[i] = hashPath(tree, n, filepath.Join(root, filepath.FromSlash(paths[i])))
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(paths))
	for i, p := range paths {
		if errs[i] != nil {
			return nil, fmt.Errorf("hash %s: %w", filepath.Join(root, filepath.FromSlash(p)), errs[i])
		}
		out[p] = ids[i]
	}
	return out, nil
}

// digest returns one id standing for a whole map of path to id.
func digest(files map[string]string) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha1.New()
	for _, p := range paths {
		h.Write([]byte(p + "\x00" + files[p] + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

package git

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Store writes objects into the object store of a checkout, as loose
// objects, with no git process: ralph-ci's state commit of a delivery
// rotation (its files, trees and commit) is written this way. One git
// fast-import wrote it before, and fast-import hands a pack of fewer than
// 100 objects to a git unpack-objects of its own: two processes, about 6 ms
// of a delivery rotation's 45 (bench/delivery.sh, perf), where writing the
// few objects here costs a tenth of a millisecond.
//
// A loose object's file is named by the hash of its content and holds it
// compressed, whatever the repository's configuration says. Its folder is
// made again if it is not a folder (a link the agent planted there is not
// followed), and the file is written beside and renamed into place.
type Store struct {
	objects string // the checkout's object store
	idLen   int    // 40 (sha1) or 64 (sha256)
}

// OpenStore is the object store of the checkout around dir, in its object
// format (as ralph-ci read it from the checkout's configuration at the
// first use, see Open).
func OpenStore(dir string) (*Store, error) {
	c, err := Find(dir)
	if err != nil {
		return nil, err
	}
	p, err := privateFor(c)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(c.Objects()); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not the folder of the repository's objects", c.Objects())
	}
	return &Store{objects: c.Objects(), idLen: p.idLen}, nil
}

// Write writes an object of type typ ("blob", "tree", "commit") and
// returns its id. An object already in the store (a file at its name) is
// not written again, as git does: a file there the agent put with other
// content makes the push fail (origin checks every object against its id),
// it cannot change what the id names.
func (s *Store) Write(typ string, content []byte) (string, error) {
	id := ObjectID(typ, content, s.idLen)
	dir := filepath.Join(s.objects, id[:2])
	fi, err := os.Lstat(dir)
	switch {
	case err == nil && !fi.IsDir():
		if err := os.Remove(dir); err != nil {
			return "", fmt.Errorf("write object %s: %w", id, err)
		}
		fallthrough
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("write object %s: %w", id, err)
		}
	case err != nil:
		return "", fmt.Errorf("write object %s: %w", id, err)
	}
	file := filepath.Join(dir, id[2:])
	if fi, err := os.Lstat(file); err == nil && fi.Mode().IsRegular() {
		return id, nil
	}
	var z bytes.Buffer
	w := zlibs.Get().(*zlib.Writer) // a new one allocates about 1 MB
	defer zlibs.Put(w)
	w.Reset(&z)
	fmt.Fprintf(w, "%s %d\x00", typ, len(content))
	_, _ = w.Write(content)
	if err := w.Close(); err != nil {
		return "", err
	}
	if err := writeAtomic(file, z.Bytes()); err != nil {
		return "", fmt.Errorf("write object %s: %w", id, err)
	}
	return id, nil
}

// zlibs are compressors at git's level for loose objects
// (core.looseCompression: the fastest).
var zlibs = sync.Pool{New: func() any {
	w, _ := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	return w
}}

// Files writes a tree holding files (slash-separated paths, regular files
// of mode 100644, with the folders their paths name) and returns its id.
// A path with an empty, "." or ".." part is refused.
func (s *Store) Files(files map[string][]byte) (string, error) {
	type entry struct {
		name, mode, id string
	}
	var write func(prefix string) (string, error)
	write = func(prefix string) (string, error) {
		var entries []entry
		subdirs := map[string]bool{}
		for p, content := range files {
			rest, ok := strings.CutPrefix(p, prefix)
			if !ok {
				continue
			}
			name, _, isDir := strings.Cut(rest, "/")
			if name == "" || name == "." || name == ".." || path.Clean(p) != p {
				return "", fmt.Errorf("write a tree: %q is not a path of a file", p)
			}
			if isDir {
				subdirs[name] = true
				continue
			}
			id, err := s.Write("blob", content)
			if err != nil {
				return "", err
			}
			entries = append(entries, entry{name, "100644", id})
		}
		for name := range subdirs {
			id, err := write(prefix + name + "/")
			if err != nil {
				return "", err
			}
			entries = append(entries, entry{name, "40000", id})
		}
		// git's order: by name, a folder's name as if it ended with "/".
		key := func(e entry) string {
			if e.mode == "40000" {
				return e.name + "/"
			}
			return e.name
		}
		sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
		var raw bytes.Buffer
		for i, e := range entries {
			if i > 0 && entries[i-1].name == e.name {
				return "", fmt.Errorf("write a tree: %s%s is both a file and a folder", prefix, e.name)
			}
			raw.WriteString(e.mode + " " + e.name + "\x00")
			bin, _ := hex.DecodeString(e.id)
			raw.Write(bin)
		}
		return s.Write("tree", raw.Bytes())
	}
	return write("")
}

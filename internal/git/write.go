package git

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"crypto/sha256"
	bin "encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Store writes objects into the object store of a checkout with no git
// process: ralph-ci's state commit of a delivery rotation (its files,
// trees and commit) is written this way. One git fast-import wrote it
// before, and fast-import hands a pack of fewer than 100 objects to a git
// unpack-objects of its own: two processes, about 6 ms of a delivery
// rotation (bench/delivery.sh, perf).
//
// The objects go into one pack (with its index) per Flush, not one file
// each: on the ext4 of a machine that deletes files all day, making a
// file costs 0.5 to 2 ms of CPU (the kernel's search for a free inode,
// recently_deleted), and a state commit's four or more loose objects made
// four files and about as many object folders a rotation. perf of
// bench/delivery.sh, 41 rotations: the inode search took 239 of ralph-ci's
// 1412 samples with loose objects, 75 of 943 with a pack; the median CPU
// per rotation went from 56 to 53 ms on a loaded machine (paired runs).
// Each pack holds every object of what was written since the last Flush
// (a whole state commit): RemovePack takes away a pack no longer needed
// without taking an object another one needs.
//
// The pack folder is made again if it is not a folder (a link the agent
// planted there is not followed), and each file is written beside and
// renamed into place, the index last: git reads no pack without one.
type Store struct {
	objects string // the checkout's object store
	idLen   int    // 40 (sha1) or 64 (sha256)
	pending []object
	seen    map[string]bool
}

// object is one object of a pack to write.
type object struct {
	id      string
	typ     byte // a pack's object type: 1 commit, 2 tree, 3 blob
	content []byte
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
	return &Store{objects: c.Objects(), idLen: p.idLen, seen: map[string]bool{}}, nil
}

// packTypes are the pack's numbers of the object types Store writes.
var packTypes = map[string]byte{"commit": 1, "tree": 2, "blob": 3}

// Write adds an object of type typ ("blob", "tree", "commit") to the pack
// the next Flush writes, and returns its id.
func (s *Store) Write(typ string, content []byte) (string, error) {
	t, ok := packTypes[typ]
	if !ok {
		return "", fmt.Errorf("write an object of type %q: not one ralph-ci writes", typ)
	}
	id := ObjectID(typ, content, s.idLen)
	if !s.seen[id] {
		s.seen[id] = true
		s.pending = append(s.pending, object{id: id, typ: t, content: content})
	}
	return id, nil
}

// Flush writes the objects written since the last Flush as one pack and
// its index, and returns the pack's path without its extension ("" when
// there was nothing to write).
func (s *Store) Flush() (string, error) {
	objs := s.pending
	s.pending, s.seen = nil, map[string]bool{}
	if len(objs) == 0 {
		return "", nil
	}
	dir := filepath.Join(s.objects, "pack")
	fi, err := os.Lstat(dir)
	switch {
	case err == nil && !fi.IsDir():
		if err := os.Remove(dir); err != nil {
			return "", fmt.Errorf("write a pack: %w", err)
		}
		fallthrough
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("write a pack: %w", err)
		}
	case err != nil:
		return "", fmt.Errorf("write a pack: %w", err)
	}
	pack, idx, sum, err := encodePack(objs, s.idLen)
	if err != nil {
		return "", err
	}
	base := filepath.Join(dir, "pack-"+sum)
	if err := place(filepath.Join(dir, spares[".pack"]), base+".pack", pack); err != nil {
		return "", fmt.Errorf("write a pack: %w", err)
	}
	if err := place(filepath.Join(dir, spares[".idx"]), base+".idx", idx); err != nil {
		_ = os.Remove(base + ".pack")
		return "", fmt.Errorf("write a pack's index: %w", err)
	}
	return base, nil
}

// RemovePack takes away a pack Flush wrote (its index first, so that git
// never sees a pack half gone): its files become the spares the next
// Flush writes into (see place), and are removed where they cannot.
func (s *Store) RemovePack(base string) error {
	name := filepath.Base(base)
	if filepath.Dir(base) != filepath.Join(s.objects, "pack") || !strings.HasPrefix(name, "pack-") || !IsID(name[len("pack-"):]) {
		return fmt.Errorf("%s is not a pack ralph-ci wrote", base)
	}
	for _, ext := range []string{".idx", ".pack"} {
		if canSpare && os.Rename(base+ext, filepath.Join(filepath.Dir(base), spares[ext])) == nil {
			continue
		}
		if err := os.Remove(base + ext); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// DropSpares removes the spares (the end of a run: see place).
func (s *Store) DropSpares() error {
	var errs []error
	for _, name := range spares {
		if err := os.Remove(filepath.Join(s.objects, "pack", name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// spares name, in the pack folder, the files of the last pack RemovePack
// took away. git reads no file there but a pack and its index, and its
// gc removes a tmp_ file it finds there two weeks old (git prune).
var spares = map[string]string{".pack": "tmp_pack_ralph-ci-spare", ".idx": "tmp_idx_ralph-ci-spare"}

// place makes path hold content: written into the file spare and renamed
// to path when spare is one (see reuse), else written beside path and
// renamed (writeAtomic). A state commit's pack is two new files a
// delivery rotation, and on the ext4 of a machine that deletes files all
// day making a file costs about 1 ms of CPU (the kernel's search for a
// free inode, recently_deleted): the pack of the rotation before is
// written again instead. perf of a bench/delivery.sh job of 41
// rotations, in turn with the build before: Flush took 593 and 738 of
// about 26,000 samples, 286 and 304 with the spares (the inode search
// under it 260 and 425, then 15 and 0).
func place(spare, path string, content []byte) error {
	if reuse(spare, content) == nil && os.Rename(spare, path) == nil {
		return nil
	}
	return writeAtomic(path, content)
}

// encodePack is objs as a pack (version 2, every object whole) and its
// index (version 2), and the pack's checksum in hex, which names both.
func encodePack(objs []object, idLen int) (pack, idx []byte, sum string, err error) {
	newHash := sha1.New
	if idLen == 64 {
		newHash = sha256.New
	}
	var p bytes.Buffer
	p.WriteString("PACK")
	_ = bin.Write(&p, bin.BigEndian, [2]uint32{2, uint32(len(objs))})
	type entry struct {
		id     []byte
		crc    uint32
		offset uint32
	}
	entries := make([]entry, 0, len(objs))
	var w *zlib.Writer
	for _, o := range objs {
		if w == nil && len(o.content) > maxStored {
			w = zlibs.Get().(*zlib.Writer)
			defer zlibs.Put(w)
		}
		start := p.Len()
		if start >= 1<<31 {
			return nil, nil, "", fmt.Errorf("write a pack: over 2 GB")
		}
		size := uint64(len(o.content))
		b := o.typ<<4 | byte(size&0x0f)
		for size >>= 4; size > 0; size >>= 7 {
			p.WriteByte(b | 0x80)
			b = byte(size & 0x7f)
		}
		p.WriteByte(b)
		if len(o.content) <= maxStored {
			stored(&p, o.content)
		} else {
			w.Reset(&p)
			_, _ = w.Write(o.content)
			if err := w.Close(); err != nil {
				return nil, nil, "", err
			}
		}
		id, _ := hex.DecodeString(o.id)
		entries = append(entries, entry{id: id, crc: crc32.ChecksumIEEE(p.Bytes()[start:]), offset: uint32(start)})
	}
	h := newHash()
	h.Write(p.Bytes())
	packSum := h.Sum(nil)
	p.Write(packSum)

	sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].id, entries[j].id) < 0 })
	var x bytes.Buffer
	x.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fanout [256]uint32
	for _, e := range entries {
		for i := int(e.id[0]); i < 256; i++ {
			fanout[i]++
		}
	}
	_ = bin.Write(&x, bin.BigEndian, fanout)
	for _, e := range entries {
		x.Write(e.id)
	}
	for _, e := range entries {
		_ = bin.Write(&x, bin.BigEndian, e.crc)
	}
	for _, e := range entries {
		_ = bin.Write(&x, bin.BigEndian, e.offset)
	}
	x.Write(packSum)
	h = newHash()
	h.Write(x.Bytes())
	x.Write(h.Sum(nil))
	return p.Bytes(), x.Bytes(), hex.EncodeToString(packSum), nil
}

// maxStored is the largest object a pack holds stored, its zlib stream
// uncompressed: the state's files are a few kB, for which deflate's
// Huffman tables cost more than the bytes they save (encodePack spent
// 0.75 ms of a 53 ms delivery rotation compressing, perf of
// bench/delivery.sh).
const maxStored = 16 << 10

// stored writes content to p as a zlib stream of stored deflate blocks:
// the header (deflate, 32 kB window, no dictionary, check bits), blocks
// of at most 65,535 bytes (the last one flagged), the Adler-32 checksum.
func stored(p *bytes.Buffer, content []byte) {
	sum := adler32.Checksum(content)
	p.Write([]byte{0x78, 0x01})
	for first := true; first || len(content) > 0; first = false {
		n := min(len(content), 0xffff)
		final := byte(0)
		if n == len(content) {
			final = 1
		}
		p.Write([]byte{final, byte(n), byte(n >> 8), ^byte(n), ^byte(n >> 8)})
		p.Write(content[:n])
		content = content[n:]
	}
	_ = bin.Write(p, bin.BigEndian, sum)
}

// zlibs are compressors at git's level for loose objects
// (core.looseCompression: the fastest); a new one allocates about 1 MB.
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

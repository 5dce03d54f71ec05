package git

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	be "encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"

	"github.com/ralph-ci/ralph-ci/internal/safefile"
)

// IndexEntry is one entry of a checkout's index, as git ls-files --stage
// -v shows it.
type IndexEntry struct {
	// Path is slash-separated, from the top of the work tree.
	Path string
	// Mode is the octal mode git prints ("100644", "160000"…).
	Mode string
	// ID is the content's object id.
	ID string
	// Stage is 0, or 1 to 3 for the sides of a conflict.
	Stage int
	// AssumeUnchanged and SkipWorktree are the flags git update-index
	// sets, with which git status skips the file's work tree content.
	AssumeUnchanged, SkipWorktree bool
	// IntentToAdd is git add -N's flag: the path is known, its content
	// not staged.
	IntentToAdd bool
}

// ErrIndexUnsupported means the index uses a feature ReadIndex does not
// read (a split or sparse index, an unknown version or extension git
// requires): the caller asks git instead.
var ErrIndexUnsupported = errors.New("index format not read by ralph-ci")

// maxIndex bounds the index ReadIndex reads (git's of a very large work
// tree is a few hundred MB; the caller then asks git).
const maxIndex = 64 << 20

// ReadIndex reads the index of the checkout around dir, whose object ids
// are idLen hex digits long (40 or 64), as data: what git ls-files -z -v
// --stage lists, in the index's order, without a process. A missing index
// is an empty one. ErrIndexUnsupported (or any error) means the caller
// asks git: the index is in the agent's reach, and ralph-ci reads only
// what it reads exactly as git does, checksum included.
func ReadIndex(dir string, idLen int) ([]IndexEntry, error) {
	c, err := Find(dir)
	if err != nil {
		return nil, err
	}
	// Through the git folder without following a link out of it: the
	// agent, lent the tree, may have made the index a link to a file only
	// ralph-ci's user (root) can read.
	raw, err := safefile.ReadInOptional(c.GitDir, c.Index(), maxIndex)
	if err != nil || raw == nil {
		return nil, err
	}
	return parseIndex(raw, idLen)
}

// parseIndex reads an index file (git's gitformat-index: versions 2 to 4,
// optional extensions skipped, the trailing checksum verified unless it is
// all zeros, as git's index.skipHash writes it).
func parseIndex(raw []byte, idLen int) ([]IndexEntry, error) {
	idBytes := idLen / 2
	var sum hash.Hash = sha1.New()
	if idLen == sha256.Size*2 {
		sum = sha256.New()
	} else if idLen != sha1.Size*2 {
		return nil, fmt.Errorf("%w: object ids of %d digits", ErrIndexUnsupported, idLen)
	}
	if len(raw) < 12+idBytes || string(raw[:4]) != "DIRC" {
		return nil, errors.New("not an index file")
	}
	body, trailer := raw[:len(raw)-idBytes], raw[len(raw)-idBytes:]
	if !allZero(trailer) {
		sum.Write(body)
		if !bytes.Equal(sum.Sum(nil), trailer) {
			return nil, errors.New("index file corrupt: bad checksum")
		}
	}
	version := be.BigEndian.Uint32(raw[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("%w: version %d", ErrIndexUnsupported, version)
	}
	count := be.BigEndian.Uint32(raw[8:12])
	// The smallest entry: its stat data, id, flags, a one-byte path and
	// its NUL. The count is the agent's to write: it bounds nothing
	// allocated until the file could hold that many.
	if uint64(count) > uint64(len(body))/uint64(40+idBytes+2+2) {
		return nil, errors.New("index file corrupt: entry count")
	}
	entries := make([]IndexEntry, 0, count)
	off := 12
	prev := ""
	const stat = 40 // ctime, mtime, dev, ino, mode, uid, gid, size
	for i := uint32(0); i < count; i++ {
		start := off
		if off+stat+idBytes+2 > len(body) {
			return nil, errors.New("index file corrupt: truncated entry")
		}
		mode := be.BigEndian.Uint32(body[off+24 : off+28])
		id := hex.EncodeToString(body[off+stat : off+stat+idBytes])
		flags := be.BigEndian.Uint16(body[off+stat+idBytes:])
		off += stat + idBytes + 2
		var ext uint16
		if flags&0x4000 != 0 { // extended
			if version < 3 || off+2 > len(body) {
				return nil, errors.New("index file corrupt: extended flags")
			}
			ext = be.BigEndian.Uint16(body[off:])
			off += 2
		}
		var path string
		if version == 4 {
			strip, n := indexVarint(body[off:])
			if n <= 0 || strip > uint64(len(prev)) {
				return nil, errors.New("index file corrupt: path prefix")
			}
			off += n
			end := bytes.IndexByte(body[off:], 0)
			if end < 0 {
				return nil, errors.New("index file corrupt: path")
			}
			path = prev[:len(prev)-int(strip)] + string(body[off:off+end])
			off += end + 1
		} else {
			end := bytes.IndexByte(body[off:], 0)
			if end < 0 {
				return nil, errors.New("index file corrupt: path")
			}
			path = string(body[off : off+end])
			// Entries are padded with 1 to 8 NULs to a multiple of 8.
			off = start + (off+end-start+8)&^7
			if off > len(body) {
				return nil, errors.New("index file corrupt: padding")
			}
		}
		if path == "" || mode&0o170000 == 0o040000 { // a sparse index's folder
			return nil, fmt.Errorf("%w: sparse index", ErrIndexUnsupported)
		}
		prev = path
		entries = append(entries, IndexEntry{
			Path: path, Mode: fmt.Sprintf("%06o", mode), ID: id, Stage: int(flags>>12) & 3,
			AssumeUnchanged: flags&0x8000 != 0, SkipWorktree: ext&0x4000 != 0, IntentToAdd: ext&0x2000 != 0,
		})
	}
	// Extensions: a signature of 4 bytes and a size; one whose signature
	// starts with a lower-case letter must be understood (a split index's
	// "link", a sparse index's "sdir"), the others may be skipped.
	for off+8 <= len(body) {
		sig := body[off : off+4]
		size := be.BigEndian.Uint32(body[off+4 : off+8])
		if sig[0] >= 'a' && sig[0] <= 'z' {
			return nil, fmt.Errorf("%w: extension %q", ErrIndexUnsupported, sig)
		}
		if uint64(size) > uint64(len(body)-off-8) {
			return nil, errors.New("index file corrupt: extension size")
		}
		off += 8 + int(size)
	}
	if off != len(body) {
		return nil, errors.New("index file corrupt: trailing bytes")
	}
	return entries, nil
}

// indexVarint reads the offset encoding of git's varint.c (index v4's
// prefix lengths): big-endian groups of 7 bits, each continuation adding
// one. n is 0 when it does not end in b or overflows.
func indexVarint(b []byte) (v uint64, n int) {
	for i, c := range b {
		if i > 0 {
			if v >= 1<<56 {
				return 0, 0
			}
			v = (v + 1) << 7
		}
		v |= uint64(c & 0x7f)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

package agentuser

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"golang.org/x/sys/unix"
)

// The POSIX ACL extended attribute (<linux/posix_acl_xattr.h>).
const (
	aclXattr   = "system.posix_acl_access"
	aclVersion = 2
	aclUserObj = 0x01
	aclUser    = 0x02
	aclGroupO  = 0x04
	aclGroup   = 0x08
	aclMask    = 0x10
	aclOther   = 0x20
	aclNoID    = 0xffffffff
)

type aclEntry struct {
	tag, perm uint16
	id        uint32
}

// grant is a search-only ACL entry given to a folder.
type grant struct {
	dir string
}

// searchable gives uid (of group gid) a way down to each path: every
// folder from / to the path (the path included when it is a folder) that
// uid may not search gets a search-only ACL entry. Folders it may search
// already are left alone. It returns the grants made.
func searchable(uid, gid int, paths ...string) ([]grant, error) {
	seen := map[string]bool{}
	var grants []grant
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // a PATH folder that does not exist
		}
		var chain []string
		for d := real; ; d = filepath.Dir(d) {
			chain = append(chain, d)
			if d == "/" {
				break
			}
		}
		for i := len(chain) - 1; i >= 0; i-- {
			d := chain[i]
			if seen[d] {
				continue
			}
			seen[d] = true
			var st unix.Stat_t
			if unix.Stat(d, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || canSearch(st, uid, gid) {
				continue
			}
			g, err := grantSearch(d, st.Mode, uid)
			if err != nil {
				return grants, fmt.Errorf("the agent's user cannot reach %s (folder %s, mode %o): %w", p, d, st.Mode&0o7777, err)
			}
			grants = append(grants, g)
		}
	}
	return grants, nil
}

// canSearch tells whether uid, of group gid, may search the folder st by
// its mode (an ACL of its own is not read: a grant then adds to it).
func canSearch(st unix.Stat_t, uid, gid int) bool {
	switch {
	case int(st.Uid) == uid:
		return st.Mode&0o100 != 0
	case int(st.Gid) == gid:
		return st.Mode&0o010 != 0
	}
	return st.Mode&0o001 != 0
}

// grantSearch adds a search-only entry for uid to dir's ACL.
func grantSearch(dir string, mode uint32, uid int) (grant, error) {
	g := grant{dir: dir}
	entries, err := readACL(dir)
	switch {
	case errors.Is(err, unix.ENODATA):
		entries = []aclEntry{
			{aclUserObj, uint16(mode >> 6 & 7), aclNoID},
			{aclGroupO, uint16(mode >> 3 & 7), aclNoID},
			{aclOther, uint16(mode & 7), aclNoID},
		}
	case err != nil:
		return g, err
	}
	found := false
	for i, e := range entries {
		if e.tag == aclUser && e.id == uint32(uid) {
			entries[i].perm |= 1
			found = true
		}
	}
	if !found {
		entries = append(entries, aclEntry{aclUser, 1, uint32(uid)})
	}
	var mask uint16
	hasMask := false
	for _, e := range entries {
		switch e.tag {
		case aclUser, aclGroupO, aclGroup:
			mask |= e.perm
		case aclMask:
			hasMask = true
		}
	}
	if hasMask {
		for i := range entries {
			if entries[i].tag == aclMask {
				entries[i].perm |= 1
			}
		}
	} else {
		entries = append(entries, aclEntry{aclMask, mask, aclNoID})
	}
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].tag != entries[j].tag {
			return entries[i].tag < entries[j].tag
		}
		return entries[i].id < entries[j].id
	})
	if err := unix.Setxattr(dir, aclXattr, encodeACL(entries), 0); err != nil {
		return g, fmt.Errorf("setting an ACL entry: %w", err)
	}
	return g, nil
}

func getXattr(p string) ([]byte, error) {
	n, err := unix.Getxattr(p, aclXattr, nil)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	n, err = unix.Getxattr(p, aclXattr, buf)
	return buf[:n], err
}

func readACL(p string) ([]aclEntry, error) {
	raw, err := getXattr(p)
	if err != nil {
		return nil, err
	}
	if len(raw) < 4 || binary.LittleEndian.Uint32(raw) != aclVersion || (len(raw)-4)%8 != 0 {
		return nil, fmt.Errorf("an ACL of a version ralph-ci does not read")
	}
	var out []aclEntry
	for b := raw[4:]; len(b) >= 8; b = b[8:] {
		out = append(out, aclEntry{binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[2:]), binary.LittleEndian.Uint32(b[4:])})
	}
	return out, nil
}

func encodeACL(entries []aclEntry) []byte {
	b := binary.LittleEndian.AppendUint32(nil, aclVersion)
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint16(b, e.tag)
		b = binary.LittleEndian.AppendUint16(b, e.perm)
		b = binary.LittleEndian.AppendUint32(b, e.id)
	}
	return b
}

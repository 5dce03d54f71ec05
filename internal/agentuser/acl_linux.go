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

// grant is a search-only ACL entry given to a folder: Made when the
// entry is ralph-ci's (else search was added to an entry there), Mask
// when search was added to the ACL's mask.
type grant struct {
	dir        string
	made, mask bool
}

// searchable gives uid (of group gid) a way down to each path: every
// folder from / to the path (the path included when it is a folder) that
// uid may not search gets a search-only ACL entry. Folders it may search
// already are left alone. note is told of each grant before it is made
// (a run killed in between leaves it noted); searchable returns the
// grants made.
func searchable(uid, gid int, note func(grant) error, paths ...string) ([]grant, error) {
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
			g, changed, err := grantSearch(d, st.Mode, uid, note)
			if err != nil {
				return grants, fmt.Errorf("the agent's user cannot reach %s (folder %s, mode %o): %w", p, d, st.Mode&0o7777, err)
			}
			if changed {
				grants = append(grants, g)
			}
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

// grantSearch adds a search-only entry for uid to dir's ACL (dir's
// mode is mode), noted first. changed is false when the entry could
// search already.
func grantSearch(dir string, mode uint32, uid int, note func(grant) error) (g grant, changed bool, err error) {
	g = grant{dir: dir}
	entries, err := readACL(dir)
	switch {
	case errors.Is(err, unix.ENODATA):
		entries = minimalACL(mode)
	case err != nil:
		return g, false, err
	}
	entries, g.made, g.mask, changed = addSearch(entries, uid)
	if !changed {
		return g, false, nil
	}
	if err := note(g); err != nil {
		return g, false, err
	}
	if err := unix.Setxattr(dir, aclXattr, encodeACL(entries), 0); err != nil {
		return g, false, fmt.Errorf("setting an ACL entry: %w", err)
	}
	return g, true, nil
}

// revokeSearch takes back from dir's ACL what grantSearch gave uid (g).
// A folder that is gone, or has no ACL any more, is left.
func revokeSearch(g grant, uid int) error {
	entries, err := readACL(g.dir)
	switch {
	case errors.Is(err, unix.ENODATA) || errors.Is(err, unix.ENOENT):
		return nil
	case err != nil:
		return err
	}
	if err := unix.Setxattr(g.dir, aclXattr, encodeACL(removeSearch(entries, uid, g.made, g.mask)), 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("removing the ACL entry of uid %d from %s: %w", uid, g.dir, err)
	}
	return nil
}

// minimalACL is the ACL a folder of mode mode has without one.
func minimalACL(mode uint32) []aclEntry {
	return []aclEntry{
		{aclUserObj, uint16(mode >> 6 & 7), aclNoID},
		{aclGroupO, uint16(mode >> 3 & 7), aclNoID},
		{aclOther, uint16(mode & 7), aclNoID},
	}
}

// addSearch gives uid search (x) in entries: its named entry gets x, or
// a new one with x alone (made); the mask gets x too (mask), or is made
// as the union of the group class. changed is false when uid's entry
// and the mask had x already.
func addSearch(in []aclEntry, uid int) (out []aclEntry, made, mask, changed bool) {
	out = append([]aclEntry(nil), in...)
	found := false
	for i, e := range out {
		if e.tag == aclUser && e.id == uint32(uid) {
			found = true
			if e.perm&1 == 0 {
				out[i].perm |= 1
				changed = true
			}
		}
	}
	if !found {
		out = append(out, aclEntry{aclUser, 1, uint32(uid)})
		made, changed = true, true
	}
	var union uint16
	hasMask := false
	for i, e := range out {
		switch e.tag {
		case aclUser, aclGroupO, aclGroup:
			union |= e.perm
		case aclMask:
			hasMask = true
			if e.perm&1 == 0 {
				out[i].perm |= 1
				mask, changed = true, true
			}
		}
	}
	if !hasMask {
		out = append(out, aclEntry{aclMask, union, aclNoID})
	}
	sortACL(out)
	return out, made, mask, changed
}

// removeSearch takes back what addSearch gave uid: its entry when it was
// made, else the x of it; the mask's x when it was added and no entry of
// the group class needs it any more. With no named entry left, the ACL
// is the minimal one (no mask), which the kernel turns into the mode
// alone.
func removeSearch(in []aclEntry, uid int, made, mask bool) []aclEntry {
	var out []aclEntry
	for _, e := range in {
		if e.tag == aclUser && e.id == uint32(uid) {
			if made {
				continue
			}
			e.perm &^= 1
		}
		out = append(out, e)
	}
	named, needX := false, false
	for _, e := range out {
		switch e.tag {
		case aclUser, aclGroup:
			named = true
			needX = needX || e.perm&1 != 0
		case aclGroupO:
			needX = needX || e.perm&1 != 0
		}
	}
	kept := out[:0]
	for _, e := range out {
		if e.tag == aclMask {
			if !named {
				continue
			}
			if mask && !needX {
				e.perm &^= 1
			}
		}
		kept = append(kept, e)
	}
	sortACL(kept)
	return kept
}

func sortACL(entries []aclEntry) {
	sort.Slice(entries, func(i, j int) bool {
		if entries[i].tag != entries[j].tag {
			return entries[i].tag < entries[j].tag
		}
		return entries[i].id < entries[j].id
	})
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

package git

import (
	"fmt"
	"slices"
)

// ace is one entry of a Windows folder's access list (DACL): its type
// (aceAllowed, aceDenied or another) and whom it names (a SID, as
// "S-1-5-…").
type ace struct {
	kind uint8
	sid  string
}

// The entry types ownFolder knows (ACCESS_ALLOWED_ACE_TYPE and
// ACCESS_DENIED_ACE_TYPE).
const (
	aceAllowed = 0
	aceDenied  = 1
)

// notOnlyUs is the rule ownFolder applies on Windows to a folder's
// security descriptor, apart from reading it: why a folder owned by owner
// whose access list is dacl (hasDACL false: it has none, which lets
// everyone in) is not one that only us may own and enter, "" when it is.
// An entry that denies is no harm; an entry of another type (an object or
// callback entry) is not understood, so it fails.
func notOnlyUs(owner string, hasDACL bool, dacl []ace, us []string) string {
	if owner == "" {
		return "it has no owner"
	}
	if !slices.Contains(us, owner) {
		return "owned by " + owner
	}
	if !hasDACL {
		return "it has no access list: everyone may enter"
	}
	for _, e := range dacl {
		switch {
		case e.kind == aceDenied:
		case e.kind != aceAllowed:
			return fmt.Sprintf("its access list has an entry of type %d", e.kind)
		case !slices.Contains(us, e.sid):
			return "its access list lets in " + e.sid
		}
	}
	return ""
}

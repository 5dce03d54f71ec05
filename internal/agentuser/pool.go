package agentuser

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// LockDir is the root-only folder that holds a lock file per user of the
// agent: a run holds its user's lock (flock) while it lives, so the
// kernel releases it when the run ends, killed or not. The file also
// records what the run gave its user (ACL entries, the lent tree), for
// whoever holds the user next to take back what a killed run left.
const LockDir = "/run/ralph-ci-agent-users"

// PoolSize is how many users the pool has (DefaultName, DefaultName-2,
// ... DefaultName-16): as many root runs at once on one machine get a
// user each; one more waits until a run ends. Users are made when a run
// first needs them, so a machine that runs one job at a time has one.
const PoolSize = 16

// PoolNames are the pool's users in the order a run tries them:
// DefaultName, then DefaultName-2 to DefaultName-PoolSize.
func PoolNames() []string {
	names := []string{DefaultName}
	for i := 2; i <= PoolSize; i++ {
		names = append(names, DefaultName+"-"+strconv.Itoa(i))
	}
	return names
}

// InPool tells whether name is one of the pool's users.
func InPool(name string) bool {
	for _, n := range PoolNames() {
		if n == name {
			return true
		}
	}
	return false
}

// firstFree takes the first of names that take gets (true), in order,
// and returns it; "" when every one is held by another run. An error of
// take stops the search.
func firstFree(names []string, take func(string) (bool, error)) (string, error) {
	for _, n := range names {
		ok, err := take(n)
		if err != nil {
			return "", fmt.Errorf("user %s: %w", n, err)
		}
		if ok {
			return n, nil
		}
	}
	return "", nil
}

// The kinds of a record a run keeps of what it gave its user, so that
// whoever holds the user next takes back what a killed run left.
const (
	recGrant = "grant" // a search-only ACL entry on Dir
	recLend  = "lend"  // the work tree Dir, lent (Owner, Group, Mode to give back)
	recGiven = "given" // the work tree Dir, given back
)

// record is one line of a user's record.
type record struct {
	Kind string `json:"kind"`
	Dir  string `json:"dir"`
	UID  int    `json:"uid"`
	// Made: the ACL entry was ralph-ci's (else it added search to an
	// entry that was there). Mask: it added search to the ACL's mask.
	Made bool `json:"made,omitempty"`
	Mask bool `json:"mask,omitempty"`
	// Owner, Group and Mode of the work tree's top folder before it was
	// lent.
	Owner int    `json:"owner,omitempty"`
	Group int    `json:"group,omitempty"`
	Mode  uint32 `json:"mode,omitempty"`
}

func (r record) line() []byte {
	b, _ := json.Marshal(r)
	return append(b, '\n')
}

// pending reads a user's record (its lines) and returns what is still to
// take back: each grant (the first record of a folder and uid, which
// says what ralph-ci changed), and each lent tree not given back since
// (its last lend). A line that does not parse is skipped (a run killed
// while it wrote one).
func pending(data []byte) (grants, lent []record) {
	seen := map[string]bool{}
	open := map[string]record{} // trees lent, by folder: the last lend
	var order []string
	for _, l := range strings.Split(string(data), "\n") {
		var r record
		if l == "" || json.Unmarshal([]byte(l), &r) != nil || r.Dir == "" {
			continue
		}
		switch r.Kind {
		case recGrant:
			k := r.Dir + "\x00" + strconv.Itoa(r.UID)
			if !seen[k] {
				seen[k] = true
				grants = append(grants, r)
			}
		case recLend:
			if _, ok := open[r.Dir]; !ok {
				order = append(order, r.Dir)
			}
			open[r.Dir] = r
		case recGiven:
			delete(open, r.Dir)
			order = slices.DeleteFunc(order, func(d string) bool { return d == r.Dir })
		}
	}
	for _, d := range order {
		lent = append(lent, open[d])
	}
	return grants, lent
}

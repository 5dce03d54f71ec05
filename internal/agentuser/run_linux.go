package agentuser

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/ralph-ci/ralph-ci/internal/livedir"
)

// Works: Linux runs processes as another user (ralph-ci as root).
const Works = true

// homePrefix names the agent's HOMEs in the temporary folder:
// homePrefix + ralph-ci's PID + "-" + a random part.
const homePrefix = "ralph-ci-home-"

// unlockedRunUses tells whether another live ralph-ci runs its agent as
// uid although this run got uid's lock: a ralph-ci of a version before
// the pool (which takes no lock), or one that holds its lock in another
// lock folder (a container's own /run over a shared temporary folder).
// Seen by a HOME of uid's whose ralph-ci's PID is alive or which a run
// holds (internal/livedir). Its user is then not free: taking it would
// kill that run's agent.
func unlockedRunUses(uid int) bool {
	entries, _ := os.ReadDir(os.TempDir())
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), homePrefix)
		pid, _, ok2 := strings.Cut(rest, "-")
		if !ok || !ok2 || pid == strconv.Itoa(os.Getpid()) {
			continue
		}
		p := filepath.Join(os.TempDir(), e.Name())
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil || int(st.Uid) != uid {
			continue
		}
		if _, err := os.Stat("/proc/" + pid); err == nil || livedir.Held(p) {
			return true
		}
	}
	return false
}

// Run is what one run gives the agent's user, taken back by Close.
type Run struct {
	User
	// Home is the user's HOME for the run, fresh and its own.
	Home string
	// Tree is the work tree, lent to the user before each start.
	Tree string
	// Owner and Group are the tree's owner and group, which get it back.
	Owner, Group int
	// Env are variables (KEY=VALUE) every process of the user gets where
	// its environment sets none: the toolchains of ralph-ci's HOME it
	// reads (Toolchains).
	Env []string

	mu     sync.Mutex
	grants []grant
	// before are the odd entries of ralph-ci's folder (Snapshot):
	// path to inode.
	before map[string]uint64
	mode   uint32 // of the tree's top folder, given back
	lent   bool   // the tree's top folder was made the user's alone
	held   *Held
	home   *livedir.Dir
	// seen are the folders Lend's last walks found unchanged (see
	// seenDirs); Close forgets them.
	seen seenDirs
}

// Open prepares a run of the held user h on the work tree tree: its
// HOME, a way down to the tree, the HOME and each folder of reach (the
// job's PATH), and the tree's owner and mode recorded (in the run and in
// h's record). The tree's top folder is the user's alone (mode 0700)
// while it is lent, so no other user (another run's agent) enters it.
// A tree owned already by h's user or a user of the pool (a run killed
// before its end left it so) goes back to the owner of the folder above
// it, mode 0755. It refuses to lend where fs.protected_hardlinks is 0.
func Open(h *Held, tree string, reach []string) (*Run, error) {
	if err := hardlinksProtected(protectedHardlinks); err != nil {
		return nil, err
	}
	u := h.User
	tree, err := filepath.Abs(tree)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Lstat(tree, &st); err != nil {
		return nil, fmt.Errorf("the work tree: %w", err)
	}
	mode := st.Mode & 0o7777
	if int(st.Uid) == u.UID || agentUID(int(st.Uid)) {
		if err := unix.Stat(filepath.Dir(tree), &st); err != nil {
			return nil, err
		}
		mode = 0o755
	}
	r := &Run{User: u, Tree: tree, Owner: int(st.Uid), Group: int(st.Gid), mode: mode, held: h}
	home, err := livedir.Make(homePrefix) // and the HOMEs of runs that are gone (killed with SIGKILL)
	if err != nil {
		return nil, fmt.Errorf("the agent's HOME: %w", err)
	}
	r.home, r.Home = home, home.Path
	if err := os.Chown(r.Home, u.UID, u.GID); err != nil {
		home.Remove()
		return nil, fmt.Errorf("the agent's HOME: %w", err)
	}
	note := func(g grant) error {
		return h.note(record{Kind: recGrant, Dir: g.dir, UID: u.UID, Made: g.made, Mask: g.mask})
	}
	unlock, err := aclEdits(h.dir)
	if err == nil {
		r.grants, err = searchable(u.UID, u.GID, note, append([]string{tree, r.Home}, reach...)...)
		unlock()
	}
	if err == nil {
		err = h.note(record{Kind: recLend, Dir: tree, UID: u.UID, Owner: r.Owner, Group: r.Group, Mode: mode})
	}
	if err == nil {
		r.lent = true
		err = chmodTop(tree, 0o700)
	}
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}

// agentUID tells whether uid is a user of the pool's.
func agentUID(uid int) bool {
	u, err := user.LookupId(strconv.Itoa(uid))
	return err == nil && InPool(u.Username)
}

// Granted lists the folders that got a search-only ACL entry (the
// holder of the user removes them: Held.Release).
func (r *Run) Granted() []string {
	var dirs []string
	for _, g := range r.grants {
		dirs = append(dirs, g.dir)
	}
	return dirs
}

// Lend gives every entry of the work tree to the user (before a start:
// what ralph-ci and its git wrote since the last one is root's). It
// returns how many entries changed.
func (r *Run) Lend() (int, error) {
	if r == nil {
		return 0, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = seenDirs{}
	}
	return chownTreeSeen(r.Tree, r.UID, r.GID, true, r.seen)
}

// Close gives the work tree back to its owner, with its top folder's
// mode, and removes the HOME. Call it once every boxed process is gone.
// The search-only ACL entries are the held user's to remove
// (Held.Release).
func (r *Run) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	r.seen = nil
	if _, err := chownTree(r.Tree, r.Owner, r.Group, false); err != nil {
		errs = append(errs, fmt.Errorf("giving the work tree back to uid %d: %w", r.Owner, err))
	}
	if r.lent {
		if err := chmodTop(r.Tree, r.mode); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) == 0 && r.lent && r.held != nil {
		errs = append(errs, r.held.note(record{Kind: recGiven, Dir: r.Tree, UID: r.UID}))
	}
	if err := r.home.Remove(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

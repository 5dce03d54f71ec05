package agentuser

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Works: Linux runs processes as another user (ralph-ci as root).
const Works = true

// homePrefix names the agent's HOMEs in the temporary folder:
// homePrefix + ralph-ci's PID + "-" + a random part.
const homePrefix = "ralph-ci-home-"

// removeStaleHomes removes the HOMEs of ralph-ci runs that are gone (a
// run killed with SIGKILL leaves its own).
func removeStaleHomes() {
	entries, _ := os.ReadDir(os.TempDir())
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), homePrefix)
		pid, _, ok2 := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || !ok2 || err != nil || !e.IsDir() || n == os.Getpid() {
			continue
		}
		if _, err := os.Stat("/proc/" + pid); err == nil {
			continue // its ralph-ci still runs
		}
		_ = os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
	}
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
}

// Open prepares a run of u on the work tree tree: its HOME, a way down
// to the tree, the HOME and each folder of reach (the job's PATH), and
// the tree's owner recorded. A tree owned by u already (a run killed
// before its end left it so) goes back to the owner of the folder above
// it.
func Open(u User, tree string, reach []string) (*Run, error) {
	tree, err := filepath.Abs(tree)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Lstat(tree, &st); err != nil {
		return nil, fmt.Errorf("the work tree: %w", err)
	}
	if int(st.Uid) == u.UID {
		if err := unix.Stat(filepath.Dir(tree), &st); err != nil {
			return nil, err
		}
	}
	r := &Run{User: u, Tree: tree, Owner: int(st.Uid), Group: int(st.Gid)}
	removeStaleHomes()
	home, err := os.MkdirTemp("", homePrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("the agent's HOME: %w", err)
	}
	r.Home = home
	if err := os.Chown(home, u.UID, u.GID); err != nil {
		os.RemoveAll(home)
		return nil, fmt.Errorf("the agent's HOME: %w", err)
	}
	r.grants, err = searchable(u.UID, u.GID, append([]string{tree, home}, reach...)...)
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}

// Granted lists the folders that got a search-only ACL entry.
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
	return chownTree(r.Tree, r.UID, r.GID, true)
}

// Close gives the work tree back to its owner and removes the HOME. Call
// it once every boxed process is gone. The search-only ACL entries stay:
// runs on one machine share the folders above their trees (/root, a
// temporary folder), and removing an entry at one run's end would cut
// another run's agent off from its tree.
func (r *Run) Close() error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	if _, err := chownTree(r.Tree, r.Owner, r.Group, false); err != nil {
		errs = append(errs, fmt.Errorf("giving the work tree back to uid %d: %w", r.Owner, err))
	}
	if r.Home != "" && strings.HasPrefix(filepath.Base(r.Home), homePrefix) {
		if err := os.RemoveAll(r.Home); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

package agentuser

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Held is a user of the agent held by this run: the pool's user held
// alone, or a user the config names, shared with the runs that name it
// too.
type Held struct {
	User
	// Shared: held with a shared lock (the config names the user).
	Shared bool
	// Cleaned is what was taken back when the user was taken: processes
	// of its uid that were still alive, and what a killed run gave it.
	Cleaned Cleaned

	mu  sync.Mutex
	f   *os.File
	dir string
}

// Cleaned is what was taken back from a user.
type Cleaned struct {
	Killed []Proc // processes of its uid, killed (a user of the pool)
	// Alive are processes of its uid left alive: a user the config
	// names may be a user of the machine's (a runner's service).
	Alive     []Proc
	Revoked   []string // folders whose ACL entry for it was removed
	GivenBack []string // work trees given back to their owner
}

// Empty tells whether nothing was taken back.
func (c Cleaned) Empty() bool {
	return len(c.Killed) == 0 && len(c.Alive) == 0 && len(c.Revoked) == 0 && len(c.GivenBack) == 0
}

// Take holds a user for the run. pool (box.user auto): the first of
// PoolNames no other run holds, made when missing, held alone; when
// every one is held, waiting tells who holds them and Take waits for one
// to end (or ctx). Else the user name (never made), held shared with the
// runs that name it too; a pool run holding it is waited for. Whoever
// holds a user alone first takes back what a killed run gave it, and
// kills every process of its uid (a killed run's leftovers) when it is
// the pool's; a user the config names may be a user of the machine
// (whose processes are not ralph-ci's to kill): its live processes are
// listed (Cleaned.Alive).
func Take(ctx context.Context, name string, pool bool, waiting func([]string)) (*Held, error) {
	return take(ctx, LockDir, name, pool, waiting)
}

func take(ctx context.Context, dir, name string, pool bool, waiting func([]string)) (*Held, error) {
	if err := lockDir(dir); err != nil {
		return nil, err
	}
	names := []string{name}
	if pool {
		names = PoolNames()
	}
	told := false
	for {
		var h *Held
		_, err := firstFree(names, func(n string) (bool, error) {
			var err error
			h, err = tryHold(dir, n, !pool)
			if h != nil && pool {
				if u, err := lookup(n); err == nil && unlockedRunUses(u.UID) {
					h.f.Close()
					h = nil
				}
			}
			return h != nil, err
		})
		if err != nil {
			return nil, err
		}
		if h != nil {
			u, err := ensureOne(dir, h.Name, pool)
			if err != nil {
				h.f.Close()
				return nil, err
			}
			h.User = u
			if !h.Shared {
				h.Cleaned, err = h.clean(pool, !pool)
				if err == nil && !pool {
					err = flock(h.f, unix.LOCK_SH) // from alone to shared: others that name it may come
				}
				if err != nil {
					h.f.Close()
					return nil, err
				}
				h.Shared = !pool
			}
			return h, nil
		}
		if !told && waiting != nil {
			waiting(names)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a user of the agent: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// ensureOne is Ensure, one run at a time: useradd fails while another
// holds /etc/passwd's lock, and runs at once make users of the pool at
// once.
func ensureOne(dir, name string, create bool) (User, error) {
	if u, err := lookup(name); err == nil || !create {
		return u, err
	}
	unlock, err := dirLock(dir, ".useradd")
	if err != nil {
		return User{}, err
	}
	defer unlock()
	return Ensure(name, create)
}

// tryHold takes name's lock without waiting: alone, or (shared) with
// other runs that hold it shared. nil when another run holds it so.
func tryHold(dir, name string, shared bool) (*Held, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_APPEND|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("its lock: %w", err)
	}
	h := &Held{User: User{Name: name}, f: f, dir: dir}
	if flock(f, unix.LOCK_EX|unix.LOCK_NB) == nil {
		return h, nil
	}
	if shared && flock(f, unix.LOCK_SH|unix.LOCK_NB) == nil {
		h.Shared = true
		return h, nil
	}
	f.Close()
	return nil, nil
}

func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// lockDir makes dir, root's alone, or checks that it is: a folder (not
// a link) of uid 0 that no one else may change.
func lockDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil { // a container without /run
		return fmt.Errorf("the agent users' lock folder: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("the agent users' lock folder: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return fmt.Errorf("the agent users' lock folder: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Uid != 0 || st.Mode&0o022 != 0 {
		return fmt.Errorf("the agent users' lock folder %s is not a folder of root's alone (uid %d, mode %o): remove it", dir, st.Uid, st.Mode)
	}
	return nil
}

// aclEdits takes the lock every run takes to change ACLs (a read, an
// entry added or removed, a write): runs at once change the same folders
// (/root, a shared temporary folder), and without it one run's write
// drops the entry another run's added meanwhile.
func aclEdits(dir string) (unlock func(), err error) { return dirLock(dir, ".acl") }

// dirLock takes the lock name of the lock folder dir, waiting for it.
func dirLock(dir, name string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("the lock %s: %w", name, err)
	}
	if err := flock(f, unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("the lock %s: %w", name, err)
	}
	return func() { f.Close() }, nil
}

// note appends r to the user's record.
func (h *Held) note(r record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, err := h.f.Write(r.line()); err != nil {
		return fmt.Errorf("recording for %s: %w", h.Name, err)
	}
	return nil
}

// clean takes back what the user's record says runs gave it and did not
// take back (ACL entries, lent trees), and empties the record; first,
// with kill, it kills every process of the user's uid, or with list it
// lists them. Only while the user is held alone.
func (h *Held) clean(kill, list bool) (Cleaned, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var c Cleaned
	var errs []error
	if kill {
		var err error
		c.Killed, err = killUser(h.UID)
		if err != nil {
			return c, err
		}
	} else if list {
		c.Alive = userProcs(h.UID)
	}
	if _, err := h.f.Seek(0, io.SeekStart); err != nil {
		return c, err
	}
	data, err := io.ReadAll(h.f)
	if err != nil {
		return c, fmt.Errorf("reading the record of %s: %w", h.Name, err)
	}
	grants, lent := pending(data)
	if len(grants) > 0 {
		unlock, err := aclEdits(h.dir)
		if err != nil {
			return c, err
		}
		defer unlock()
	}
	for _, l := range lent {
		ok, err := giveBack(l)
		if err != nil {
			errs = append(errs, err)
		} else if ok {
			c.GivenBack = append(c.GivenBack, l.Dir)
		}
	}
	for _, g := range grants {
		if err := revokeSearch(grant{dir: g.Dir, made: g.Made, mask: g.Mask}, g.UID); err != nil {
			errs = append(errs, err)
		} else {
			c.Revoked = append(c.Revoked, g.Dir)
		}
	}
	if len(errs) == 0 {
		if err := h.f.Truncate(0); err != nil {
			errs = append(errs, err)
		}
	}
	return c, errors.Join(errs...)
}

// giveBack gives a tree a killed run lent (l) back to its owner, with
// its mode, when it is still lent (its top folder is the uid's).
func giveBack(l record) (bool, error) {
	var st unix.Stat_t
	if err := unix.Lstat(l.Dir, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != l.UID {
		return false, nil // gone, or lent again since, or given back
	}
	if _, err := chownTree(l.Dir, l.Owner, l.Group, false); err != nil {
		return false, fmt.Errorf("giving %s back to uid %d: %w", l.Dir, l.Owner, err)
	}
	return true, chmodTop(l.Dir, l.Mode)
}

// Release takes back the ACL entries given to the user (held alone, or
// shared and the last run to hold it: others may still need them) and
// lets the user go. What it took back is returned.
func (h *Held) Release() (Cleaned, error) {
	if h == nil || h.f == nil {
		return Cleaned{}, nil
	}
	defer func() { h.f.Close(); h.f = nil }()
	if h.Shared && flock(h.f, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return Cleaned{}, nil // another run holds it still: the last one takes them back
	}
	return h.clean(false, false)
}

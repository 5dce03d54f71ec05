package agentuser

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func e(tag, perm uint16, id uint32) aclEntry { return aclEntry{tag, perm, id} }

// Adding search for a user and taking it back leaves the ACL as it was:
// a folder without one gets its mode alone back; another user's entry
// (a run of another pool user at once) keeps its search through the mask;
// an entry the admin made keeps everything but the search ralph-ci added.
func TestSearchRoundTrip(t *testing.T) {
	const me, other = 990, 991
	for _, c := range []struct {
		name             string
		in, added        []aclEntry
		made, mask, more bool
		back             []aclEntry
	}{
		{
			name:  "no ACL (a 0700 folder)",
			in:    minimalACL(0o700),
			added: []aclEntry{e(aclUserObj, 7, aclNoID), e(aclUser, 1, me), e(aclGroupO, 0, aclNoID), e(aclMask, 1, aclNoID), e(aclOther, 0, aclNoID)},
			made:  true, more: true,
			back: minimalACL(0o700),
		},
		{
			name:  "another pool user's entry stays searchable",
			in:    []aclEntry{e(aclUserObj, 7, aclNoID), e(aclUser, 1, other), e(aclGroupO, 0, aclNoID), e(aclMask, 1, aclNoID), e(aclOther, 0, aclNoID)},
			added: []aclEntry{e(aclUserObj, 7, aclNoID), e(aclUser, 1, me), e(aclUser, 1, other), e(aclGroupO, 0, aclNoID), e(aclMask, 1, aclNoID), e(aclOther, 0, aclNoID)},
			made:  true, more: true,
			back: []aclEntry{e(aclUserObj, 7, aclNoID), e(aclUser, 1, other), e(aclGroupO, 0, aclNoID), e(aclMask, 1, aclNoID), e(aclOther, 0, aclNoID)},
		},
		{
			name:  "the admin's read entry for the user, masked",
			in:    []aclEntry{e(aclUserObj, 7, aclNoID), e(aclUser, 4, me), e(aclGroupO, 4, aclNoID), e(aclMask, 4, aclNoID), e(aclOther, 0, aclNoID)},
			added: []aclEntry{e(aclUserObj, 7, aclNoID), e(aclUser, 5, me), e(aclGroupO, 4, aclNoID), e(aclMask, 5, aclNoID), e(aclOther, 0, aclNoID)},
			mask:  true, more: true,
			back: []aclEntry{e(aclUserObj, 7, aclNoID), e(aclUser, 4, me), e(aclGroupO, 4, aclNoID), e(aclMask, 4, aclNoID), e(aclOther, 0, aclNoID)},
		},
	} {
		added, made, mask, changed := addSearch(c.in, me)
		if !reflect.DeepEqual(added, c.added) || made != c.made || mask != c.mask || changed != c.more {
			t.Errorf("%s: addSearch = %v made %v mask %v changed %v; want %v made %v mask %v", c.name, added, made, mask, changed, c.added, c.made, c.mask)
		}
		if _, _, _, again := addSearch(added, me); again {
			t.Errorf("%s: adding search twice changes the ACL", c.name)
		}
		if back := removeSearch(added, me, made, mask); !reflect.DeepEqual(back, c.back) {
			t.Errorf("%s: removeSearch = %v, want %v", c.name, back, c.back)
		}
	}
}

// On a real folder: the grant is an ACL the kernel keeps, and taking it
// back leaves no ACL at all and the folder's mode as it was. Root only
// (an ACL entry for another uid).
func TestGrantAndRevokeOnAFolder(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("root only")
	}
	dir := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var noted []grant
	gs, err := searchable(4243, 4243, func(g grant) error { noted = append(noted, g); return nil }, dir)
	if err != nil || len(gs) != 2 || len(noted) != 2 || gs[1].dir != dir || !gs[1].made {
		t.Fatalf("searchable = %+v, %v (noted %+v); want the test's 0700 folder and d", gs, err, noted)
	}
	if entries, err := readACL(dir); err != nil || len(entries) != 5 {
		t.Fatalf("the ACL of %s: %v, %v", dir, entries, err)
	}
	for _, g := range gs {
		if err := revokeSearch(g, 4243); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := getXattr(dir); !errors.Is(err, unix.ENODATA) {
		t.Errorf("%s keeps an ACL: %v", dir, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v, %v; want mode 0700", dir, fi.Mode(), err)
	}
}

// A user's lock: a run holds it alone, a second run does not get it
// (alone or shared), and once the first lets it go the second holds it;
// runs that name the user hold it shared, together, and a pool run does
// not get it then.
func TestHoldLocks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the lock folder is root's")
	}
	dir := filepath.Join(t.TempDir(), "locks")
	if err := lockDir(dir); err != nil {
		t.Fatal(err)
	}
	a, err := tryHold(dir, "u", false)
	if err != nil || a == nil || a.Shared {
		t.Fatalf("the first run: %+v, %v", a, err)
	}
	for _, shared := range []bool{false, true} {
		if b, err := tryHold(dir, "u", shared); b != nil || err != nil {
			t.Fatalf("a second run (shared %v) got a user held alone: %v", shared, err)
		}
	}
	a.f.Close()
	b, err := tryHold(dir, "u", true)
	if err != nil || b == nil || b.Shared {
		t.Fatalf("the user let go: %+v, %v; want it held alone", b, err)
	}
	if err := flock(b.f, unix.LOCK_SH); err != nil {
		t.Fatal(err)
	}
	c, err := tryHold(dir, "u", true)
	if err != nil || c == nil || !c.Shared {
		t.Fatalf("a second run naming the user: %+v, %v; want it shared", c, err)
	}
	if d, _ := tryHold(dir, "u", false); d != nil {
		t.Fatal("a pool run got a user held shared")
	}
	if cl, err := b.Release(); err != nil || !cl.Empty() {
		t.Fatalf("release while shared: %+v, %v", cl, err)
	}
	c.f.Close()
}

// A lock folder that is not root's alone is refused.
func TestLockDirRefusesOthers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "locks")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := lockDir(dir); err == nil {
		t.Error("a folder anyone may change was taken as the lock folder")
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	if err := lockDir(link); err == nil {
		t.Error("a symbolic link was taken as the lock folder")
	}
	if _, err := take(context.Background(), dir, DefaultName, true, nil); err == nil {
		t.Error("take used a lock folder anyone may change")
	}
}

// Every process of a uid is killed, a forked child included, and named;
// processes of other uids live on. Root only (starts processes as
// another uid).
func TestKillUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("root only")
	}
	const uid = 4244
	cmd := exec.Command("sh", "-c", "sleep 600 & exec sleep 601")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for len(userProcs(uid)) < 2 { // the shell forked sleep 600 and became sleep 601
		select {
		case <-done:
			t.Fatal("the processes ended by themselves")
		case <-time.After(5 * time.Millisecond):
		}
	}
	killed, err := killUser(uid)
	if err != nil || len(killed) != 2 {
		t.Fatalf("killUser = %v, %v; want the two sleeps", killed, err)
	}
	for _, p := range killed {
		if p.Comm != "sleep" {
			t.Errorf("killed %v", p)
		}
	}
	if err := <-done; err == nil {
		t.Error("the process ended well: it was not killed")
	}
	if left := userProcs(uid); len(left) != 0 {
		t.Errorf("left alive: %v", left)
	}
	if _, err := killUser(0); err == nil {
		t.Error("killUser(0) was tried")
	}
}

// BenchmarkTakeAndRelease is what holding a user costs a run: its lock,
// the scan of /proc for its processes, and letting it go. Root only (the
// lock folder is root's); a user of the machine (nobody), held in a lock
// folder of the test's, so no run's user is touched.
func BenchmarkTakeAndRelease(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("root only")
	}
	dir := filepath.Join(b.TempDir(), "locks")
	for b.Loop() {
		h, err := take(context.Background(), dir, "nobody", false, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.Release(); err != nil {
			b.Fatal(err)
		}
	}
}

// A user whose HOME a live ralph-ci made (one before the pool, which
// takes no lock) is not free; once that ralph-ci is gone it is.
func TestUnlockedRunUses(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("root only")
	}
	const uid = 4245
	live := exec.Command("sleep", "600") // stands for the older ralph-ci
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	home, err := os.MkdirTemp("", homePrefix+strconv.Itoa(live.Process.Pid)+"-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	if err := os.Chown(home, uid, uid); err != nil {
		t.Fatal(err)
	}
	if !unlockedRunUses(uid) {
		t.Error("the user of a live run's HOME was taken as free")
	}
	if unlockedRunUses(uid + 1) {
		t.Error("another user was taken as used")
	}
	_ = live.Process.Kill()
	_ = live.Wait()
	if unlockedRunUses(uid) {
		t.Error("the user of a gone run's HOME was taken as used")
	}
}

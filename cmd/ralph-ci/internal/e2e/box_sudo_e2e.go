//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/ralph-ci/ralph-ci/internal/box"
)

// SudoUser is a user the test made.
type SudoUser struct {
	Name, Home string
	UID, Gid   int
}

// NewUser adds a user named prefix+PID, with passwordless sudo when sudo
// is true, removed (with its sudoers file) when the test ends.
func NewUser(t *testing.T, home, prefix string, sudo bool) SudoUser {
	t.Helper()
	name := fmt.Sprintf("%s%d", prefix, os.Getpid()%1000000)
	if out, err := exec.Command("useradd", "--no-create-home", "--home-dir", home, "--shell", "/bin/sh", "--user-group", name).CombinedOutput(); err != nil {
		t.Skipf("useradd: %v: %s", err, out)
	}
	sudoers := "/etc/sudoers.d/" + name
	t.Cleanup(func() {
		os.Remove(sudoers)
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
	})
	if sudo {
		if err := os.WriteFile(sudoers, []byte(name+" ALL=(ALL) NOPASSWD: ALL\n"), 0o440); err != nil {
			t.Fatal(err)
		}
	}
	uu, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(uu.Uid)
	gid, _ := strconv.Atoi(uu.Gid)
	u := SudoUser{Name: name, Home: home, UID: uid, Gid: gid}
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	return u
}

// delegateCgroup makes a cgroup below own and delegates it to u as
// systemd does (the folder, cgroup.procs, cgroup.threads and
// cgroup.subtree_control chowned); it is emptied and removed when the
// test ends.
func delegateCgroup(t *testing.T, own string, u SudoUser) string {
	t.Helper()
	dir := filepath.Join(own, "ralph-ci-test-sudo-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("no writable cgroup here: %v", err)
	}
	t.Cleanup(func() {
		if _, err := box.Remove(dir); err != nil {
			t.Errorf("removing the delegated cgroup: %v", err)
		}
	})
	for _, f := range []string{"", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control"} {
		if err := os.Chown(filepath.Join(dir, f), u.UID, u.Gid); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// AsUser is argv run as u, started into the cgroup cgroupFD (-1: this
// process's).
func AsUser(u SudoUser, cgroupFD int, dir string, env []string, argv ...string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.Gid), Groups: []uint32{}}}
	if cgroupFD >= 0 {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cgroupFD
	}
	return cmd
}

// ChownTree gives u everything under p.
func ChownTree(t *testing.T, p string, u SudoUser) {
	t.Helper()
	err := filepath.Walk(p, func(path string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, u.UID, u.Gid)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// CopyFile copies src to dst with mode.
func CopyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, raw, mode); err != nil {
		t.Fatal(err)
	}
}

package agentuser

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"os/user"
	"strconv"
	"time"
)

// useraddPaths are where Ensure looks for useradd: system folders only.
var useraddPaths = []string{"/usr/sbin/useradd", "/sbin/useradd", "/usr/bin/useradd"}

// Ensure finds the user name, and creates it as a system user (its own
// group, no home folder, no login shell) when it is missing and create
// is true: two runs creating it at once both find it.
func Ensure(name string, create bool) (User, error) {
	u, err := lookup(name)
	if err == nil || !create {
		return u, err
	}
	var useradd string
	for _, p := range useraddPaths {
		if _, err := exec.LookPath(p); err == nil {
			useradd = p
			break
		}
	}
	if useradd == "" {
		return User{}, fmt.Errorf("user %s is missing and there is no useradd to create it: create it, or set `box: {user: off}`", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, useradd, "--system", "--user-group", "--no-create-home",
		"--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", "--comment", "ralph-ci agent", name)
	cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	if u, err := lookup(name); err == nil {
		return u, nil // made, or made by another run meanwhile
	}
	return User{}, fmt.Errorf("creating user %s: %v: %s", name, runErr, bytes.TrimSpace(out.Bytes()))
}

// lookup reads the user's passwd entry; uid 0 is refused.
func lookup(name string) (User, error) {
	pw, err := user.Lookup(name)
	if err != nil {
		return User{}, err
	}
	uid, err1 := strconv.Atoi(pw.Uid)
	gid, err2 := strconv.Atoi(pw.Gid)
	if err1 != nil || err2 != nil {
		return User{}, fmt.Errorf("user %s: uid %q, gid %q", name, pw.Uid, pw.Gid)
	}
	if uid == 0 {
		return User{}, fmt.Errorf("user %s has uid 0: the agent needs a user of its own", name)
	}
	return User{Name: name, UID: uid, GID: gid}, nil
}
